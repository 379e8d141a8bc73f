//! The delivery worker inside `discovery-api` (unless `DELIVERY_WORKER=false`): a task that
//! claims due deliveries and attempts them, a pass at a time, and waits a second when nothing
//! was due. On shutdown it finishes the pass in flight (at most one attempt's time limit) and
//! stops; a pass cut short by a crash is retried by any worker once its lease ends. The loop is
//! the workers' one (`worker_loop`); this file holds its pass.

use std::sync::Arc;
use std::time::Duration;

use domain::clock::Clock;
use domain::ports::{DeliveryQueue, MailLinks, Mailer, WebhookSender};
use domain::services::DeliveryService;
use service_metrics::Metrics;

use crate::worker_loop::{Outcome, Pacing, Round, Worker};

/// Deliveries claimed per pass, attempted at once.
pub const PASS: u32 = 50;
/// How long an idle worker waits before looking again.
const IDLE: Duration = Duration::from_secs(1);
/// How long it waits after the database failed it.
const AFTER_ERROR: Duration = Duration::from_secs(5);

/// The running worker.
#[derive(Debug)]
pub struct DeliveryWorker(Worker);

impl DeliveryWorker {
    /// Starts the worker on the current tokio runtime.
    pub fn spawn<Q, W, M, L, K>(
        deliveries: Arc<DeliveryService<Q, W, M, L, K>>,
        metrics: Arc<Metrics>,
    ) -> Self
    where
        Pass<Q, W, M, L, K>: Round,
    {
        let pacing = Pacing {
            idle: IDLE,
            after_error: AFTER_ERROR,
            wake: None,
        };
        let pass = Pass {
            deliveries,
            metrics,
        };
        Self(Worker::spawn("delivery", pass, pacing))
    }

    /// Lets the pass in flight finish, then stops.
    pub async fn shutdown(self) {
        self.0.shutdown().await;
    }
}

/// One pass over what is due.
pub struct Pass<Q, W, M, L, K> {
    deliveries: Arc<DeliveryService<Q, W, M, L, K>>,
    metrics: Arc<Metrics>,
}

impl<Q, W, M, L, K> std::fmt::Debug for Pass<Q, W, M, L, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pass")
            .field("size", &PASS)
            .finish_non_exhaustive()
    }
}

impl<Q, W, M, L, K> Round for Pass<Q, W, M, L, K>
where
    Q: DeliveryQueue + 'static,
    W: WebhookSender + 'static,
    M: Mailer + 'static,
    L: MailLinks + 'static,
    K: Clock + 'static,
{
    async fn run(&mut self) -> Outcome {
        match self.deliveries.run_once(PASS).await {
            Ok(report) => {
                self.metrics.deliveries(&report);
                if report.sent() + report.failed() > 0 {
                    Outcome::Busy
                } else {
                    Outcome::Idle
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "the delivery worker could not use the database; trying again");
                Outcome::Failed
            }
        }
    }
}
