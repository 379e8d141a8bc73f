//! Liveness and readiness: `/healthz` while the process runs, `/readyz` while the database answers.

use super::declaration::Route;
use crate::auth::policy::Policy;
use actix_web::web;

use crate::error::ApiError;
use crate::views::operations::Health;
use adapters_diesel::Database;

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
pub async fn healthz() -> web::Json<Health> {
    web::Json(Health::OK)
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
pub async fn readyz(db: web::Data<Database>) -> Result<web::Json<Health>, ApiError> {
    match db.ping().await {
        Ok(()) => Ok(web::Json(Health::OK)),
        Err(e) => {
            tracing::warn!(error = %e, "readiness check failed");
            Err(ApiError::Unavailable(anyhow::anyhow!(
                "readiness check: {e}"
            )))
        }
    }
}
