//! The operations responses: liveness and readiness.

use serde::Serialize;
use utoipa::ToSchema;

/// `{"status": "ok"}` from `/healthz` and `/readyz`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    #[schema(example = "ok")]
    status: &'static str,
}

impl Health {
    pub const OK: Self = Self { status: "ok" };
}
