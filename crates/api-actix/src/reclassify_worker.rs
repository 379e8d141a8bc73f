//! The re-classification worker inside `discovery-api`: a task that runs the jobs rule changes
//! queue (API.md, "Mapping rules and unmapped time"), a step of each queued person's job per
//! round, round after round while work remains, and looks again a moment later when none does.
//! Jobs live in the database, so one cut short by a crash or a restart resumes here, or in any
//! other instance: a step that raced another instance's sets its work aside.

use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::services::Integration;

/// People whose jobs take a step in one round.
pub const PEOPLE_PER_ROUND: u32 = 100;
/// How long an idle worker waits before looking again: also the longest a new job waits.
const IDLE: Duration = Duration::from_millis(200);
/// How long it waits after the database failed a step.
const AFTER_ERROR: Duration = Duration::from_secs(2);

/// The running worker.
#[derive(Debug)]
pub struct ReclassifyWorker {
    stop: watch::Sender<bool>,
    handle: JoinHandle<()>,
}

impl ReclassifyWorker {
    /// Starts the worker on the current tokio runtime.
    pub fn spawn(integration: Integration) -> Self {
        let (stop, stopped) = watch::channel(false);
        let handle = tokio::spawn(work(integration, stopped));
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

async fn work(integration: Integration, mut stopped: watch::Receiver<bool>) {
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
        tokio::select! {
            _ = stopped.changed() => {}
            () = tokio::time::sleep(wait) => {}
        }
    }
}
