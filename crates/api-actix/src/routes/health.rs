//! Liveness and readiness: `/healthz` while the process runs, `/readyz` while the database answers.

use super::declaration::Route;
use crate::auth::policy::Policy;
use actix_web::{HttpResponse, web};

use crate::error::ApiError;
use crate::state::AppState;
use crate::views::operations::Health;

/// The routes of this file, mounted at the root in this order (see `routes::api`).
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(Policy::Public, healthz, __path_healthz),
        Route::new(Policy::Public, readyz, __path_readyz),
    ]
}

#[utoipa::path(
    get,
    path = "/healthz",
    tag = "operations",
    summary = "The process runs.",
    responses(
        (status = 200, description = "Always, while the process runs.", body = Health),
    ),
)]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(Health::OK)
}

#[utoipa::path(
    get,
    path = "/readyz",
    tag = "operations",
    summary = "The database answers.",
    responses(
        (status = 200, description = "The database answers.", body = Health),
    ),
)]
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    match state.db.ping().await {
        Ok(()) => Ok(HttpResponse::Ok().json(Health::OK)),
        Err(e) => {
            tracing::warn!(error = %e, "readiness check failed");
            Err(ApiError::Unavailable(anyhow::anyhow!(
                "readiness check: {e}"
            )))
        }
    }
}
