//! A bounded queue of activity entries and the task that drains it in batches. Senders wait when
//! it is full (back-pressure: nothing is dropped and memory stays bounded); on shutdown the queue
//! is closed and everything still in it is written before the process exits.
//!
//! Two ways in: `push` (reads: the answer goes out at once, the entry follows within a linger
//! and a commit) and `push_durable` (state changes: the caller waits until the batch holding its
//! entry has committed, so a crash cannot lose the row of a change that was answered). Waiting
//! entries cut the linger short and share the writer's next commit: a group commit.

use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use domain::RepoError;
use domain::account::ActivityEntry;
use domain::ports::ActivityRepository;
use tokio::sync::{Notify, mpsc, oneshot};
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
/// How long a batch that answers wait for is retried while the database is unavailable: the
/// changes it records are committed, and holding their answers until the database is back (a
/// PostgreSQL crash recovers in seconds) beats answering without a row. Not on a full disk,
/// which frees no space by itself: there such a batch is given up after [`ATTEMPTS`] (about
/// two seconds), and its changes are answered, logged and counted as unrecorded.
pub const PATIENCE: Duration = Duration::from_secs(30);
/// The longest pause between two attempts.
const MAX_DELAY: Duration = Duration::from_secs(1);
/// How long the writer lets entries gather after the first one of a round. Under load this turns
/// many one-entry transactions into a few full ones; when idle an entry lands within it.
pub const LINGER: Duration = Duration::from_millis(25);

/// An entry on its way to the writer, with the acknowledgement its sender waits for (if any):
/// `true` once the entry is committed (or skipped, its person deleted), `false` if it was lost.
#[derive(Debug)]
struct Queued {
    entry: ActivityEntry,
    ack: Option<oneshot::Sender<bool>>,
}

/// The sending side, cloned into every worker.
#[derive(Debug, Clone)]
pub struct ActivityQueue {
    tx: mpsc::Sender<Queued>,
    /// Wakes the writer out of its linger when an entry is waited for.
    urgent: Arc<Notify>,
    counters: ActivityCounters,
}

impl ActivityQueue {
    /// Queues an entry, waiting while the queue is full.
    pub async fn push(&self, entry: ActivityEntry) {
        if self.send(entry, None).await.is_err() {
            self.counters.lost.inc();
        }
    }

    /// Queues the entry of a state change and waits until the batch holding it has committed.
    /// Returns whether it was stored: `false` when the database refused it or stayed unavailable
    /// through every retry (the writer counted it lost), or when shutdown had already closed the
    /// queue. Such a change is still answered as it went: it committed before its entry was
    /// queued, and an error now would invite a client to retry a change that was made. The gap
    /// is logged with the request id and counted (`activity_changes_unrecorded_total`).
    pub async fn push_durable(&self, entry: ActivityEntry) -> bool {
        let (request_id, action) = (entry.request_id.clone(), entry.action.clone());
        let (ack, acked) = oneshot::channel();
        let stored = if self.send(entry, Some(ack)).await.is_ok() {
            self.urgent.notify_one();
            // A dropped sender (the writer gone mid-batch) counts as not stored.
            acked.await.unwrap_or(false)
        } else {
            self.counters.lost.inc();
            false
        };
        if !stored {
            tracing::error!(%request_id, %action, "state change answered without its activity entry");
            self.counters.unrecorded.inc();
        }
        stored
    }

    async fn send(
        &self,
        entry: ActivityEntry,
        ack: Option<oneshot::Sender<bool>>,
    ) -> Result<(), ()> {
        self.tx.send(Queued { entry, ack }).await.map_err(|_| {
            // Only after shutdown began: the writer has closed the queue.
            tracing::warn!("activity queue closed; entry not recorded");
        })
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
    stop: oneshot::Sender<()>,
}

impl ActivityWriter {
    /// Starts the writer on the current tokio runtime; `counters` count what it writes and loses.
    pub fn spawn<R: ActivityRepository + 'static>(
        repo: R,
        counters: ActivityCounters,
    ) -> (ActivityQueue, Self) {
        let (tx, rx) = mpsc::channel(CAPACITY);
        let (stop, stopped) = oneshot::channel();
        let urgent = Arc::new(Notify::new());
        let handle = tokio::spawn(drain(
            repo,
            rx,
            stopped,
            Arc::clone(&urgent),
            counters.clone(),
        ));
        (
            ActivityQueue {
                tx,
                urgent,
                counters,
            },
            Self { handle, stop },
        )
    }

    /// Closes the queue, writes what is left and returns how many entries were written in all.
    pub async fn shutdown(self) -> u64 {
        let _ = self.stop.send(());
        self.handle.await.unwrap_or(0)
    }
}

async fn drain<R: ActivityRepository>(
    repo: R,
    mut rx: mpsc::Receiver<Queued>,
    mut stopped: oneshot::Receiver<()>,
    urgent: Arc<Notify>,
    counters: ActivityCounters,
) -> u64 {
    let mut written = 0;
    let mut incoming = Vec::with_capacity(BATCH);
    let mut batch = Batch::default();
    let mut stopping = false;
    loop {
        // Wait for the first entry of a round (or for shutdown).
        let received = if stopping {
            rx.recv_many(&mut incoming, BATCH).await
        } else {
            tokio::select! {
                n = rx.recv_many(&mut incoming, BATCH) => n,
                _ = &mut stopped => {
                    // No new entries from here on; the buffered ones are still delivered.
                    stopping = true;
                    rx.close();
                    rx.recv_many(&mut incoming, BATCH).await
                }
            }
        };
        if received == 0 {
            break;
        }
        batch.extend(incoming.drain(..));
        // Let the round fill up. While the writer sleeps, queuing an entry wakes nobody, so a
        // busy service pays one wake-up and a few full batches per round, not one per request.
        // An entry someone waits for ends the linger: its answer is held until the commit, and
        // the entries queued during that commit make the next one.
        if !stopping && batch.len() < BATCH && !batch.awaited() {
            tokio::select! {
                () = tokio::time::sleep(LINGER) => {}
                () = urgent.notified() => {}
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
                    Ok(queued) => batch.push(queued),
                    Err(_) => break,
                }
            }
            // A full batch just written may have been the last of the round: nothing to commit.
            if batch.len() == 0 {
                break;
            }
            let full = batch.len() == BATCH;
            let patient = batch.awaited();
            let (stored, lost) = write(&repo, &batch.entries, patient, &counters).await;
            counters.written.inc_by(stored);
            written += stored;
            batch.acknowledge(&lost);
            if !full {
                break;
            }
        }
    }
    written
}

/// One round's entries, and beside them the acknowledgements their senders wait for.
#[derive(Default)]
struct Batch {
    entries: Vec<ActivityEntry>,
    acks: Vec<Option<oneshot::Sender<bool>>>,
}

impl Batch {
    fn len(&self) -> usize {
        self.entries.len()
    }

    fn push(&mut self, queued: Queued) {
        self.entries.push(queued.entry);
        self.acks.push(queued.ack);
    }

    fn extend(&mut self, queued: impl Iterator<Item = Queued>) {
        for q in queued {
            self.push(q);
        }
    }

    /// Whether a sender waits for this batch's commit.
    fn awaited(&self) -> bool {
        self.acks.iter().any(Option::is_some)
    }

    /// Tells each waiting sender whether its entry was stored (all but the `lost` ranges), and
    /// empties the batch for the next round.
    fn acknowledge(&mut self, lost: &[Range<usize>]) {
        for (i, ack) in self.acks.drain(..).enumerate() {
            if let Some(ack) = ack {
                // The sender may have gone (its connection closed): nothing to tell then.
                let _ = ack.send(!lost.iter().any(|r| r.contains(&i)));
            }
        }
        self.entries.clear();
    }
}

/// Writes a batch and returns how many entries were stored (the repository skips those of an
/// account deleted while they were queued: they would have been deleted with it), and the
/// positions of the entries lost.
///
/// While the database is unavailable the batch is retried with back-off (for up to `PATIENCE`
/// when `patient`: someone waits for it), then given up whole: splitting it would not help. A batch the database refuses for another reason is split in
/// halves and each half written again, down to single entries, so only an entry refused on its
/// own is lost, not the up to 1,024 queued with it. Each write is one transaction, so a refused
/// part leaves nothing behind to be written twice.
async fn write<R: ActivityRepository>(
    repo: &R,
    batch: &[ActivityEntry],
    patient: bool,
    counters: &ActivityCounters,
) -> (u64, Vec<Range<usize>>) {
    let mut stored = 0;
    let mut refused = 0;
    let mut gone = Vec::new();
    // Parts still to write (positions in the batch), the next one last, so entries keep their
    // order.
    let mut pending: Vec<Range<usize>> = Vec::with_capacity(8);
    pending.push(0..batch.len());
    while let Some(part) = pending.pop() {
        match write_retrying(repo, &batch[part.clone()], patient).await {
            Ok(n) => stored += n as u64,
            Err(Failure::Refused(_)) if part.len() > 1 => {
                let middle = part.start + part.len() / 2;
                pending.push(middle..part.end);
                pending.push(part.start..middle);
            }
            Err(Failure::Refused(e)) => {
                refused += 1;
                tracing::error!(error = %format!("{e:#}"), "activity entry refused; lost");
                gone.push(part);
            }
            Err(Failure::Unavailable(e)) => {
                tracing::error!(error = %format!("{e:#}"), entries = part.len(), "activity batch lost: the database stayed unavailable");
                counters.lost.inc_by(part.len() as u64);
                gone.push(part);
            }
        }
    }
    counters.lost.inc_by(refused);
    (stored, gone)
}

/// Why a part of a batch was not written.
enum Failure {
    /// Still unavailable after every attempt.
    Unavailable(anyhow::Error),
    /// Refused by the database: something in the entries themselves.
    Refused(anyhow::Error),
}

/// One part of a batch, retried while the database is unavailable: `ATTEMPTS` times, or for
/// `PATIENCE` when `patient`.
async fn write_retrying<R: ActivityRepository>(
    repo: &R,
    part: &[ActivityEntry],
    patient: bool,
) -> Result<usize, Failure> {
    let started = tokio::time::Instant::now();
    let mut delay = Duration::from_millis(50);
    let mut attempt = 1;
    loop {
        let tried = attempt >= ATTEMPTS;
        // Patience is for a database that comes back by itself (a crash recovers in seconds);
        // a full disk waits for an operator, so a change's answer is not held for it.
        let again = |full: bool| !tried || (patient && !full && started.elapsed() < PATIENCE);
        match repo.record(part).await {
            Ok(stored) => return Ok(stored),
            // A full disk, like an unreachable database, is no fault of these entries: splitting
            // the batch would only send more writes that cannot fit.
            Err(RepoError::Unavailable(e)) if again(false) => {
                tracing::warn!(error = %format!("{e:#}"), attempt, entries = part.len(), "activity batch not written; retrying");
                tokio::time::sleep(delay).await;
                delay = (delay * 4).min(MAX_DELAY);
                attempt += 1;
            }
            Err(RepoError::StorageFull(e)) if again(true) => {
                tracing::warn!(error = %format!("{e:#}"), attempt, entries = part.len(), "activity batch not written; retrying");
                tokio::time::sleep(delay).await;
                delay = (delay * 4).min(MAX_DELAY);
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
#[path = "queue_tests.rs"]
mod tests;
