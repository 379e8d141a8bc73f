//! The queue and its writer against the domain's mocked `ActivityRepository`: what is written,
//! in how many commits, what is retried, split or given up, and when a waiting sender hears back.

use super::*;
use domain::ids::{ActivityId, UserId};
use domain::ports::MockActivityRepository;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

fn counters() -> ActivityCounters {
    service_metrics::Metrics::new(1, CAPACITY)
        .unwrap()
        .activity_counters()
}

fn entry(n: usize) -> ActivityEntry {
    ActivityEntry {
        id: ActivityId::new(),
        user_id: None,
        at: time::OffsetDateTime::UNIX_EPOCH,
        action: format!("test.{n}"),
        method: "GET".into(),
        path: "/".into(),
        status: 200,
        source: None,
        duration_ms: 1,
        request_id: n.to_string(),
        ip: None,
        user_agent: None,
    }
}

/// A repository that stores every batch, and the size of each batch it stored.
fn recording_sizes() -> (Arc<std::sync::Mutex<Vec<usize>>>, MockActivityRepository) {
    let batches = Arc::new(std::sync::Mutex::new(Vec::new()));
    let b = Arc::clone(&batches);
    let mut repo = MockActivityRepository::new();
    repo.expect_record().returning(move |batch| {
        b.lock().unwrap().push(batch.len());
        Ok(batch.len())
    });
    (batches, repo)
}

/// A repository that refuses any batch holding an entry named `test.bad`, as a database
/// refuses a row it cannot take.
fn refusing_bad() -> MockActivityRepository {
    let mut repo = MockActivityRepository::new();
    repo.expect_record().returning(|batch| {
        if batch.iter().any(|e| e.action == "test.bad") {
            Err(RepoError::Unexpected(anyhow::anyhow!("corrupt row")))
        } else {
            Ok(batch.len())
        }
    });
    repo
}

#[tokio::test]
async fn everything_queued_is_written_in_batches_by_shutdown() {
    let (batches, repo) = recording_sizes();
    let (queue, writer) = ActivityWriter::spawn(repo, counters());
    let senders: Vec<_> = (0..8)
        .map(|t| {
            let q = queue.clone();
            tokio::spawn(async move {
                for n in 0..1_000 {
                    q.push(entry(t * 1_000 + n)).await;
                }
            })
        })
        .collect();
    for s in senders {
        s.await.unwrap();
    }
    assert_eq!(writer.shutdown().await, 8_000);
    let batches = batches.lock().unwrap().clone();
    assert!(batches.iter().all(|n| *n <= BATCH), "{batches:?}");
    assert_eq!(batches.iter().sum::<usize>(), 8_000);
}

#[tokio::test]
async fn entries_the_repository_skips_are_neither_written_nor_lost() {
    let gone = UserId::new();
    let mut repo = MockActivityRepository::new();
    // As the database does for an account deleted while its entries were queued.
    repo.expect_record()
        .returning(move |batch| Ok(batch.iter().filter(|e| e.user_id != Some(gone)).count()));
    let counters = counters();
    let (queue, writer) = ActivityWriter::spawn(repo, counters.clone());
    for n in 0..10 {
        let mut e = entry(n);
        if n % 3 == 0 {
            e.user_id = Some(gone);
        }
        queue.push(e).await;
    }
    assert_eq!(writer.shutdown().await, 6);
    assert_eq!((counters.written.get(), counters.lost.get()), (6, 0));
}

#[tokio::test]
async fn entries_arriving_within_the_linger_share_one_write() {
    let (batches, repo) = recording_sizes();
    let (queue, writer) = ActivityWriter::spawn(repo, counters());
    queue.push(entry(0)).await;
    // The writer takes the first entry and waits for more.
    tokio::time::sleep(LINGER / 5).await;
    for n in 1..10 {
        queue.push(entry(n)).await;
    }
    tokio::time::sleep(LINGER * 3).await;
    assert_eq!(*batches.lock().unwrap(), [10]);
    assert_eq!(writer.shutdown().await, 10);
}

/// A repository that is unavailable for its first `writes` writes, then stores every batch,
/// and how many writes it was sent.
fn down_for(writes: usize) -> (Arc<AtomicUsize>, MockActivityRepository) {
    let calls = Arc::new(AtomicUsize::new(0));
    let c = Arc::clone(&calls);
    let mut repo = MockActivityRepository::new();
    repo.expect_record().returning(move |batch| {
        if c.fetch_add(1, Ordering::SeqCst) < writes {
            Err(RepoError::Unavailable(anyhow::anyhow!(
                "database restarting"
            )))
        } else {
            Ok(batch.len())
        }
    });
    (calls, repo)
}

#[tokio::test]
async fn a_failing_batch_is_retried() {
    let (calls, repo) = down_for(1);
    let (queue, writer) = ActivityWriter::spawn(repo, counters());
    queue.push(entry(1)).await;
    assert_eq!(writer.shutdown().await, 1);
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn written_and_lost_entries_are_counted() {
    let counters = counters();
    let (queue, writer) = ActivityWriter::spawn(refusing_bad(), counters.clone());
    for n in 0..3 {
        queue.push(entry(n)).await;
    }
    // Let the first round go out alone, then poison the next one.
    tokio::time::sleep(LINGER * 3).await;
    let mut bad = entry(9);
    bad.action = "test.bad".into();
    queue.push(bad).await;
    queue.push(entry(10)).await;
    // The refused round is split: entry 10 is written on its own, only the bad one is lost.
    assert_eq!(writer.shutdown().await, 4);
    assert_eq!((counters.written.get(), counters.lost.get()), (4, 1));
    // After shutdown the queue is closed: an entry still pushed is lost, and counted.
    queue.push(entry(11)).await;
    assert_eq!(counters.lost.get(), 2);
}

#[tokio::test]
async fn a_refused_batch_loses_only_the_entries_refused_on_their_own() {
    let stored = Arc::new(std::sync::Mutex::new(Vec::new()));
    let calls = Arc::new(AtomicUsize::new(0));
    let (s, c) = (Arc::clone(&stored), Arc::clone(&calls));
    let mut repo = MockActivityRepository::new();
    repo.expect_record().returning(move |batch| {
        c.fetch_add(1, Ordering::SeqCst);
        if batch.iter().any(|e| e.action == "test.bad") {
            return Err(RepoError::Unexpected(anyhow::anyhow!("refused")));
        }
        s.lock()
            .unwrap()
            .extend(batch.iter().map(|e| e.request_id.clone()));
        Ok(batch.len())
    });
    let counters = counters();
    let (queue, writer) = ActivityWriter::spawn(repo, counters.clone());
    // One round of 100 entries, two of them refused by the database.
    for n in 0..100 {
        let mut e = entry(n);
        if n == 17 || n == 80 {
            e.action = "test.bad".into();
        }
        queue.push(e).await;
    }
    assert_eq!(writer.shutdown().await, 98);
    assert_eq!((counters.written.get(), counters.lost.get()), (98, 2));
    // The others are written once each, in their order.
    let expected: Vec<String> = (0..100)
        .filter(|n| *n != 17 && *n != 80)
        .map(|n| n.to_string())
        .collect();
    assert_eq!(*stored.lock().unwrap(), expected);
    // Halving finds each of two bad entries among 100 in a few more writes, not 100.
    assert!(calls.load(Ordering::SeqCst) <= 30, "{calls:?}");
}

/// Ten entries against a repository that always fails with `error`: how many writes it
/// was sent, after the writer's counters show all ten lost and none written.
async fn writes_while_always(error: fn() -> RepoError) -> usize {
    let calls = Arc::new(AtomicUsize::new(0));
    let c = Arc::clone(&calls);
    let mut repo = MockActivityRepository::new();
    repo.expect_record().returning(move |_| {
        c.fetch_add(1, Ordering::SeqCst);
        Err(error())
    });
    let counters = counters();
    let (queue, writer) = ActivityWriter::spawn(repo, counters.clone());
    for n in 0..10 {
        queue.push(entry(n)).await;
    }
    assert_eq!(writer.shutdown().await, 0);
    assert_eq!((counters.written.get(), counters.lost.get()), (0, 10));
    calls.load(Ordering::SeqCst)
}

#[tokio::test]
async fn a_batch_is_given_up_whole_while_the_database_stays_unavailable() {
    let calls =
        writes_while_always(|| RepoError::Unavailable(anyhow::anyhow!("database down"))).await;
    // Retried, not split: splitting cannot help a database that does not answer.
    assert_eq!(calls, ATTEMPTS as usize);
}

#[tokio::test]
async fn a_full_disk_is_retried_with_back_off_and_never_splits_the_batch() {
    let calls =
        writes_while_always(|| RepoError::StorageFull(anyhow::anyhow!("database or disk is full")))
            .await;
    // Split into single entries it would have made 19 writes that cannot fit either.
    assert_eq!(calls, ATTEMPTS as usize);
}

#[tokio::test(start_paused = true)]
async fn a_change_is_not_held_for_long_by_a_full_disk_but_is_by_a_database_coming_back() {
    let full = || RepoError::StorageFull(anyhow::anyhow!("database or disk is full"));
    let mut repo = MockActivityRepository::new();
    repo.expect_record().returning(move |_| Err(full()));
    let (queue, writer) = ActivityWriter::spawn(repo, counters());
    let started = tokio::time::Instant::now();
    assert!(
        !queue.push_durable(entry(0)).await,
        "nothing fits on a full disk"
    );
    // Four attempts with back-off, not the 30 s patience: the answer waits about two seconds.
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    writer.shutdown().await;

    let mut repo = MockActivityRepository::new();
    repo.expect_record()
        .returning(|_| Err(RepoError::Unavailable(anyhow::anyhow!("down"))));
    let (queue, writer) = ActivityWriter::spawn(repo, counters());
    let started = tokio::time::Instant::now();
    assert!(!queue.push_durable(entry(1)).await);
    assert!(started.elapsed() >= PATIENCE, "{:?}", started.elapsed());
    writer.shutdown().await;
}

#[tokio::test]
async fn a_durable_entry_is_acknowledged_after_its_commit_without_the_linger() {
    let (batches, repo) = recording_sizes();
    let (queue, writer) = ActivityWriter::spawn(repo, counters());
    // A read's entry starts a round; the writer lingers for more.
    queue.push(entry(0)).await;
    tokio::time::sleep(LINGER / 5).await;
    let started = tokio::time::Instant::now();
    assert!(queue.push_durable(entry(1)).await);
    // Both were committed by the time the waiter heard back, well before the linger ended.
    assert_eq!(batches.lock().unwrap().iter().sum::<usize>(), 2);
    assert!(started.elapsed() < LINGER / 2, "{:?}", started.elapsed());
    assert_eq!(writer.shutdown().await, 2);
}

#[tokio::test]
async fn waiters_queued_during_a_commit_share_the_next_one() {
    let (batches, repo) = recording_sizes();
    let (queue, writer) = ActivityWriter::spawn(repo, counters());
    let waiters: Vec<_> = (0..50)
        .map(|n| {
            let q = queue.clone();
            tokio::spawn(async move { q.push_durable(entry(n)).await })
        })
        .collect();
    for w in waiters {
        assert!(w.await.unwrap());
    }
    let batches = batches.lock().unwrap().clone();
    assert_eq!(batches.iter().sum::<usize>(), 50);
    // Group commit: far fewer commits than waiters.
    assert!(batches.len() < 10, "{batches:?}");
    assert_eq!(writer.shutdown().await, 50);
}

#[tokio::test]
async fn a_durable_entry_outlasts_an_outage_longer_than_a_reads_retries() {
    // Down for six attempts (about 3 s of back-off): a read's entry would be given up.
    let (calls, repo) = down_for(6);
    let counters = counters();
    let (queue, writer) = ActivityWriter::spawn(repo, counters.clone());
    assert!(queue.push_durable(entry(0)).await);
    assert_eq!(calls.load(Ordering::SeqCst), 7);
    assert_eq!(writer.shutdown().await, 1);
    assert_eq!((counters.lost.get(), counters.unrecorded.get()), (0, 0));
}

#[tokio::test]
async fn a_durable_entry_that_cannot_be_written_is_reported_not_stored() {
    let counters = counters();
    let (queue, writer) = ActivityWriter::spawn(refusing_bad(), counters.clone());
    let mut bad = entry(1);
    bad.action = "test.bad".into();
    let (good, bad) = tokio::join!(queue.push_durable(entry(0)), queue.push_durable(bad));
    // Only the refused one is reported lost; the one beside it in the batch was stored.
    assert_eq!((good, bad), (true, false));
    assert_eq!(writer.shutdown().await, 1);
    assert_eq!(counters.lost.get(), 1);
    // After shutdown nothing can be stored: the waiter hears so at once.
    assert!(!queue.push_durable(entry(2)).await);
    assert_eq!(counters.lost.get(), 2);
    assert_eq!(counters.unrecorded.get(), 2);
}

/// Opens the gate of [`stuck_until`] when dropped, so a failed assertion ends the test rather
/// than leaving the writer's thread stuck (the runtime waits for its threads).
struct Gate(Arc<std::sync::atomic::AtomicBool>);

impl Drop for Gate {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// A repository whose writes hold their thread until `open` (as a database stuck on a lock
/// would), counting the entries of each write it was sent.
fn stuck_until(
    open: &Gate,
    entered: &Arc<std::sync::atomic::AtomicBool>,
) -> (Arc<std::sync::Mutex<Vec<usize>>>, MockActivityRepository) {
    let batches = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (b, open, entered) = (
        Arc::clone(&batches),
        Arc::clone(&open.0),
        Arc::clone(entered),
    );
    let mut repo = MockActivityRepository::new();
    repo.expect_record().returning(move |batch| {
        entered.store(true, Ordering::SeqCst);
        while !open.load(Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        b.lock().unwrap().push(batch.len());
        Ok(batch.len())
    });
    (batches, repo)
}

// The writer runs on a runtime of its own, whose one thread the stuck write holds: a thread
// stuck in a write drives no timers, and the test's own must keep running meanwhile.
#[test]
fn a_full_queue_holds_senders_back_and_drops_nothing() {
    let writers = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (open, entered) = (Gate(Arc::default()), Arc::default());
    let (batches, repo) = stuck_until(&open, &entered);
    let counters = counters();
    let (queue, writer) = {
        let _writers = writers.enter();
        ActivityWriter::spawn(repo, counters.clone())
    };
    let test = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    test.block_on(async move {
        queue.push(entry(0)).await;
        while !entered.load(Ordering::SeqCst) {
            tokio::time::sleep(LINGER).await;
        }
        // The writer is stuck on entry 0: the queue takes CAPACITY more without waiting...
        let filling = tokio::time::timeout(std::time::Duration::from_secs(5), async {
            for n in 1..=CAPACITY {
                queue.push(entry(n)).await;
            }
        });
        assert!(
            filling.await.is_ok(),
            "a sender waited before the queue was full"
        );
        assert_eq!(queue.depth(), CAPACITY);
        // ...and then holds the next sender back rather than dropping its entry or growing.
        let q = queue.clone();
        let held = tokio::spawn(async move { q.push(entry(CAPACITY + 1)).await });
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        assert!(!held.is_finished(), "a sender went through a full queue");
        assert_eq!(queue.depth(), CAPACITY);
        assert_eq!(counters.lost.get(), 0);
        // Once the database moves again the held sender goes through, and every entry is
        // written.
        drop(open);
        held.await.unwrap();
        assert_eq!(writer.shutdown().await, CAPACITY as u64 + 2);
        assert_eq!(
            (counters.written.get(), counters.lost.get()),
            (CAPACITY as u64 + 2, 0)
        );
    });
    // The backlog went out in full batches, not one commit per entry.
    let batches = batches.lock().unwrap().clone();
    assert!(batches.iter().all(|n| *n <= BATCH), "{batches:?}");
    assert_eq!(batches.iter().sum::<usize>(), CAPACITY + 2);
    assert!(
        batches.iter().filter(|n| **n > 0).count() <= 6,
        "{batches:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_durable_entry_is_retried_for_the_whole_patience_then_reported_not_stored() {
    let calls = Arc::new(AtomicUsize::new(0));
    let c = Arc::clone(&calls);
    let mut repo = MockActivityRepository::new();
    repo.expect_record().returning(move |_| {
        c.fetch_add(1, Ordering::SeqCst);
        Err(RepoError::Unavailable(anyhow::anyhow!("database down")))
    });
    let counters = counters();
    let (queue, writer) = ActivityWriter::spawn(repo, counters.clone());
    // Time is paused: the runtime skips ahead through the writer's back-off.
    let started = tokio::time::Instant::now();
    assert!(!queue.push_durable(entry(0)).await);
    let waited = started.elapsed();
    // Held for the whole patience, then told at once: at most one more pause than that.
    assert!(waited >= PATIENCE, "{waited:?}");
    assert!(waited <= PATIENCE + MAX_DELAY, "{waited:?}");
    // Far more attempts than a read's entry gets, and never split.
    assert!(
        calls.load(Ordering::SeqCst) > 2 * ATTEMPTS as usize,
        "{calls:?}"
    );
    assert_eq!(
        (
            counters.written.get(),
            counters.lost.get(),
            counters.unrecorded.get()
        ),
        (0, 1, 1)
    );
    assert_eq!(writer.shutdown().await, 0);
}

#[tokio::test]
async fn a_round_of_exactly_one_full_batch_makes_one_commit_and_no_empty_one() {
    let (batches, repo) = recording_sizes();
    let (queue, writer) = ActivityWriter::spawn(repo, counters());
    // On this one-thread runtime the writer first runs at the first await below, so it finds
    // exactly one full batch queued.
    for n in 0..BATCH {
        queue.push(entry(n)).await;
    }
    tokio::time::sleep(LINGER * 4).await;
    assert_eq!(writer.shutdown().await, BATCH as u64);
    assert_eq!(*batches.lock().unwrap(), vec![BATCH]);
}
