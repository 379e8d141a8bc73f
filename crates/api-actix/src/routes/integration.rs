//! `/integration/*`: what time trackers use — the six foundations, task mappings (create or
//! update, all-or-nothing batches, filtered listing, deletion) and the work-pattern read-back.

use super::declaration::Route;
use crate::answers::CreatedOrOk;
use crate::answers::NoContent;
use crate::auth::policy::Policy;
use crate::service_types::Accounts;
use actix_web::{HttpMessage, HttpRequest, web};
use domain::account::KeyScope;
use domain::foundation::Foundation;
use domain::integration::{MAX_BATCH, UpsertOutcome, Window};
use domain::services::integration::{BatchError, DeleteMappingError, WorkPatternError};

use crate::activity::Action;
use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{self, ApiJson};
use crate::middleware::rate_limit::RateLimits;
use crate::requests::integration::{
    TaskMappingBatchRequest, TaskMappingListQuery, TaskMappingRequest, WorkPatternQuery,
};
use crate::routes::fallback;
use crate::service_types::Integration;
use crate::views::integration::{
    BatchReport, FoundationView, TaskMappingPage, TaskMappingView, WorkPatternView,
};

/// The routes of this file, mounted under `/integration` in this order (see `routes::api`).
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(
            Policy::Key(KeyScope::Integration),
            foundations,
            __path_foundations,
        ),
        Route::new(Policy::Key(KeyScope::Integration), upsert, __path_upsert),
        Route::new(Policy::Key(KeyScope::Integration), list, __path_list),
        Route::new(Policy::Key(KeyScope::Integration), batch, __path_batch).shared(batch_resource),
        Route::new(
            Policy::Key(KeyScope::Integration),
            delete_named_batch,
            __path_delete_named_batch,
        )
        .shared(batch_resource),
        Route::new(Policy::Key(KeyScope::Integration), delete, __path_delete),
        Route::new(
            Policy::Key(KeyScope::Integration),
            work_patterns,
            __path_work_patterns,
        ),
    ]
}

/// `/integration/task-mappings/batch`, one resource for both of its methods: a larger body
/// limit, and any other method answered with the contract's JSON 405 (actix's own would have
/// no body). This path shadows a mapping whose external id is "batch"; its `DELETE` keeps that
/// mapping deletable.
fn batch_resource(resource: actix_web::Resource) -> actix_web::Resource {
    resource
        .app_data(extract::payload_config_of(MAX_BATCH_BODY_BYTES))
        .default_service(web::to(fallback::not_found))
}

/// A batch's body limit. The contract's 64 KiB would not hold its 1,000 items (a typical
/// entry is 150-250 bytes), so batches get room for 1,000 entries at their largest.
pub const MAX_BATCH_BODY_BYTES: usize = 4 * 1024 * 1024;

#[utoipa::path(
    get,
    path = "/integration/foundations",
    tag = "integration",
    summary = "The six foundations, in order.",
    responses(
        (status = 200, description = "The foundations.", body = [FoundationView]),
    ),
)]
pub(crate) async fn foundations(_caller: Caller) -> web::Json<Vec<FoundationView>> {
    let all: Vec<FoundationView> = Foundation::ALL.into_iter().map(Into::into).collect();
    web::Json(all)
}

#[utoipa::path(
    post,
    path = "/integration/task-mappings",
    tag = "integration",
    summary = "Record a time entry (idempotent per external id).",
    request_body = TaskMappingRequest,
    responses(
        (status = 201, description = "Created.", body = TaskMappingView),
        (status = 200, description = "Replaced the entry with this external id.", body = TaskMappingView),
        (status = 429, description = "Over the person's entries per minute; `Retry-After` says when to try again.", body = ErrorBody),
    ),
)]
pub(crate) async fn upsert(
    integration: web::Data<Integration>,
    limits: web::Data<RateLimits>,
    caller: Caller,
    body: ApiJson<TaskMappingRequest>,
    req: HttpRequest,
) -> Result<CreatedOrOk<TaskMappingView>, ApiError> {
    req.extensions_mut().insert(Action("task_mapping.upsert"));
    let input = body.into_inner().into_input(String::new)?;
    limits.check_entries(&caller.user_id, 1)?;
    let (mapping, outcome) = integration.upsert(caller.user_id, &input).await?;
    Ok(CreatedOrOk {
        created: matches!(outcome, UpsertOutcome::Created),
        body: TaskMappingView::from(&mapping),
    })
}

#[utoipa::path(
    post,
    path = "/integration/task-mappings/batch",
    tag = "integration",
    summary = "Record up to 1,000 entries, all or nothing.",
    request_body = TaskMappingBatchRequest,
    responses(
        (status = 200, description = "How many were created and replaced.", body = BatchReport),
        (status = 413, description = "The body is larger than 4 MiB.", body = ErrorBody),
        (status = 429, description = "Over the person's entries per minute (one per item); `Retry-After` says when to try again.", body = ErrorBody),
    ),
)]
pub(crate) async fn batch(
    integration: web::Data<Integration>,
    limits: web::Data<RateLimits>,
    caller: Caller,
    body: ApiJson<TaskMappingBatchRequest, MAX_BATCH_BODY_BYTES>,
    req: HttpRequest,
) -> Result<web::Json<BatchReport>, ApiError> {
    req.extensions_mut().insert(Action("task_mapping.batch"));
    let inputs = body.into_inner().into_inputs()?;
    if inputs.len() <= MAX_BATCH {
        // A batch the service refuses anyway (too large) spends nothing.
        limits.check_entries(&caller.user_id, inputs.len())?;
    }
    match integration.upsert_batch(caller.user_id, inputs).await {
        Ok(outcome) => Ok(web::Json(BatchReport::from(outcome))),
        Err(BatchError::TooLarge(n)) => Err(ApiError::invalid(
            "items",
            format!("at most {MAX_BATCH} items per batch (got {n})"),
        )),
        Err(BatchError::Repo(e)) => Err(e.into()),
    }
}

#[utoipa::path(
    get,
    path = "/integration/task-mappings",
    tag = "integration",
    summary = "Time entries, newest `occurred_at` first.",
    params(TaskMappingListQuery),
    responses(
        (status = 200, description = "A page.", body = TaskMappingPage),
    ),
)]
pub(crate) async fn list(
    integration: web::Data<Integration>,
    caller: Caller,
    params: web::Query<TaskMappingListQuery>,
) -> Result<web::Json<TaskMappingPage>, ApiError> {
    let query = params.into_inner().into_query()?;
    let page = integration.list(caller.user_id, &query).await?;
    Ok(web::Json(TaskMappingPage::from(&page)))
}

#[utoipa::path(
    delete,
    path = "/integration/task-mappings/{external_task_id}",
    tag = "integration",
    summary = "Delete a time entry.",
    params(("external_task_id" = String, Path, description = "The tracker's id of the entry.")),
    responses(
        (status = 204, description = "Deleted."),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
    ),
)]
pub(crate) async fn delete(
    integration: web::Data<Integration>,
    caller: Caller,
    external_task_id: web::Path<String>,
    req: HttpRequest,
) -> Result<NoContent, ApiError> {
    delete_mapping(&integration, &caller, &external_task_id, &req).await
}

#[utoipa::path(
    delete,
    path = "/integration/task-mappings/batch",
    tag = "integration",
    summary = "Delete the time entry whose external id is `batch`.",
    responses(
        (status = 204, description = "Deleted."),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
    ),
)]
pub(crate) async fn delete_named_batch(
    integration: web::Data<Integration>,
    caller: Caller,
    req: HttpRequest,
) -> Result<NoContent, ApiError> {
    delete_mapping(&integration, &caller, "batch", &req).await
}

async fn delete_mapping(
    integration: &Integration,
    caller: &Caller,
    external_task_id: &str,
    req: &HttpRequest,
) -> Result<NoContent, ApiError> {
    req.extensions_mut().insert(Action("task_mapping.delete"));
    match integration.delete(caller.user_id, external_task_id).await {
        Ok(()) => Ok(NoContent),
        Err(DeleteMappingError::NotFound) => Err(ApiError::NotFound),
        Err(DeleteMappingError::Repo(e)) => Err(e.into()),
    }
}

#[utoipa::path(
    get,
    path = "/integration/work-patterns",
    tag = "integration",
    summary = "Where the logged time went.",
    params(WorkPatternQuery),
    responses(
        (status = 200, description = "Minutes and shares per foundation, per local day of the person's time zone, and a summary.", body = WorkPatternView),
    ),
)]
pub(crate) async fn work_patterns(
    accounts: web::Data<Accounts>,
    integration: web::Data<Integration>,
    caller: Caller,
    params: web::Query<WorkPatternQuery>,
) -> Result<web::Json<WorkPatternView>, ApiError> {
    let days = params.days.unwrap_or(i64::from(Window::DEFAULT_DAYS));
    let zone = accounts.time_zone(caller.user_id).await?;
    match integration.work_patterns(caller.user_id, days, &zone).await {
        Ok(pattern) => Ok(web::Json(WorkPatternView::from(&pattern))),
        Err(WorkPatternError::InvalidDays(e)) => Err(ApiError::invalid("days", e)),
        Err(WorkPatternError::Repo(e)) => Err(e.into()),
    }
}
