//! The delivery worker inside `discovery-api` (unless `DELIVERY_WORKER=false`): a task that
//! claims due deliveries and attempts them, a pass at a time, and waits a second when nothing
//! was due. On shutdown it finishes the pass in flight (at most one attempt's time limit) and
//! stops; a pass cut short by a crash is retried by any worker once its lease ends.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinHandle;

use domain::clock::Clock;
use domain::ports::{DeliveryQueue, MailLinks, Mailer, WebhookSender};
use domain::services::DeliveryService;
use service_metrics::Metrics;

/// Deliveries claimed per pass, attempted at once.
pub const PASS: u32 = 50;
/// How long an idle worker waits before looking again.
const IDLE: Duration = Duration::from_secs(1);
/// How long it waits after the database failed it.
const AFTER_ERROR: Duration = Duration::from_secs(5);

/// The running worker.
#[derive(Debug)]
pub struct DeliveryWorker {
    stop: watch::Sender<bool>,
    handle: JoinHandle<()>,
}

impl DeliveryWorker {
    /// Starts the worker on the current tokio runtime.
    pub fn spawn<Q, W, M, L, K>(
        deliveries: Arc<DeliveryService<Q, W, M, L, K>>,
        metrics: Arc<Metrics>,
    ) -> Self
    where
        Q: DeliveryQueue + 'static,
        W: WebhookSender + 'static,
        M: Mailer + 'static,
        L: MailLinks + 'static,
        K: Clock + 'static,
    {
        let (stop, stopped) = watch::channel(false);
        let handle = tokio::spawn(work(deliveries, metrics, stopped));
        Self { stop, handle }
    }

    /// Lets the pass in flight finish, then stops.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        if let Err(e) = self.handle.await {
            tracing::error!(error = %e, "the delivery worker ended abnormally");
        }
    }
}

async fn work<Q, W, M, L, K>(
    deliveries: Arc<DeliveryService<Q, W, M, L, K>>,
    metrics: Arc<Metrics>,
    mut stopped: watch::Receiver<bool>,
) where
    Q: DeliveryQueue,
    W: WebhookSender,
    M: Mailer,
    L: MailLinks,
    K: Clock,
{
    while !*stopped.borrow() {
        // Never raced against shutdown: a pass runs to its end, each attempt stored.
        let wait = match deliveries.run_once(PASS).await {
            Ok(report) => {
                metrics.deliveries(&report);
                if report.sent() + report.failed() > 0 {
                    continue;
                }
                IDLE
            }
            Err(e) => {
                tracing::warn!(error = %e, "the delivery worker could not use the database; trying again");
                AFTER_ERROR
            }
        };
        // A dropped handle (start-up failed after the workers began) ends the worker too:
        // `changed` then fails at once, and waiting on it again would spin.
        let orphaned = tokio::select! {
            changed = stopped.changed() => changed.is_err(),
            () = tokio::time::sleep(wait) => false,
        };
        if orphaned {
            break;
        }
    }
}
