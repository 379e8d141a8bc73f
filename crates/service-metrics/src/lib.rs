//! Prometheus metrics of `discovery-api`: one registry per running service (no process-wide recorder, so two
//! services in one process, as in the tests, keep their own counts), the instruments the other
//! modules update, and the text rendering served at `/metrics`. Every label takes values from a
//! fixed set (route patterns, never raw paths), so the number of series stays bounded. No HTTP
//! here: the binary's middleware feeds [`Metrics::observe_request`] and serves [`Metrics::render`].

pub mod model;

pub use model::MeteredModel;

use std::time::Duration;

use domain::ports::{ModelError, QueueStats};
use domain::services::ModelFailure;
use domain::services::delivery::DeliveryReport;
use prometheus::{
    Encoder, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts,
    Registry, TextEncoder,
};

/// The `Content-Type` of the rendering (Prometheus text format 0.0.4).
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Request latency buckets in seconds: a few milliseconds for a cached read up to the 30 s
/// default bound on a language-model call.
const HTTP_BUCKETS: [f64; 14] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// Model-call latency buckets in seconds: the offline engine answers in microseconds, a hosted
/// model in seconds, and `LLM_TIMEOUT_SECONDS` (30 by default) ends the rest.
const LLM_BUCKETS: [f64; 11] = [0.001, 0.01, 0.1, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0];

/// What a model call was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LlmOperation {
    /// Reading a profile out of the answers (`POST /discovery/conversation/me/complete`).
    Extract,
    /// A reflection turn with the coach (`POST /discovery/profile/me/reflect`).
    Reflect,
}

impl LlmOperation {
    const ALL: [Self; 2] = [Self::Extract, Self::Reflect];

    const fn label(self) -> &'static str {
        match self {
            Self::Extract => "extract",
            Self::Reflect => "reflect",
        }
    }
}

/// Where a check-in came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckInOrigin {
    /// A person asked for one (`POST /coaching/checkins`).
    Manual,
    /// The run of the due check-ins through this service (`POST /coaching/run`).
    Batch,
}

impl CheckInOrigin {
    const fn label(self) -> &'static str {
        match self {
            Self::Manual => "manual",
            Self::Batch => "batch",
        }
    }
}

/// The activity writer's counters, handed to the queue and its draining task.
#[derive(Debug, Clone)]
pub struct ActivityCounters {
    /// Entries stored in the activity log.
    pub written: IntCounter,
    /// Entries given up: the database refused their batch through every retry, or they arrived
    /// after shutdown had closed the queue.
    pub lost: IntCounter,
    /// State changes answered although their entry could not be stored (also counted in `lost`).
    pub unrecorded: IntCounter,
}

/// The instruments of one service.
pub struct Metrics {
    registry: Registry,
    http_requests: IntCounterVec,
    http_duration: HistogramVec,
    activity_depth: IntGauge,
    activity: ActivityCounters,
    pool_connections: IntGaugeVec,
    checkins_created: IntCounterVec,
    llm_calls: IntCounterVec,
    llm_duration: HistogramVec,
    llm_failures: IntCounterVec,
    deliveries: IntCounterVec,
    outbox_pending: IntGauge,
    outbox_oldest_age: IntGauge,
}

impl ActivityCounters {
    fn register(r: &Register) -> Result<Self, prometheus::Error> {
        Ok(Self {
            written: r.plain_counter(
                "activity_entries_written_total",
                "Activity-log entries stored.",
            )?,
            lost: r.plain_counter(
                "activity_entries_lost_total",
                "Activity-log entries given up after every retry (or queued after shutdown).",
            )?,
            unrecorded: r.plain_counter(
                "activity_changes_unrecorded_total",
                "State-changing requests answered as committed although their activity-log entry could not be stored.",
            )?,
        })
    }
}

/// Creates instruments and registers each with the registry it holds.
struct Register(Registry);

impl Register {
    fn counter(
        &self,
        name: &str,
        help: &str,
        labels: &[&str],
    ) -> Result<IntCounterVec, prometheus::Error> {
        let c = IntCounterVec::new(Opts::new(name, help), labels)?;
        self.0.register(Box::new(c.clone()))?;
        Ok(c)
    }

    fn plain_counter(&self, name: &str, help: &str) -> Result<IntCounter, prometheus::Error> {
        let c = IntCounter::new(name, help)?;
        self.0.register(Box::new(c.clone()))?;
        Ok(c)
    }

    fn gauge(&self, name: &str, help: &str) -> Result<IntGauge, prometheus::Error> {
        let g = IntGauge::new(name, help)?;
        self.0.register(Box::new(g.clone()))?;
        Ok(g)
    }

    /// A gauge set once to a value fixed for the life of the process.
    fn fixed(&self, name: &str, help: &str, value: i64) -> Result<(), prometheus::Error> {
        self.gauge(name, help)?.set(value);
        Ok(())
    }

    fn gauge_vec(
        &self,
        name: &str,
        help: &str,
        labels: &[&str],
    ) -> Result<IntGaugeVec, prometheus::Error> {
        let g = IntGaugeVec::new(Opts::new(name, help), labels)?;
        self.0.register(Box::new(g.clone()))?;
        Ok(g)
    }

    fn histogram(
        &self,
        name: &str,
        help: &str,
        labels: &[&str],
        buckets: &[f64],
    ) -> Result<HistogramVec, prometheus::Error> {
        let h = HistogramVec::new(
            HistogramOpts::new(name, help).buckets(buckets.to_vec()),
            labels,
        )?;
        self.0.register(Box::new(h.clone()))?;
        Ok(h)
    }
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Metrics {
    /// Registers every instrument; `pool_max` and `queue_capacity` are fixed for the life of the
    /// process and exported so alerts can compare against them.
    ///
    /// # Errors
    /// Only for an invalid metric definition (a programming error caught by the tests).
    pub fn new(pool_max: u32, queue_capacity: usize) -> Result<Self, prometheus::Error> {
        let r = Register(Registry::new_custom(Some("discovery".to_owned()), None)?);
        r.fixed(
            "activity_queue_capacity",
            "How many activity-log entries may wait before requests are held back.",
            i64::try_from(queue_capacity).unwrap_or(i64::MAX),
        )?;
        r.fixed(
            "db_pool_max_connections",
            "The pool's size (DATABASE_MAX_CONNECTIONS).",
            i64::from(pool_max),
        )?;
        let metrics = Self {
            http_requests: r.counter(
                "http_requests_total",
                "HTTP requests answered, by method, route pattern and status.",
                &["method", "route", "status"],
            )?,
            http_duration: r.histogram(
                "http_request_duration_seconds",
                "Time to answer an HTTP request (until the response head), by method and route pattern.",
                &["method", "route"],
                &HTTP_BUCKETS,
            )?,
            activity_depth: r.gauge(
                "activity_queue_depth",
                "Activity-log entries waiting to be written.",
            )?,
            activity: ActivityCounters::register(&r)?,
            pool_connections: r.gauge_vec(
                "db_pool_connections",
                "Database connections of this process's pool, by state (in_use, idle).",
                &["state"],
            )?,
            checkins_created: r.counter(
                "checkins_created_total",
                "Check-ins written by this service, by origin (manual, batch).",
                &["origin"],
            )?,
            llm_calls: r.counter(
                "llm_calls_total",
                "Requests to the language model (the one retry is a second call), by operation and outcome.",
                &["operation", "outcome"],
            )?,
            llm_duration: r.histogram(
                "llm_call_duration_seconds",
                "Time one request to the language model took, by operation.",
                &["operation"],
                &LLM_BUCKETS,
            )?,
            llm_failures: r.counter(
                "llm_failures_total",
                "Extractions and reflection turns that gave up (502 coach_unavailable), by operation and reason.",
                &["operation", "reason"],
            )?,
            deliveries: r.counter(
                "deliveries_total",
                "Delivery attempts of this process's worker, by channel (webhook, email) and outcome (delivered, failed).",
                &["channel", "outcome"],
            )?,
            outbox_pending: r.gauge(
                "outbox_pending_deliveries",
                "Deliveries waiting to be attempted or retried (all workers; read at each scrape).",
            )?,
            outbox_oldest_age: r.gauge(
                "outbox_oldest_pending_age_seconds",
                "How long ago the event of the oldest pending delivery happened (0 when none waits).",
            )?,
            registry: r.0,
        };
        metrics.start_every_known_series();
        Ok(metrics)
    }

    /// Every known series from the start, at zero: `increase()` and `rate()` need a sample
    /// before the first event, and an alert on "nothing created" needs the series to exist.
    fn start_every_known_series(&self) {
        for channel in ["webhook", "email"] {
            for outcome in ["delivered", "failed"] {
                self.deliveries.with_label_values(&[channel, outcome]);
            }
        }
        for origin in [CheckInOrigin::Manual, CheckInOrigin::Batch] {
            self.checkins_created.with_label_values(&[origin.label()]);
        }
        for operation in LlmOperation::ALL {
            for outcome in ["ok", "timeout", "rate_limited", "unavailable"] {
                self.llm_calls
                    .with_label_values(&[operation.label(), outcome]);
            }
            for reason in ["no_reply", "unusable"] {
                self.llm_failures
                    .with_label_values(&[operation.label(), reason]);
            }
        }
    }

    /// The counters the activity queue and writer update.
    #[must_use]
    pub fn activity_counters(&self) -> ActivityCounters {
        self.activity.clone()
    }

    /// One answered request. `route` is a route pattern or `unmatched` (`route_pattern::label`).
    pub fn observe_request(&self, method: &str, route: &str, status: u16, took: Duration) {
        self.http_requests
            .with_label_values(&[method, route, &status.to_string()])
            .inc();
        self.http_duration
            .with_label_values(&[method, route])
            .observe(took.as_secs_f64());
    }

    /// What a pass of the delivery worker did.
    pub fn deliveries(&self, report: &DeliveryReport) {
        for (channel, tally) in [("webhook", report.webhook), ("email", report.email)] {
            self.deliveries
                .with_label_values(&[channel, "delivered"])
                .inc_by(tally.sent);
            self.deliveries
                .with_label_values(&[channel, "failed"])
                .inc_by(tally.failed);
        }
    }

    /// The outbox as it stands at `now` (set at each scrape).
    pub fn outbox(&self, stats: &QueueStats, now: time::OffsetDateTime) {
        self.outbox_pending
            .set(i64::try_from(stats.pending).unwrap_or(i64::MAX));
        let age = stats
            .oldest_pending_at
            .map_or(0, |at| (now - at).whole_seconds().max(0));
        self.outbox_oldest_age.set(age);
    }

    /// `count` check-ins written.
    pub fn checkins_created(&self, origin: CheckInOrigin, count: u64) {
        self.checkins_created
            .with_label_values(&[origin.label()])
            .inc_by(count);
    }

    /// One request to the model and what came of it.
    pub fn observe_llm_call(
        &self,
        operation: LlmOperation,
        result: Result<(), &ModelError>,
        took: Duration,
    ) {
        let outcome = match result {
            Ok(()) => "ok",
            Err(ModelError::Timeout) => "timeout",
            Err(ModelError::RateLimited) => "rate_limited",
            Err(ModelError::Unavailable(_)) => "unavailable",
        };
        self.llm_calls
            .with_label_values(&[operation.label(), outcome])
            .inc();
        self.llm_duration
            .with_label_values(&[operation.label()])
            .observe(took.as_secs_f64());
    }

    /// An extraction or reflection turn that gave up on the model.
    pub fn llm_failed(&self, operation: LlmOperation, failure: &ModelFailure) {
        let reason = match failure {
            ModelFailure::Model(_) => "no_reply",
            ModelFailure::Unusable(_) => "unusable",
        };
        self.llm_failures
            .with_label_values(&[operation.label(), reason])
            .inc();
    }

    /// The text rendering, with the gauges read now: `queue_depth` from the activity queue,
    /// `pool` as (connections open, idle) from the database pool.
    ///
    /// # Errors
    /// When encoding fails (it does not for the instruments registered here).
    pub fn render(
        &self,
        queue_depth: usize,
        pool: (u32, u32),
    ) -> Result<String, prometheus::Error> {
        self.activity_depth
            .set(i64::try_from(queue_depth).unwrap_or(i64::MAX));
        let (connections, idle) = pool;
        self.pool_connections
            .with_label_values(&["in_use"])
            .set(i64::from(connections.saturating_sub(idle)));
        self.pool_connections
            .with_label_values(&["idle"])
            .set(i64::from(idle));
        let mut out = Vec::new();
        TextEncoder::new().encode(&self.registry.gather(), &mut out)?;
        String::from_utf8(out).map_err(|e| prometheus::Error::Msg(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_instrument_registers_and_renders_with_its_prefix() {
        let metrics = Metrics::new(10, 4_096).unwrap();
        metrics.observe_request(
            "GET",
            "/api/me/sessions/{id}",
            204,
            Duration::from_millis(3),
        );
        metrics.checkins_created(CheckInOrigin::Batch, 3);
        let text = metrics.render(2, (5, 3)).unwrap();
        for line in [
            "discovery_http_requests_total{method=\"GET\",route=\"/api/me/sessions/{id}\",status=\"204\"} 1",
            "discovery_http_request_duration_seconds_bucket{method=\"GET\",route=\"/api/me/sessions/{id}\",le=\"0.005\"} 1",
            "discovery_activity_queue_depth 2",
            "discovery_activity_queue_capacity 4096",
            "discovery_db_pool_connections{state=\"in_use\"} 2",
            "discovery_db_pool_connections{state=\"idle\"} 3",
            "discovery_db_pool_max_connections 10",
            "discovery_checkins_created_total{origin=\"batch\"} 3",
            "discovery_checkins_created_total{origin=\"manual\"} 0",
            "discovery_llm_calls_total{operation=\"reflect\",outcome=\"timeout\"} 0",
            "discovery_llm_failures_total{operation=\"extract\",reason=\"unusable\"} 0",
            "discovery_activity_entries_lost_total 0",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} missing in\n{text}");
        }
    }
}
