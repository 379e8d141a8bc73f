//! The re-classification worker inside `discovery-api`: a task that runs the jobs rule changes
//! queue (docs/api.md, "Mapping rules and unmapped time"), a step of each queued person's job per
//! round, round after round while work remains. When none does, it waits for this process to
//! queue a job, or a second at most (a job another instance queued, or one left by a crash).
//! Jobs live in the database, so one cut short by a crash or a restart resumes here, or in any
//! other instance: a step that raced another instance's sets its work aside. The loop is the
//! workers' one (`worker_loop`); this file holds its round.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;

use domain::clock::Clock;
use domain::ports::{RuleRepository, TaskMappingRepository};
use domain::services::IntegrationService;

use crate::worker_loop::{Outcome, Pacing, Round, Worker};

/// People whose jobs take a step in one round.
pub const PEOPLE_PER_ROUND: u32 = 100;
/// How long an idle worker waits before looking again when nothing wakes it.
const IDLE: Duration = Duration::from_secs(1);
/// How long it waits after the database failed a step.
const AFTER_ERROR: Duration = Duration::from_secs(2);

/// The running worker.
#[derive(Debug)]
pub struct ReclassifyWorker(Worker);

impl ReclassifyWorker {
    /// Starts the worker on the current tokio runtime; `queued` wakes it when this process
    /// queues a job (`Database::reclassification_queued`).
    pub fn spawn<T, R, K>(integration: IntegrationService<T, R, K>, queued: Arc<Notify>) -> Self
    where
        Steps<T, R, K>: Round,
    {
        let pacing = Pacing {
            idle: IDLE,
            after_error: AFTER_ERROR,
            wake: Some(queued),
        };
        Self(Worker::spawn(
            "re-classification",
            Steps(integration),
            pacing,
        ))
    }

    /// Lets the step in flight finish (each is short and its own transaction), then stops.
    pub async fn shutdown(self) {
        self.0.shutdown().await;
    }
}

/// A step of each queued person's job.
pub struct Steps<T, R, K>(IntegrationService<T, R, K>);

impl<T, R, K> std::fmt::Debug for Steps<T, R, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Steps")
            .field("people_per_round", &PEOPLE_PER_ROUND)
            .finish_non_exhaustive()
    }
}

impl<T, R, K> Round for Steps<T, R, K>
where
    T: TaskMappingRepository + 'static,
    R: RuleRepository + 'static,
    K: Clock + 'static,
{
    async fn run(&mut self) -> Outcome {
        match self.0.reclassify_round(PEOPLE_PER_ROUND).await {
            // Let the requests waiting on this runtime go first.
            Ok(report) if report.remaining => Outcome::Yielding,
            Ok(_) => Outcome::Idle,
            Err(e) => {
                tracing::warn!(error = %e, "a re-classification step failed; trying again");
                Outcome::Failed
            }
        }
    }
}
