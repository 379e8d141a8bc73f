//! Liveness and readiness: `/healthz` while the process runs, `/readyz` while the database answers.

use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use serde_json::json;

#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(json!({"status": "ok"}))
}

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
