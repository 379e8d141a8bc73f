//! A queue served by leaders, shared by group commit (`group_commit.rs`) and grouped reads
//! (`read_group.rs`): a caller queues its work and, while fewer than the most allowed leaders
//! run, becomes one; a leader takes what is queued a group at a time until nothing is left.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

struct Queue<W> {
    waiting: VecDeque<W>,
    /// Leaders running (or about to run). Below the most allowed, a new caller starts one.
    leaders: usize,
}

/// The queue of one kind of work (the writes of a `Database`, the reads of a profile by user).
pub(crate) struct LeaderQueue<W> {
    queue: Mutex<Queue<W>>,
    max_leaders: usize,
}

impl<W> std::fmt::Debug for LeaderQueue<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LeaderQueue")
            .field("max_leaders", &self.max_leaders)
            .finish_non_exhaustive()
    }
}

impl<W> LeaderQueue<W> {
    /// `max_leaders` groups may be served at once (always at least one).
    pub(crate) fn new(max_leaders: usize) -> Self {
        Self {
            queue: Mutex::new(Queue {
                waiting: VecDeque::new(),
                leaders: 0,
            }),
            max_leaders: max_leaders.max(1),
        }
    }

    /// Queues `work`. Returns a [`Leader`] to run on the blocking pool when there was room for
    /// one more; otherwise a running leader will take the work.
    pub(crate) fn enqueue(self: &Arc<Self>, work: W) -> Option<Leader<W>> {
        let mut queue = self.lock();
        queue.waiting.push_back(work);
        (queue.leaders < self.max_leaders).then(|| {
            queue.leaders += 1;
            Leader {
                queue: Arc::clone(self),
                done: false,
            }
        })
    }

    /// The leaders running now.
    #[cfg(test)]
    pub(crate) fn leaders(&self) -> usize {
        self.lock().leaders
    }

    fn lock(&self) -> MutexGuard<'_, Queue<W>> {
        // The queue is consistent at every unlock, so a panic elsewhere spoils nothing.
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The right to serve groups; it ends when the queue is empty.
pub(crate) struct Leader<W> {
    queue: Arc<LeaderQueue<W>>,
    done: bool,
}

impl<W> Leader<W> {
    /// The next group, at most `max` long, oldest first; `None` when nothing is waiting, and the
    /// leader has then left (a caller queuing after that starts a new one).
    pub(crate) fn next_group(&mut self, max: usize) -> Option<Vec<W>> {
        let mut queue = self.queue.lock();
        if queue.waiting.is_empty() {
            queue.leaders -= 1;
            self.done = true;
            return None;
        }
        let size = queue.waiting.len().min(max);
        Some(queue.waiting.drain(..size).collect())
    }

    /// Everything still queued, taken out (to be failed at once when the database is lost).
    pub(crate) fn take_all(&self) -> Vec<W> {
        self.queue.lock().waiting.drain(..).collect()
    }
}

impl<W> Drop for Leader<W> {
    /// A leader that panicked, or never ran because the runtime was shutting down, gives up its
    /// place; if no other leader is left to take them, the work still queued is dropped, so its
    /// callers get an error (their answer channel closes), not a hang.
    fn drop(&mut self) {
        if !self.done {
            let mut queue = self.queue.lock();
            queue.leaders -= 1;
            if queue.leaders == 0 {
                queue.waiting.clear();
            }
        }
    }
}
