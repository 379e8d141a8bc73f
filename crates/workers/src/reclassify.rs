//! The re-classification worker inside `discovery-api`: a task that runs the jobs rule changes
//! queue (API.md, "Mapping rules and unmapped time"), a step of each queued person's job per
//! round, round after round while work remains. When none does, it waits for this process to
//! queue a job, or a second at most (a job another instance queued, or one left by a crash).
//! Jobs live in the database, so one cut short by a crash or a restart resumes here, or in any
//! other instance: a step that raced another instance's sets its work aside.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;

use domain::clock::Clock;
use domain::ports::{RuleRepository, TaskMappingRepository};
use domain::services::IntegrationService;

/// People whose jobs take a step in one round.
pub const PEOPLE_PER_ROUND: u32 = 100;
/// How long an idle worker waits before looking again when nothing wakes it.
const IDLE: Duration = Duration::from_secs(1);
/// How long it waits after the database failed a step.
const AFTER_ERROR: Duration = Duration::from_secs(2);

/// The running worker.
#[derive(Debug)]
pub struct ReclassifyWorker {
    stop: watch::Sender<bool>,
    handle: JoinHandle<()>,
}

impl ReclassifyWorker {
    /// Starts the worker on the current tokio runtime; `queued` wakes it when this process
    /// queues a job (`Database::reclassification_queued`).
    pub fn spawn<T, R, K>(integration: IntegrationService<T, R, K>, queued: Arc<Notify>) -> Self
    where
        T: TaskMappingRepository + 'static,
        R: RuleRepository + 'static,
        K: Clock + 'static,
    {
        let (stop, stopped) = watch::channel(false);
        let handle = tokio::spawn(work(integration, queued, stopped));
        Self { stop, handle }
    }

    /// Lets the step in flight finish (each is short and its own transaction), then stops.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        if let Err(e) = self.handle.await {
            tracing::error!(error = %e, "the re-classification worker ended abnormally");
        }
    }
}

async fn work<T, R, K>(
    integration: IntegrationService<T, R, K>,
    queued: Arc<Notify>,
    mut stopped: watch::Receiver<bool>,
) where
    T: TaskMappingRepository,
    R: RuleRepository,
    K: Clock,
{
    while !*stopped.borrow() {
        let wait = match integration.reclassify_round(PEOPLE_PER_ROUND).await {
            Ok(report) if report.remaining => {
                // Let the requests waiting on this runtime go first.
                tokio::task::yield_now().await;
                continue;
            }
            Ok(_) => IDLE,
            Err(e) => {
                tracing::warn!(error = %e, "a re-classification step failed; trying again");
                AFTER_ERROR
            }
        };
        // A dropped handle (start-up failed after the workers began) ends the worker too:
        // `changed` then fails at once, and waiting on it again would spin.
        let orphaned = tokio::select! {
            changed = stopped.changed() => changed.is_err(),
            () = tokio::time::sleep(wait) => false,
            // A permit stored while a round ran wakes the next wait at once: none is lost.
            () = queued.notified(), if wait == IDLE => false,
        };
        if orphaned {
            break;
        }
    }
}
