//! The workers over the domain's mocks, in paused time: when they look again, that a queued job
//! wakes the re-classification worker at once, and that a stop ends them after the step in
//! flight.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use domain::RepoError;
use domain::clock::FixedClock;
use domain::ports::{
    MockDeliveryQueue, MockMailLinks, MockMailer, MockRuleRepository, MockTaskMappingRepository,
    MockWebhookSender,
};
use domain::services::{DeliveryService, IntegrationService};
use service_metrics::Metrics;
use tokio::sync::Notify;

use crate::{DeliveryWorker, ReclassifyWorker};

fn clock() -> FixedClock {
    FixedClock(time::macros::datetime!(2026-11-27 12:00 UTC))
}

/// A delivery worker whose queue answers every claim with `answer`; returns how many claims
/// were made so far.
fn delivery_worker(
    answer: fn() -> Result<Vec<domain::ports::ClaimedDelivery>, RepoError>,
) -> (DeliveryWorker, Arc<AtomicUsize>) {
    let claims = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&claims);
    let mut queue = MockDeliveryQueue::new();
    queue.expect_claim().returning(move |_, _, _| {
        counted.fetch_add(1, Ordering::SeqCst);
        answer()
    });
    let service = DeliveryService::new(
        queue,
        MockWebhookSender::new(),
        None::<MockMailer>,
        MockMailLinks::new(),
        clock(),
    );
    let metrics = Arc::new(Metrics::new(4, 16).expect("the metrics registry"));
    (DeliveryWorker::spawn(Arc::new(service), metrics), claims)
}

/// Lets the worker run for `span` of paused time.
async fn run_for(span: Duration) {
    tokio::time::sleep(span).await;
}

#[tokio::test(start_paused = true)]
async fn an_idle_delivery_worker_looks_again_each_second_and_stops_when_told() {
    let (worker, claims) = delivery_worker(|| Ok(Vec::new()));
    run_for(Duration::from_millis(3_500)).await;
    // At 0, 1, 2 and 3 s.
    assert_eq!(claims.load(Ordering::SeqCst), 4);
    worker.shutdown().await;
    run_for(Duration::from_secs(10)).await;
    assert_eq!(claims.load(Ordering::SeqCst), 4, "no pass after the stop");
}

#[tokio::test(start_paused = true)]
async fn a_delivery_worker_the_database_failed_waits_five_seconds() {
    let (worker, claims) = delivery_worker(|| Err(RepoError::Unavailable(anyhow::anyhow!("down"))));
    run_for(Duration::from_millis(4_500)).await;
    assert_eq!(claims.load(Ordering::SeqCst), 1);
    run_for(Duration::from_secs(1)).await;
    assert_eq!(claims.load(Ordering::SeqCst), 2);
    worker.shutdown().await;
}

/// A re-classification worker whose queue of people is always empty; returns how many times
/// it was read.
fn reclassify_worker(queued: Arc<Notify>) -> (ReclassifyWorker, Arc<AtomicUsize>) {
    let reads = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&reads);
    let mut rules = MockRuleRepository::new();
    rules.expect_reclassification_queue().returning(move |_| {
        counted.fetch_add(1, Ordering::SeqCst);
        Ok(Vec::new())
    });
    let service = IntegrationService::new(MockTaskMappingRepository::new(), rules, clock());
    (ReclassifyWorker::spawn(service, queued), reads)
}

#[tokio::test(start_paused = true)]
async fn a_queued_job_wakes_the_idle_reclassify_worker_at_once() {
    let queued = Arc::new(Notify::new());
    let (worker, reads) = reclassify_worker(Arc::clone(&queued));
    run_for(Duration::from_millis(100)).await;
    assert_eq!(reads.load(Ordering::SeqCst), 1);
    queued.notify_one();
    run_for(Duration::from_millis(100)).await;
    assert_eq!(
        reads.load(Ordering::SeqCst),
        2,
        "woken before its second was up"
    );
    run_for(Duration::from_millis(1_000)).await;
    assert_eq!(reads.load(Ordering::SeqCst), 3, "and then once a second");
    worker.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_worker_whose_handle_is_dropped_ends_rather_than_spins() {
    // As when start-up fails after the workers began: nobody will call `shutdown`.
    let (worker, claims) = delivery_worker(|| Err(RepoError::Unavailable(anyhow::anyhow!("down"))));
    run_for(Duration::from_millis(100)).await;
    drop(worker);
    run_for(Duration::from_secs(10)).await;
    assert_eq!(
        claims.load(Ordering::SeqCst),
        1,
        "no pass after its handle went"
    );
}
