//! `POST /integration/task-mappings/sweep`: an importer that re-read a whole export drops what
//! the tracker no longer has (docs/api.md, "Integration").

use super::declaration::Route;
use crate::auth::policy::Policy;
use actix_web::{HttpMessage, HttpRequest, web};
use domain::account::KeyScope;
use domain::services::integration::SweepError;

use crate::activity::Action;
use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::extract::ApiJson;
use crate::requests::sweep::SweepRequest;
use crate::service_types::Integration;
use crate::views::sweep::SweepReport;

/// The routes of this file, mounted under `/integration` in this order (see `routes::api`).
pub fn routes() -> Vec<Route> {
    vec![Route::new(
        Policy::Key(KeyScope::Integration),
        sweep,
        __path_sweep,
    )]
}

#[utoipa::path(
    post,
    path = "/integration/task-mappings/sweep",
    tag = "integration",
    summary = "Delete the entries of one tracker, in a range, that were not sent since a moment.",
    description = "In one transaction, deletes the caller's entries whose `external_task_id` \
                   starts with the prefix (case included), whose `occurred_at` is in `[from, to)`, \
                   and that no request has sent (created or updated) since `not_sent_since`. The \
                   range spans at most 366 days; `not_sent_since` must not be in the future.",
    request_body = SweepRequest,
    responses(
        (status = 200, description = "How many entries were deleted.", body = SweepReport),
        (status = 422, description = "An empty or overlong prefix, `to` not after `from`, a range over 366 days, or `not_sent_since` in the future; nothing was deleted.", body = ErrorBody),
    ),
)]
pub(crate) async fn sweep(
    integration: web::Data<Integration>,
    caller: Caller,
    body: ApiJson<SweepRequest>,
    req: HttpRequest,
) -> Result<web::Json<SweepReport>, ApiError> {
    req.extensions_mut().insert(Action("task_mapping.sweep"));
    let body = body.into_inner();
    match integration
        .sweep(
            caller.user_id,
            body.external_task_id_prefix,
            (body.from, body.to),
            body.not_sent_since,
        )
        .await
    {
        Ok(deleted) => Ok(web::Json(SweepReport::new(deleted))),
        Err(SweepError::Invalid(e)) => Err(ApiError::invalid(e.field(), e)),
        Err(SweepError::Repo(e)) => Err(e.into()),
    }
}
