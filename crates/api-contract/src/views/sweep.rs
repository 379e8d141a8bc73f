//! The answer of `POST /integration/task-mappings/sweep`.

use serde::Serialize;
use utoipa::ToSchema;

/// How many entries the sweep deleted.
#[derive(Debug, Serialize, ToSchema)]
pub struct SweepReport {
    deleted: u64,
}

impl SweepReport {
    #[must_use]
    pub const fn new(deleted: u64) -> Self {
        Self { deleted }
    }
}
