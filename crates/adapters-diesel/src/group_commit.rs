//! Group commit for single-statement writes (`Database::write_one`, database.rs): a write is queued,
//! and a leader on the blocking pool runs what is queued — alone, autocommitted, when it is the
//! only one; several at once in one transaction, so they share one commit.
//!
//! Why: under concurrent load the commits — a WAL flush each, and on SQLite a hand-over of its
//! one writer lock between sleeping threads — bound the rate, not the statements; and a caller
//! waiting for its answer holds no thread. Every caller still waits for the commit that holds
//! its write, so what a success promises is unchanged. If a write of a group fails for a reason
//! of its own, the group is rolled back and each of its writes runs again alone, so the failure
//! stays with its write; if the database cannot be used, the group fails as a whole (see
//! [`run_group`]).

use std::any::Any;

use tokio::sync::oneshot;

use diesel::connection::{Connection, TransactionManager};

use crate::connection::DbConnection;
use crate::error::{StoreError, StoreResult};
use crate::leader_queue::{Leader, LeaderQueue};
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

/// The queue of one `Database`'s (database.rs) single-statement writes: at most as many groups
/// commit at once as it has leaders (1 for SQLite, which admits one writer at a time anyway).
pub(crate) type GroupCommit = LeaderQueue<Waiting>;

/// Runs `leader`'s groups until none is waiting (blocking: call it on the blocking pool). `run`
/// takes a connection (and SQLite's writer turn) and calls [`run_group`]; one answer per step.
/// A function rather than a method of `Leader`, so that `leader_queue.rs` knows nothing of
/// writes.
pub(crate) fn lead(mut leader: Leader<Waiting>, run: impl Fn(&[Step]) -> Vec<Answer>) {
    while let Some(group) = leader.next_group(MAX_GROUP) {
        let (steps, replies): (Vec<Step>, Vec<oneshot::Sender<Answer>>) =
            group.into_iter().map(|w| (w.step, w.reply)).unzip();
        let answers = run(&steps);
        // When the database could not be used at all, the writes queued meanwhile would
        // only wait for the same failure, a group at a time: they get it now.
        let unusable = answers
            .iter()
            .all(|a| a.as_ref().is_err_and(StoreError::is_connection_failure));
        for (reply, answer) in replies.into_iter().zip(answers) {
            // A caller that stopped waiting (its client went away) needs no answer.
            let _ = reply.send(answer);
        }
        if unusable {
            for waiting in leader.take_all() {
                let _ = waiting.reply.send(Err(unavailable()));
            }
        }
    }
}

/// What a caller gets when its write was dropped unanswered (see [`Leader`]'s `Drop`), or
/// when the database failed the writes before it: a 503, to be retried.
pub(crate) fn unavailable() -> StoreError {
    StoreError::Unavailable(anyhow::anyhow!(
        "the write was not run: the database could not be used"
    ))
}

/// Runs a group on `conn`: one write alone, autocommitted; several in one write transaction.
/// If one of them fails for a reason of its own (a constraint, a lock cycle), the transaction
/// is rolled back and each runs again alone, so only that write fails. If the connection or
/// the database failed (it is gone, SQLite stayed locked, BEGIN or COMMIT failed, the rollback
/// left a transaction open), every write of the group gets that failure at once: running them
/// again would wait for it once per write.
pub(crate) fn run_group(conn: &mut DbConnection, steps: &[Step]) -> Vec<Answer> {
    if let [step] = steps {
        return vec![step(conn)];
    }
    let mut own_failure = false;
    let grouped = write_tx(conn, |conn| {
        let mut values = Vec::with_capacity(steps.len());
        for step in steps {
            match step(conn) {
                Ok(value) => values.push(value),
                Err(e) => {
                    own_failure = !e.is_connection_failure();
                    return Err(e);
                }
            }
        }
        Ok(values)
    });
    match grouped {
        Ok(values) => values.into_iter().map(Ok).collect(),
        Err(_) if own_failure && no_transaction_open(conn) => {
            steps.iter().map(|step| step(conn)).collect()
        }
        Err(e) => steps.iter().map(|_| Err(e.for_each_of_a_group())).collect(),
    }
}

/// Whether the connection is back outside any transaction, healthy (after a rollback).
fn no_transaction_open(conn: &mut DbConnection) -> bool {
    type Manager = <DbConnection as Connection>::TransactionManager;
    matches!(
        Manager::transaction_manager_status_mut(conn).transaction_depth(),
        Ok(None)
    )
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
    use std::sync::{Arc, Mutex};
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
            std::thread::spawn(move || lead(leader, run));
        }
        answer
    }

    /// The leaders left once the last answers are out (a leader answers before it leaves).
    fn leaders_once_idle(group: &GroupCommit) -> usize {
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while group.leaders() > 0 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        group.leaders()
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
            leaders_once_idle(&group),
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
        assert_eq!(leaders_once_idle(&group), 0);
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
    fn a_connection_failure_fails_the_whole_group_at_once_without_running_it_again() {
        let conn = connection();
        let runs = Arc::new(AtomicUsize::new(0));
        let counted = |key: &str| {
            let (runs, insert) = (runs.clone(), insert(key.to_owned(), 1));
            Box::new(move |c: &mut DbConnection| {
                runs.fetch_add(1, Ordering::SeqCst);
                insert(c)
            }) as Step
        };
        let gone: Step = Box::new(|_c: &mut DbConnection| {
            Err(StoreError::Unavailable(anyhow::anyhow!(
                "server closed the connection"
            )))
        });
        let steps = vec![counted("a"), gone, counted("c")];
        let answers = run_group(&mut conn.lock().unwrap(), &steps);
        assert!(
            answers
                .iter()
                .all(|a| a.as_ref().is_err_and(StoreError::is_connection_failure)),
            "every write hears the database failed"
        );
        assert_eq!(runs.load(Ordering::SeqCst), 1, "nothing ran again");
        assert_eq!(rows(&conn), 0, "the group was rolled back");
    }

    #[test]
    fn writes_queued_behind_an_unusable_database_fail_at_once() {
        let group = Arc::new(GroupCommit::new(1));
        let (reply, first) = oneshot::channel();
        let leader = group
            .enqueue(Waiting {
                step: insert("a".into(), 1),
                reply,
            })
            .unwrap();
        let (groups, later) = (AtomicUsize::new(0), Mutex::new(Vec::new()));
        lead(leader, |steps: &[Step]| {
            groups.fetch_add(1, Ordering::SeqCst);
            // Three more writes arrive while this group waits for a connection in vain.
            for n in 0..3 {
                let (reply, answer) = oneshot::channel();
                assert!(
                    group
                        .enqueue(Waiting {
                            step: insert(format!("b{n}"), 1),
                            reply
                        })
                        .is_none()
                );
                later.lock().unwrap().push(answer);
            }
            steps
                .iter()
                .map(|_| Err(StoreError::Unavailable(anyhow::anyhow!("no connection"))))
                .collect()
        });
        assert_eq!(
            groups.load(Ordering::SeqCst),
            1,
            "the queued writes were not run"
        );
        assert!(first.blocking_recv().unwrap().is_err());
        for answer in later.into_inner().unwrap() {
            let answer = answer.blocking_recv().unwrap();
            assert!(answer.is_err_and(|e| e.is_connection_failure()));
        }
        assert_eq!(group.leaders(), 0);
    }

    #[test]
    fn a_leader_that_never_runs_leaves_the_queue_to_another_leader() {
        let (group, conn) = (Arc::new(GroupCommit::new(2)), connection());
        let mut answers = Vec::new();
        let mut leaders = Vec::new();
        for n in 0..3 {
            let (reply, answer) = oneshot::channel();
            leaders.extend(group.enqueue(Waiting {
                step: insert(format!("k{n}"), n),
                reply,
            }));
            answers.push(answer);
        }
        assert_eq!(leaders.len(), 2, "two places, the third write waits");
        drop(leaders.remove(0));
        lead(leaders.remove(0), on(&conn));
        for (n, answer) in (0..).zip(answers) {
            assert_eq!(unbox::<i64>(answer.blocking_recv().unwrap()).unwrap(), n);
        }
        assert_eq!(group.leaders(), 0);
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
            lead(leader, |_steps: &[Step]| -> Vec<Answer> {
                panic!("the connection code panicked")
            });
        });
        assert!(crashed.join().is_err());
        assert!(
            answer.blocking_recv().is_err(),
            "the caller hears its write was dropped"
        );
        assert_eq!(group.leaders(), 0, "the place was given up");
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
        assert_eq!(group.leaders(), 0);
    }
}
