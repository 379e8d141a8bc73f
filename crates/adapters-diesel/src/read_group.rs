//! Grouped reads by key (`Database::read_grouped`, database.rs): a read of one row by its key
//! is queued, and a leader on the blocking pool answers what is queued with one statement for
//! all their keys (`WHERE key IN (…)`, `= ANY($1)` on PostgreSQL) — alone when it is the only
//! one.
//!
//! Why: profiled under load (`GET /discovery/profile/me`, 64 connections, PostgreSQL), a
//! one-row read cost the service about 85 µs of CPU beyond the request itself, and the query
//! was the least of it: a wait for a connection permit and its hand-over, a blocking thread
//! woken for the call, that thread asleep in the driver for the round trip, and the task woken
//! again afterwards — about two futex wakes and two eventfd wakes per read, one round trip, and
//! one statement executed by the server. Reads that arrive together now share all of that.
//!
//! What a read promises is unchanged: its statement begins after the read was queued, so it
//! sees every write committed before the caller asked; it is one statement, so it sees one
//! snapshot, as before. If the statement fails, every read of the group gets the failure,
//! sorted as a lone read's would be; when the database cannot be used at all, the reads queued
//! meanwhile get it at once instead of a group at a time.

use std::collections::HashMap;
use std::hash::Hash;

use tokio::sync::oneshot;

use crate::error::{StoreError, StoreResult};
use crate::leader_queue::{Leader, LeaderQueue};

/// At most this many reads share a statement, which bounds its parameters and its answer.
const MAX_GROUP: usize = 64;

/// What a reader receives: the row of its key (`None` when there is none), or why not.
pub(crate) type Answer<V> = StoreResult<Option<V>>;

/// A read waiting for a leader, and where its answer goes.
pub(crate) struct Waiting<K, V> {
    pub key: K,
    pub reply: oneshot::Sender<Answer<V>>,
}

/// The queue of one kind of read by key (say, a profile by its user).
pub(crate) type ReadGroup<K, V> = LeaderQueue<Waiting<K, V>>;

/// Reads `leader`'s groups until none is waiting (blocking: call it on the blocking pool).
/// `load` takes a connection and returns, in one statement, the rows of the distinct keys it is
/// given, each with its key. A function rather than a method of `Leader`, so that
/// `leader_queue.rs` knows nothing of reads.
pub(crate) fn lead<K: Clone + Eq + Hash, V: Clone>(
    mut leader: Leader<Waiting<K, V>>,
    load: impl Fn(&[K]) -> StoreResult<Vec<(K, V)>>,
) {
    while let Some(group) = leader.next_group(MAX_GROUP) {
        let mut keys: Vec<K> = Vec::with_capacity(group.len());
        for waiting in &group {
            if !keys.contains(&waiting.key) {
                keys.push(waiting.key.clone());
            }
        }
        match load(&keys) {
            Ok(rows) => {
                let rows: HashMap<K, V> = rows.into_iter().collect();
                for waiting in group {
                    // A caller that stopped waiting (its client went away) needs no answer.
                    let _ = waiting.reply.send(Ok(rows.get(&waiting.key).cloned()));
                }
            }
            Err(e) => {
                for waiting in group {
                    let _ = waiting.reply.send(Err(e.for_each_of_a_group()));
                }
                // The reads queued meanwhile would only wait for the same failure.
                if e.is_connection_failure() {
                    for waiting in leader.take_all() {
                        let _ = waiting.reply.send(Err(unavailable()));
                    }
                }
            }
        }
    }
}

/// What a caller gets when its read was dropped unanswered (see [`Leader`]'s `Drop`), or when
/// the database failed the reads before it: a 503, to be retried.
pub(crate) fn unavailable() -> StoreError {
    StoreError::Unavailable(anyhow::anyhow!(
        "the read was not run: the database could not be used"
    ))
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use super::*;

    type Group = Arc<ReadGroup<String, i64>>;

    /// The stored rows: key `k<n>` has the value `n`, for n below 1,000; other keys have none.
    fn stored(keys: &[String]) -> StoreResult<Vec<(String, i64)>> {
        Ok(keys
            .iter()
            .filter_map(|k| {
                let n: i64 = k.strip_prefix('k')?.parse().ok()?;
                (n < 1_000).then(|| (k.clone(), n))
            })
            .collect())
    }

    /// Queues a read and, when it gets to lead, runs the leader on a thread of its own (the
    /// blocking pool's stand-in) with `load`; returns the receiver of the read's answer.
    fn submit(
        group: &Group,
        key: &str,
        load: impl Fn(&[String]) -> StoreResult<Vec<(String, i64)>> + Send + 'static,
    ) -> oneshot::Receiver<Answer<i64>> {
        let (reply, answer) = oneshot::channel();
        if let Some(leader) = group.enqueue(Waiting {
            key: key.to_owned(),
            reply,
        }) {
            std::thread::spawn(move || lead(leader, load));
        }
        answer
    }

    /// The leaders left once the last answers are out (a leader answers before it leaves).
    fn leaders_once_idle(group: &Group) -> usize {
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while group.leaders() > 0 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        group.leaders()
    }

    #[test]
    fn a_read_alone_runs_by_itself_and_gets_its_row_or_none() {
        let group: Group = Arc::new(ReadGroup::new(1));
        let asked = Arc::new(Mutex::new(Vec::new()));
        for (key, want) in [("k7", Some(7)), ("nobody", None)] {
            let asked = asked.clone();
            let answer = submit(&group, key, move |keys| {
                asked.lock().unwrap().push(keys.to_vec());
                stored(keys)
            });
            assert_eq!(answer.blocking_recv().unwrap().unwrap(), want);
        }
        assert_eq!(*asked.lock().unwrap(), [["k7"], ["nobody"]]);
        assert_eq!(leaders_once_idle(&group), 0);
    }

    #[test]
    fn reads_queued_together_share_a_statement_and_each_gets_its_own_row() {
        let group: Group = Arc::new(ReadGroup::new(1));
        let (statements, running, most) = (
            Arc::new(AtomicUsize::new(0)),
            Arc::new(AtomicUsize::new(0)),
            Arc::new(AtomicUsize::new(0)),
        );
        let answers: Vec<_> = (0..300_i64)
            .map(|n| {
                // Forty keys, each read several times over; and some keys without a row.
                let key = if n % 10 == 9 {
                    format!("k{}", 1_000 + n)
                } else {
                    format!("k{}", n % 40)
                };
                let (statements, running, most) =
                    (statements.clone(), running.clone(), most.clone());
                let answer = submit(&group, &key, move |keys| {
                    statements.fetch_add(1, Ordering::SeqCst);
                    most.fetch_max(running.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                    let mut distinct = keys.to_vec();
                    distinct.sort();
                    distinct.dedup();
                    assert_eq!(distinct.len(), keys.len(), "each key once: {keys:?}");
                    assert!(keys.len() <= MAX_GROUP);
                    // Slow enough that the next reads queue up behind this statement.
                    std::thread::sleep(Duration::from_millis(2));
                    running.fetch_sub(1, Ordering::SeqCst);
                    stored(keys)
                });
                (key, answer)
            })
            .collect();
        for (key, answer) in answers {
            let want = stored(std::slice::from_ref(&key))
                .unwrap()
                .pop()
                .map(|(_, v)| v);
            assert_eq!(answer.blocking_recv().unwrap().unwrap(), want, "{key}");
        }
        let statements = statements.load(Ordering::SeqCst);
        assert!(
            statements < 300,
            "300 reads ran {statements} statements: none was shared"
        );
        assert_eq!(most.load(Ordering::SeqCst), 1, "one leader at a time");
        assert_eq!(leaders_once_idle(&group), 0);
    }

    #[test]
    fn no_more_groups_are_read_at_once_than_leaders_are_allowed() {
        let group: Group = Arc::new(ReadGroup::new(3));
        let (running, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let answers: Vec<_> = (0..120_i64)
            .map(|n| {
                let (running, most) = (running.clone(), most.clone());
                submit(&group, &format!("k{n}"), move |keys| {
                    most.fetch_max(running.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(2));
                    running.fetch_sub(1, Ordering::SeqCst);
                    stored(keys)
                })
            })
            .collect();
        for (n, answer) in (0..).zip(answers) {
            assert_eq!(answer.blocking_recv().unwrap().unwrap(), Some(n));
        }
        let most = most.load(Ordering::SeqCst);
        assert!((1..=3).contains(&most), "{most} groups read at once");
        assert_eq!(leaders_once_idle(&group), 0);
    }

    #[test]
    fn a_failed_statement_fails_each_read_of_its_group_as_it_would_fail_alone() {
        let group: Group = Arc::new(ReadGroup::new(1));
        let (reply, first) = oneshot::channel();
        let leader = group
            .enqueue(Waiting {
                key: "k1".into(),
                reply,
            })
            .unwrap();
        let (reply, second) = oneshot::channel();
        assert!(
            group
                .enqueue(Waiting {
                    key: "k2".into(),
                    reply
                })
                .is_none()
        );
        let calls = AtomicUsize::new(0);
        lead(leader, |keys: &[String]| {
            if calls.fetch_add(1, Ordering::SeqCst) == 0 {
                assert_eq!(keys, ["k1", "k2"]);
                Err(StoreError::Data(anyhow::anyhow!(
                    "a stored value the domain refuses"
                )))
            } else {
                stored(keys)
            }
        });
        for answer in [first, second] {
            let e = answer.blocking_recv().unwrap().unwrap_err();
            assert!(matches!(e, StoreError::Data(_)), "{e:?}");
        }
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert_eq!(group.leaders(), 0);
        let answer = submit(&group, "k3", stored);
        assert_eq!(
            answer.blocking_recv().unwrap().unwrap(),
            Some(3),
            "the next read runs"
        );
    }

    #[test]
    fn reads_queued_behind_an_unusable_database_fail_at_once() {
        let group: Group = Arc::new(ReadGroup::new(1));
        let (reply, first) = oneshot::channel();
        let leader = group
            .enqueue(Waiting {
                key: "k1".into(),
                reply,
            })
            .unwrap();
        let (statements, later) = (AtomicUsize::new(0), Mutex::new(Vec::new()));
        lead(leader, |_keys: &[String]| {
            statements.fetch_add(1, Ordering::SeqCst);
            // Three more reads arrive while this group waits for a connection in vain.
            for n in 0..3 {
                let (reply, answer) = oneshot::channel();
                assert!(
                    group
                        .enqueue(Waiting {
                            key: format!("k{n}"),
                            reply
                        })
                        .is_none()
                );
                later.lock().unwrap().push(answer);
            }
            Err(StoreError::Unavailable(anyhow::anyhow!("no connection")))
        });
        assert_eq!(
            statements.load(Ordering::SeqCst),
            1,
            "the queued reads were not run"
        );
        let first = first.blocking_recv().unwrap();
        assert!(first.is_err_and(|e| e.is_connection_failure()));
        for answer in later.into_inner().unwrap() {
            let answer = answer.blocking_recv().unwrap();
            assert!(answer.is_err_and(|e| e.is_connection_failure()));
        }
        assert_eq!(group.leaders(), 0);
    }

    #[test]
    fn a_leader_that_never_runs_leaves_the_queue_to_another_leader() {
        let group: Group = Arc::new(ReadGroup::new(2));
        let mut answers = Vec::new();
        let mut leaders = Vec::new();
        for n in 0..3 {
            let (reply, answer) = oneshot::channel();
            leaders.extend(group.enqueue(Waiting {
                key: format!("k{n}"),
                reply,
            }));
            answers.push(answer);
        }
        assert_eq!(leaders.len(), 2, "two places, the third read waits");
        drop(leaders.remove(0));
        lead(leaders.remove(0), stored);
        for (n, answer) in (0..).zip(answers) {
            assert_eq!(answer.blocking_recv().unwrap().unwrap(), Some(n));
        }
        assert_eq!(group.leaders(), 0);
    }

    #[test]
    fn a_leader_that_panics_fails_its_reads_and_the_next_read_gets_a_new_leader() {
        let group: Group = Arc::new(ReadGroup::new(1));
        let (reply, answer) = oneshot::channel();
        let leader = group
            .enqueue(Waiting {
                key: "k1".into(),
                reply,
            })
            .unwrap();
        let crashed = std::thread::spawn(move || {
            lead(
                leader,
                |_keys: &[String]| -> StoreResult<Vec<(String, i64)>> {
                    panic!("the connection code panicked")
                },
            );
        });
        assert!(crashed.join().is_err());
        assert!(
            answer.blocking_recv().is_err(),
            "the caller hears its read was dropped"
        );
        assert_eq!(group.leaders(), 0, "the place was given up");
        let answer = submit(&group, "k2", stored);
        assert_eq!(answer.blocking_recv().unwrap().unwrap(), Some(2));
    }
}
