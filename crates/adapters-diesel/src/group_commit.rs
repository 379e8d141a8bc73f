//! Group commit for single-statement writes ([`crate::Database::write_one`]): a write is queued,
//! and a leader on the blocking pool runs what is queued — alone, autocommitted, when it is the
//! only one; several at once in one transaction, so they share one commit.
//!
//! Why: under concurrent load the commits — a WAL flush each, and on SQLite a hand-over of its
//! one writer lock between sleeping threads — bound the rate, not the statements; and a caller
//! waiting for its answer holds no thread. Every caller still waits for the commit that holds
//! its write, so what a success promises is unchanged. If any write of a group fails, the group
//! is rolled back and each of its writes runs again alone, so a failure stays with its write.

use std::any::Any;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::oneshot;

use crate::connection::DbConnection;
use crate::error::{StoreError, StoreResult};
use crate::tx::write_tx;

/// A queued write. `Fn`, not `FnOnce`: after a failed group each write runs again alone.
pub(crate) type Step =
    Box<dyn Fn(&mut DbConnection) -> StoreResult<Box<dyn Any + Send>> + Send + Sync>;

/// What a write's caller receives: the boxed value of its step, or why it failed.
pub(crate) type Answer = StoreResult<Box<dyn Any + Send>>;

/// At most this many writes share a commit, which bounds how long one group holds the writer.
const MAX_GROUP: usize = 64;

/// A write waiting for a leader, and where its answer goes.
pub(crate) struct Waiting {
    pub step: Step,
    pub reply: oneshot::Sender<Answer>,
}

#[derive(Default)]
struct Queue {
    waiting: VecDeque<Waiting>,
    /// Leaders running (or about to run). Below the most allowed, a new write starts one.
    leaders: usize,
}

/// The queue of one [`crate::Database`]'s single-statement writes.
pub(crate) struct GroupCommit {
    queue: Mutex<Queue>,
    max_leaders: usize,
}

impl GroupCommit {
    /// `max_leaders` groups may run at once, each on its own connection (1 for SQLite, which
    /// admits one writer at a time anyway).
    pub(crate) fn new(max_leaders: usize) -> Self {
        Self {
            queue: Mutex::default(),
            max_leaders: max_leaders.max(1),
        }
    }

    /// Queues a write. Returns a [`Leader`] to run on the blocking pool when there was room
    /// for one more; otherwise a running leader will take the write.
    pub(crate) fn enqueue(self: &Arc<Self>, waiting: Waiting) -> Option<Leader> {
        let mut queue = self.lock();
        queue.waiting.push_back(waiting);
        (queue.leaders < self.max_leaders).then(|| {
            queue.leaders += 1;
            Leader {
                group: Arc::clone(self),
                done: false,
            }
        })
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        // The queue is consistent at every unlock, so a panic elsewhere spoils nothing.
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The right to run groups; it ends when the queue is empty.
pub(crate) struct Leader {
    group: Arc<GroupCommit>,
    done: bool,
}

impl Leader {
    /// Runs groups until none is waiting (blocking: call it on the blocking pool). `run` takes a
    /// connection (and SQLite's writer turn) and calls [`run_group`]; one answer per step.
    pub(crate) fn run(mut self, run: impl Fn(&[Step]) -> Vec<Answer>) {
        loop {
            let group: Vec<Waiting> = {
                let mut queue = self.group.lock();
                if queue.waiting.is_empty() {
                    queue.leaders -= 1;
                    self.done = true;
                    return;
                }
                let size = queue.waiting.len().min(MAX_GROUP);
                queue.waiting.drain(..size).collect()
            };
            let (steps, replies): (Vec<Step>, Vec<oneshot::Sender<Answer>>) =
                group.into_iter().map(|w| (w.step, w.reply)).unzip();
            for (reply, answer) in replies.into_iter().zip(run(&steps)) {
                // A caller that stopped waiting (its client went away) needs no answer.
                let _ = reply.send(answer);
            }
        }
    }
}

impl Drop for Leader {
    /// A leader that panicked, or never ran because the runtime was shutting down, gives up its
    /// place and fails the writes still queued (their callers get an error, not a hang).
    fn drop(&mut self) {
        if !self.done {
            let mut queue = self.group.lock();
            queue.waiting.clear();
            queue.leaders -= 1;
        }
    }
}

/// What a caller gets when its write was dropped unanswered (see [`Leader`]'s `Drop`).
pub(crate) fn lost() -> StoreError {
    StoreError::Data(anyhow::anyhow!(
        "the write was dropped with the group that held it"
    ))
}

/// Runs a group on `conn`: one write alone, autocommitted; several in one write transaction,
/// and if one of them fails, the transaction is rolled back and each runs again alone.
pub(crate) fn run_group(conn: &mut DbConnection, steps: &[Step]) -> Vec<Answer> {
    if let [step] = steps {
        return vec![step(conn)];
    }
    match write_tx(conn, |conn| {
        steps
            .iter()
            .map(|step| step(conn))
            .collect::<StoreResult<Vec<_>>>()
    }) {
        Ok(values) => values.into_iter().map(Ok).collect(),
        Err(_) => steps.iter().map(|step| step(conn)).collect(),
    }
}

/// Boxes a typed step for the queue.
pub(crate) fn step<T: Send + 'static>(
    step: impl Fn(&mut DbConnection) -> StoreResult<T> + Send + Sync + 'static,
) -> Step {
    Box::new(move |conn| step(conn).map(|value| Box::new(value) as Box<dyn Any + Send>))
}

/// Unboxes an answer to the type its step returned.
pub(crate) fn unbox<T: 'static>(answer: Answer) -> StoreResult<T> {
    answer.and_then(|value| {
        value
            .downcast::<T>()
            .map(|value| *value)
            .map_err(|_| StoreError::Data(anyhow::anyhow!("a grouped write returned another type")))
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use diesel::connection::SimpleConnection;
    use diesel::prelude::*;
    use diesel::sql_types::{BigInt, Text};

    use super::*;

    /// One in-memory SQLite connection the leaders share, as a pool of one would be.
    fn connection() -> Arc<Mutex<DbConnection>> {
        let mut conn = DbConnection::establish(":memory:").unwrap();
        conn.batch_execute("CREATE TABLE t (k TEXT PRIMARY KEY NOT NULL, n BIGINT NOT NULL)")
            .unwrap();
        Arc::new(Mutex::new(conn))
    }

    fn insert(key: String, n: i64) -> Step {
        step(move |conn| {
            diesel::sql_query("INSERT INTO t (k, n) VALUES (?, ?)")
                .bind::<Text, _>(&key)
                .bind::<BigInt, _>(n)
                .execute(conn)?;
            Ok(n)
        })
    }

    #[derive(QueryableByName)]
    struct Count {
        #[diesel(sql_type = BigInt)]
        n: i64,
    }

    fn rows(conn: &Mutex<DbConnection>) -> i64 {
        let mut conn = conn.lock().unwrap();
        diesel::sql_query("SELECT COUNT(*) AS n FROM t")
            .get_result::<Count>(&mut *conn)
            .unwrap()
            .n
    }

    /// Queues a write and, when it gets to lead, runs the leader on a thread of its own (the
    /// blocking pool's stand-in) with `run`; returns the receiver of the write's answer.
    fn submit(
        group: &Arc<GroupCommit>,
        write: Step,
        run: impl Fn(&[Step]) -> Vec<Answer> + Send + 'static,
    ) -> oneshot::Receiver<Answer> {
        let (reply, answer) = oneshot::channel();
        if let Some(leader) = group.enqueue(Waiting { step: write, reply }) {
            std::thread::spawn(move || leader.run(run));
        }
        answer
    }

    fn on(conn: &Arc<Mutex<DbConnection>>) -> impl Fn(&[Step]) -> Vec<Answer> + Send + 'static {
        let conn = conn.clone();
        move |steps| run_group(&mut conn.lock().unwrap(), steps)
    }

    #[test]
    fn a_write_alone_runs_by_itself_and_returns_its_value() {
        let (group, conn) = (Arc::new(GroupCommit::new(1)), connection());
        let sizes = Arc::new(Mutex::new(Vec::new()));
        for (key, n) in [("a", 7), ("b", 8)] {
            let (sizes, run) = (sizes.clone(), on(&conn));
            let answer = submit(&group, insert(key.into(), n), move |steps| {
                sizes.lock().unwrap().push(steps.len());
                run(steps)
            });
            assert_eq!(unbox::<i64>(answer.blocking_recv().unwrap()).unwrap(), n);
        }
        assert_eq!(*sizes.lock().unwrap(), [1, 1]);
        assert_eq!(rows(&conn), 2);
    }

    #[test]
    fn queued_writes_share_commits_and_each_caller_gets_its_own_answer() {
        let (group, conn) = (Arc::new(GroupCommit::new(1)), connection());
        let (groups, most_at_once) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let running = Arc::new(AtomicUsize::new(0));
        let answers: Vec<_> = (0..200_i64)
            .map(|n| {
                let (groups, most, running, run) = (
                    groups.clone(),
                    most_at_once.clone(),
                    running.clone(),
                    on(&conn),
                );
                let answer = submit(&group, insert(format!("k{n}"), n), move |steps| {
                    groups.fetch_add(1, Ordering::SeqCst);
                    most.fetch_max(running.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                    // Slow enough that the next writes queue up behind this group.
                    std::thread::sleep(Duration::from_millis(2));
                    let answers = run(steps);
                    running.fetch_sub(1, Ordering::SeqCst);
                    answers
                });
                (n, answer)
            })
            .collect();
        for (n, answer) in answers {
            assert_eq!(unbox::<i64>(answer.blocking_recv().unwrap()).unwrap(), n);
        }
        assert_eq!(rows(&conn), 200);
        let groups = groups.load(Ordering::SeqCst);
        assert!(
            groups < 200,
            "200 writes ran in {groups} groups: none was shared"
        );
        assert_eq!(
            most_at_once.load(Ordering::SeqCst),
            1,
            "one leader at a time"
        );
        assert_eq!(
            group.lock().leaders,
            0,
            "the leader left when the queue was empty"
        );
    }

    #[test]
    fn no_more_groups_run_at_once_than_leaders_are_allowed() {
        let (group, conn) = (Arc::new(GroupCommit::new(3)), connection());
        let (running, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let answers: Vec<_> = (0..120_i64)
            .map(|n| {
                let (running, most, run) = (running.clone(), most.clone(), on(&conn));
                submit(&group, insert(format!("k{n}"), n), move |steps| {
                    most.fetch_max(running.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(2));
                    let answers = run(steps);
                    running.fetch_sub(1, Ordering::SeqCst);
                    answers
                })
            })
            .collect();
        for (n, answer) in (0..).zip(answers) {
            assert_eq!(unbox::<i64>(answer.blocking_recv().unwrap()).unwrap(), n);
        }
        assert_eq!(rows(&conn), 120);
        let most = most.load(Ordering::SeqCst);
        assert!((1..=3).contains(&most), "{most} groups ran at once");
        assert_eq!(group.lock().leaders, 0);
    }

    #[test]
    fn a_failing_write_fails_alone_and_the_rest_of_its_group_is_stored() {
        let conn = connection();
        let steps: Vec<Step> = ["x", "y", "x", "z"]
            .into_iter()
            .map(|key| insert(key.to_owned(), 1))
            .collect();
        let answers = run_group(&mut conn.lock().unwrap(), &steps);
        let failed: Vec<bool> = answers.iter().map(Result::is_err).collect();
        assert_eq!(
            failed,
            [false, false, true, false],
            "only the duplicate fails"
        );
        assert_eq!(rows(&conn), 3);
    }

    #[test]
    fn a_leader_that_panics_fails_its_writes_and_the_next_write_gets_a_new_leader() {
        let (group, conn) = (Arc::new(GroupCommit::new(1)), connection());
        let (reply, answer) = oneshot::channel();
        let leader = group
            .enqueue(Waiting {
                step: insert("p".into(), 1),
                reply,
            })
            .unwrap();
        let crashed = std::thread::spawn(move || {
            leader.run(|_steps: &[Step]| -> Vec<Answer> { panic!("the connection code panicked") });
        });
        assert!(crashed.join().is_err());
        assert!(
            answer.blocking_recv().is_err(),
            "the caller hears its write was dropped"
        );
        assert_eq!(group.lock().leaders, 0, "the place was given up");
        let answer = submit(&group, insert("q".into(), 2), on(&conn));
        assert_eq!(unbox::<i64>(answer.blocking_recv().unwrap()).unwrap(), 2);
    }

    #[test]
    fn a_leader_that_never_runs_fails_the_queued_writes() {
        let group = Arc::new(GroupCommit::new(1));
        let (reply, answer) = oneshot::channel();
        let leader = group.enqueue(Waiting {
            step: insert("r".into(), 1),
            reply,
        });
        drop(leader);
        assert!(answer.blocking_recv().is_err());
        assert_eq!(group.lock().leaders, 0);
    }
}
