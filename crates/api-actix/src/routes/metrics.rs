//! `GET /metrics`: the Prometheus text rendering of this process's metrics (docs/operations.md,
//! Metrics). Open by default, as Prometheus expects; with `METRICS_TOKEN` set, only a scrape
//! presenting it as a Bearer token gets an answer.

use super::declaration::Route;
use crate::auth::policy::Policy;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};

use crate::activity::ActivityQueue;
use crate::error::ApiError;
use crate::service_types::Deliveries;
use crate::state::MetricsToken;
use adapters_diesel::Database;
use credentials::secrets::same_secret;
use secrecy::ExposeSecret;
use service_metrics::CONTENT_TYPE;
use service_metrics::Metrics;

/// The routes of this file, mounted at the root in this order (see `routes::api`).
pub fn routes() -> Vec<Route> {
    vec![Route::new(Policy::Public, metrics, __path_metrics)]
}

// The 401 of `METRICS_TOKEN` is told in the description, not listed as a response: in this
// document a listed 401 means a person's credentials (the three security schemes), which this
// route never takes.
#[utoipa::path(
    get,
    path = "/metrics",
    tag = "operations",
    summary = "Metrics in the Prometheus text format.",
    description = "Request counts and latencies by route pattern and status, the activity queue, \
                   the database pool, check-ins created, language-model calls and deliveries \
                   (docs/operations.md lists every metric). When the operator sets \
                   `METRICS_TOKEN`, send it as `Authorization: Bearer <token>`; without it the \
                   answer is 401 `unauthenticated`.",
    responses(
        (status = 200, description = "The metrics (text format 0.0.4).", body = String, content_type = "text/plain"),
    ),
)]
pub async fn metrics(
    deliveries: web::Data<Deliveries>,
    metrics: web::Data<Metrics>,
    db: web::Data<Database>,
    token: web::Data<MetricsToken>,
    queue: web::Data<ActivityQueue>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    if let Some(expected) = &token.0 {
        let presented = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or_default();
        if !same_secret(presented, expected.expose_secret()) {
            return Err(ApiError::Unauthenticated);
        }
    }
    // The outbox is shared by every worker, so it is read from the database, not counted here;
    // a database that cannot answer leaves the last reading.
    match deliveries.stats().await {
        Ok(stats) => metrics.outbox(&stats, time::OffsetDateTime::now_utc()),
        Err(e) => tracing::warn!(error = %e, "the outbox could not be read for the metrics"),
    }
    let text = metrics
        .render(queue.depth(), db.pool_state())
        .map_err(|e| ApiError::Internal(anyhow::Error::new(e).context("rendering the metrics")))?;
    Ok(HttpResponse::Ok()
        .content_type(CONTENT_TYPE)
        // A scrape is a snapshot; no cache in between should answer the next one.
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(text))
}
