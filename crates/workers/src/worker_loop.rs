//! The one loop every worker runs: a round, then a wait that its outcome chooses (none when work
//! remains, the idle wait when there was none, a longer back-off when the database failed it),
//! until told to stop. A round is never raced against the stop: the one in flight runs to its
//! end. A wake-up, when the worker has one, cuts an idle wait short (never a back-off).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;

/// What a round found, and so when the next one runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It did work and more may be waiting: the next round runs at once.
    Busy,
    /// Work remains, but requests on the same runtime go first: the next round runs after a
    /// yield.
    Yielding,
    /// Nothing was due: the next round runs after the idle wait, or when woken.
    Idle,
    /// The database failed it (the round logged why): the next round runs after the back-off.
    Failed,
}

/// One round of a worker's work.
pub trait Round: Send + 'static {
    /// Does one round and says what it found.
    fn run(&mut self) -> impl Future<Output = Outcome> + Send;
}

/// How long a worker waits between rounds, and what wakes it early.
#[derive(Debug, Clone)]
pub struct Pacing {
    /// After a round that found nothing.
    pub idle: Duration,
    /// After a round the database failed.
    pub after_error: Duration,
    /// Cuts an idle wait short: notified when this process queues work.
    pub wake: Option<Arc<Notify>>,
}

/// A running worker: its stop signal and its task.
#[derive(Debug)]
pub struct Worker {
    /// Said in the log if the task ends abnormally.
    name: &'static str,
    stop: watch::Sender<bool>,
    handle: JoinHandle<()>,
}

impl Worker {
    /// Starts `round` in a loop paced by `pacing`, on the current tokio runtime.
    pub fn spawn(name: &'static str, round: impl Round, pacing: Pacing) -> Self {
        let (stop, stopped) = watch::channel(false);
        let handle = tokio::spawn(work(round, pacing, stopped));
        Self { name, stop, handle }
    }

    /// Lets the round in flight finish, then stops.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        if let Err(e) = self.handle.await {
            tracing::error!(error = %e, worker = self.name, "a worker ended abnormally");
        }
    }
}

async fn work(mut round: impl Round, pacing: Pacing, mut stopped: watch::Receiver<bool>) {
    while !*stopped.borrow() {
        let (wait, wake) = match round.run().await {
            Outcome::Busy => continue,
            Outcome::Yielding => {
                tokio::task::yield_now().await;
                continue;
            }
            Outcome::Idle => (pacing.idle, pacing.wake.as_deref()),
            Outcome::Failed => (pacing.after_error, None),
        };
        // A dropped handle (start-up failed after the workers began) ends the worker too:
        // `changed` then fails at once, and waiting on it again would spin.
        let orphaned = tokio::select! {
            changed = stopped.changed() => changed.is_err(),
            () = tokio::time::sleep(wait) => false,
            // A permit stored while a round ran wakes the next wait at once: none is lost.
            () = woken(wake) => false,
        };
        if orphaned {
            break;
        }
    }
}

/// Returns once `wake` is notified; never without one.
async fn woken(wake: Option<&Notify>) {
    match wake {
        Some(wake) => wake.notified().await,
        None => std::future::pending().await,
    }
}
