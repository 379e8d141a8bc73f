//! A bounded queue of activity entries and the task that drains it in batches. Senders wait when
//! it is full (back-pressure: nothing is dropped and memory stays bounded); on shutdown the queue
//! is closed and everything still in it is written before the process exits.

use std::time::Duration;

use domain::RepoError;
use domain::account::ActivityEntry;
use domain::ports::ActivityRepository;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use service_metrics::ActivityCounters;

/// How many entries wait at most before senders are held back.
pub const CAPACITY: usize = 4_096;
/// How many entries one transaction writes at most. Each commit rewrites the last pages of the
/// log and its index, so under load fewer, fuller commits cost less per entry (1,024 spent about
/// a fifth less of SQLite's writer time per entry than 256).
pub const BATCH: usize = 1_024;
/// A batch the database refuses this many times is given up (and logged with its size).
const ATTEMPTS: u32 = 4;
/// How long the writer lets entries gather after the first one of a round. Under load this turns
/// many one-entry transactions into a few full ones; when idle an entry lands within it.
pub const LINGER: Duration = Duration::from_millis(25);

/// The sending side, cloned into every worker.
#[derive(Debug, Clone)]
pub struct ActivityQueue {
    tx: mpsc::Sender<ActivityEntry>,
    lost: prometheus::IntCounter,
}

impl ActivityQueue {
    /// Queues an entry, waiting while the queue is full.
    pub async fn push(&self, entry: ActivityEntry) {
        if self.tx.send(entry).await.is_err() {
            // Only after shutdown began: the writer has closed the queue.
            tracing::warn!("activity queue closed; entry not recorded");
            self.lost.inc();
        }
    }

    /// Entries waiting to be written (for metrics).
    #[must_use]
    pub fn depth(&self) -> usize {
        self.tx.max_capacity() - self.tx.capacity()
    }
}

/// The draining task.
#[derive(Debug)]
pub struct ActivityWriter {
    handle: JoinHandle<u64>,
    stop: tokio::sync::oneshot::Sender<()>,
}

impl ActivityWriter {
    /// Starts the writer on the current tokio runtime; `counters` count what it writes and loses.
    pub fn spawn<R: ActivityRepository + 'static>(
        repo: R,
        counters: ActivityCounters,
    ) -> (ActivityQueue, Self) {
        let (tx, rx) = mpsc::channel(CAPACITY);
        let (stop, stopped) = tokio::sync::oneshot::channel();
        let lost = counters.lost.clone();
        let handle = tokio::spawn(drain(repo, rx, stopped, counters));
        (ActivityQueue { tx, lost }, Self { handle, stop })
    }

    /// Closes the queue, writes what is left and returns how many entries were written in all.
    pub async fn shutdown(self) -> u64 {
        let _ = self.stop.send(());
        self.handle.await.unwrap_or(0)
    }
}

async fn drain<R: ActivityRepository>(
    repo: R,
    mut rx: mpsc::Receiver<ActivityEntry>,
    mut stopped: tokio::sync::oneshot::Receiver<()>,
    counters: ActivityCounters,
) -> u64 {
    let mut written = 0;
    let mut batch = Vec::with_capacity(BATCH);
    let mut stopping = false;
    loop {
        // Wait for the first entry of a round (or for shutdown).
        let received = if stopping {
            rx.recv_many(&mut batch, BATCH).await
        } else {
            tokio::select! {
                n = rx.recv_many(&mut batch, BATCH) => n,
                _ = &mut stopped => {
                    // No new entries from here on; the buffered ones are still delivered.
                    stopping = true;
                    rx.close();
                    rx.recv_many(&mut batch, BATCH).await
                }
            }
        };
        if received == 0 {
            break;
        }
        // Let the round fill up. While the writer sleeps, queuing an entry wakes nobody, so a
        // busy service pays one wake-up and a few full batches per round, not one per request.
        if !stopping && batch.len() < BATCH {
            tokio::select! {
                () = tokio::time::sleep(LINGER) => {}
                _ = &mut stopped => {
                    stopping = true;
                    rx.close();
                }
            }
        }
        // Write everything queued now, a full batch at a time.
        loop {
            while batch.len() < BATCH {
                match rx.try_recv() {
                    Ok(entry) => batch.push(entry),
                    Err(_) => break,
                }
            }
            let full = batch.len() == BATCH;
            let stored = write(&repo, &batch, &counters.lost).await;
            counters.written.inc_by(stored);
            written += stored;
            batch.clear();
            if !full {
                break;
            }
        }
    }
    written
}

/// Writes a batch and returns how many entries were stored (the repository skips those of an
/// account deleted while they were queued: they would have been deleted with it).
///
/// While the database is unavailable the batch is retried with back-off, then given up whole:
/// splitting it would not help. A batch the database refuses for another reason is split in
/// halves and each half written again, down to single entries, so only an entry refused on its
/// own is lost, not the up to 1,024 queued with it. Each write is one transaction, so a refused
/// part leaves nothing behind to be written twice.
async fn write<R: ActivityRepository>(
    repo: &R,
    batch: &[ActivityEntry],
    lost: &prometheus::IntCounter,
) -> u64 {
    let mut stored = 0;
    let mut refused = 0;
    // Parts still to write, the next one last (so entries keep their order).
    let mut pending = vec![batch];
    while let Some(part) = pending.pop() {
        match write_retrying(repo, part).await {
            Ok(n) => stored += n as u64,
            Err(Failure::Refused(_)) if part.len() > 1 => {
                let (first, second) = part.split_at(part.len() / 2);
                pending.push(second);
                pending.push(first);
            }
            Err(Failure::Refused(e)) => {
                refused += 1;
                tracing::error!(error = %format!("{e:#}"), "activity entry refused; lost");
            }
            Err(Failure::Unavailable(e)) => {
                tracing::error!(error = %format!("{e:#}"), entries = part.len(), "activity batch lost: the database stayed unavailable");
                lost.inc_by(part.len() as u64);
            }
        }
    }
    lost.inc_by(refused);
    stored
}

/// Why a part of a batch was not written.
enum Failure {
    /// Still unavailable after every attempt.
    Unavailable(anyhow::Error),
    /// Refused by the database: something in the entries themselves.
    Refused(anyhow::Error),
}

/// One part of a batch, retried while the database is unavailable.
async fn write_retrying<R: ActivityRepository>(
    repo: &R,
    part: &[ActivityEntry],
) -> Result<usize, Failure> {
    let mut delay = Duration::from_millis(50);
    let mut attempt = 1;
    loop {
        match repo.record(part).await {
            Ok(stored) => return Ok(stored),
            // A full disk, like an unreachable database, is no fault of these entries: splitting
            // the batch would only send more writes that cannot fit.
            Err(RepoError::Unavailable(e) | RepoError::StorageFull(e)) if attempt < ATTEMPTS => {
                tracing::warn!(error = %format!("{e:#}"), attempt, entries = part.len(), "activity batch not written; retrying");
                tokio::time::sleep(delay).await;
                delay *= 4;
                attempt += 1;
            }
            Err(RepoError::Unavailable(e) | RepoError::StorageFull(e)) => {
                return Err(Failure::Unavailable(e));
            }
            Err(e) => return Err(Failure::Refused(e.into())),
        }
    }
}

#[cfg(test)]
mod tests {
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

    #[tokio::test]
    async fn everything_queued_is_written_in_batches_by_shutdown() {
        let seen = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&seen);
        let mut repo = MockActivityRepository::new();
        repo.expect_record().returning(move |batch| {
            assert!(batch.len() <= BATCH);
            counter.fetch_add(batch.len(), Ordering::SeqCst);
            Ok(batch.len())
        });
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
        assert_eq!(seen.load(Ordering::SeqCst), 8_000);
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
        let batches = Arc::new(std::sync::Mutex::new(Vec::new()));
        let b = Arc::clone(&batches);
        let mut repo = MockActivityRepository::new();
        repo.expect_record().returning(move |batch| {
            b.lock().unwrap().push(batch.len());
            Ok(batch.len())
        });
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

    #[tokio::test]
    async fn a_failing_batch_is_retried() {
        let calls = Arc::new(AtomicUsize::new(0));
        let c = Arc::clone(&calls);
        let mut repo = MockActivityRepository::new();
        repo.expect_record().returning(move |batch| {
            if c.fetch_add(1, Ordering::SeqCst) == 0 {
                Err(RepoError::Unavailable(anyhow::anyhow!(
                    "database restarting"
                )))
            } else {
                Ok(batch.len())
            }
        });
        let (queue, writer) = ActivityWriter::spawn(repo, counters());
        queue.push(entry(1)).await;
        assert_eq!(writer.shutdown().await, 1);
        assert_eq!(calls.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn written_and_lost_entries_are_counted() {
        let mut repo = MockActivityRepository::new();
        repo.expect_record().returning(|batch| {
            if batch.iter().any(|e| e.action == "test.bad") {
                Err(RepoError::Unexpected(anyhow::anyhow!("corrupt row")))
            } else {
                Ok(batch.len())
            }
        });
        let counters = counters();
        let (queue, writer) = ActivityWriter::spawn(repo, counters.clone());
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
        let calls = writes_while_always(|| {
            RepoError::StorageFull(anyhow::anyhow!("database or disk is full"))
        })
        .await;
        // Split into single entries it would have made 19 writes that cannot fit either.
        assert_eq!(calls, ATTEMPTS as usize);
    }
}
