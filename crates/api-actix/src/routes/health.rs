//! Liveness and readiness: `/healthz` while the process runs, `/readyz` while the database answers.

use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use serde_json::json;

#[utoipa::path(
    get,
    path = "/healthz",
    tag = "operations",
    summary = "The process runs.",
    responses(
        (status = 200, description = "Always, while the process runs.", body = crate::openapi::schemas::Health),
    ),
)]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(json!({"status": "ok"}))
}

#[utoipa::path(
    get,
    path = "/readyz",
    tag = "operations",
    summary = "The database answers.",
    responses(
        (status = 200, description = "The database answers.", body = crate::openapi::schemas::Health),
    ),
)]
#[get("/readyz")]
pub async fn readyz(state: web::Data<AppState>) -> HttpResponse {
    match state.db.ping().await {
        Ok(()) => HttpResponse::Ok().json(json!({"status": "ok"})),
        Err(e) => {
            tracing::warn!(error = %e, "readiness check failed");
            HttpResponse::ServiceUnavailable().json(json!({
                "error": {"code": "unavailable", "message": "The database is not answering."}
            }))
        }
    }
}
