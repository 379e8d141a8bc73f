//! The body of `POST /integration/task-mappings/sweep`.

use domain::integration::SweepPrefix;
use serde::Deserialize;
use time::OffsetDateTime;
use utoipa::ToSchema;
use utoipa::openapi::Object;

use super::rules;

/// Delete the caller's entries whose `external_task_id` starts with the prefix (case
/// included), whose `occurred_at` is in `[from, to)` (at most 366 days), and that no request
/// has sent since `not_sent_since` (which must not be in the future).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SweepRequest {
    #[schema(schema_with = prefix)]
    pub external_task_id_prefix: SweepPrefix,
    #[serde(with = "time::serde::rfc3339")]
    pub from: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub to: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub not_sent_since: OffsetDateTime,
}

fn prefix() -> Object {
    let mut text = rules::text(SweepPrefix::MAX);
    text.min_length = Some(1);
    text
}
