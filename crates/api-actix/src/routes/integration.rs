//! `/integration/*`: what time trackers use — the six foundations, task mappings (create or
//! update, all-or-nothing batches, filtered listing, deletion) and the work-pattern read-back.

use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};
use domain::foundation::Foundation;
use domain::integration::{
    ExternalTaskId, MAX_BATCH, Minutes, TaskLabel, TaskMappingInput, TaskMappingQuery,
    UpsertOutcome, WorkPattern,
};
use domain::services::integration::{BatchError, DeleteMappingError, WorkPatternError};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::activity::Action;
use crate::auth::Caller;
use crate::error::ApiError;
use crate::extract::{self, ApiJson};
use crate::routes::activity::PageParams;
use crate::routes::rfc3339;
use crate::state::AppState;
use crate::views;

/// Mounted under `/integration` (see `routes::configure`).
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/foundations", web::get().to(foundations))
        .route("/task-mappings", web::post().to(upsert))
        .route("/task-mappings", web::get().to(list))
        .service(
            web::resource("/task-mappings/batch")
                .app_data(extract::payload_config_of(MAX_BATCH_BODY_BYTES))
                .route(web::post().to(batch))
                // This path shadows a mapping whose external id is "batch"; keep it deletable.
                .route(web::delete().to(delete_named_batch))
                // Any other method: the contract's JSON 405 (actix's own would have no body).
                .default_service(web::to(super::not_found)),
        )
        .route(
            "/task-mappings/{external_task_id}",
            web::delete().to(delete),
        )
        .route("/work-patterns", web::get().to(work_patterns));
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
        (status = 200, description = "The foundations.", body = [crate::openapi::schemas::Foundation]),
    ),
    security(("api_key" = []), ("bearer" = []), ("cookie" = [])),
)]
pub(crate) async fn foundations(_caller: Caller) -> HttpResponse {
    let all: Vec<Value> = Foundation::ALL
        .iter()
        .map(|f| json!({"key": f.key(), "title": f.title(), "description": f.description()}))
        .collect();
    HttpResponse::Ok().json(all)
}

/// One time entry as a tracker sends it. Each field's type carries its limit, so serde names
/// the offending field; only the blank-id rule is checked after.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MappingBody {
    external_task_id: ExternalTaskId,
    #[serde(default)]
    task_label: Option<TaskLabel>,
    foundation: Foundation,
    minutes: Minutes,
    #[serde(with = "time::serde::rfc3339")]
    occurred_at: OffsetDateTime,
}

impl MappingBody {
    /// `at` is the field path prefix for error details (`""` or `"items[3]."`).
    fn into_input(self, at: &str) -> Result<TaskMappingInput, ApiError> {
        TaskMappingInput::new(
            self.external_task_id,
            self.task_label,
            self.foundation,
            self.minutes,
            self.occurred_at,
        )
        .map_err(|e| ApiError::invalid(format!("{at}external_task_id"), e))
    }
}

#[utoipa::path(
    post,
    path = "/integration/task-mappings",
    tag = "integration",
    summary = "Record a time entry (idempotent per external id).",
    request_body = crate::openapi::schemas::TaskMappingRequest,
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::TaskMapping),
        (status = 200, description = "Replaced the entry with this external id.", body = crate::openapi::schemas::TaskMapping),
    ),
    security(("api_key" = []), ("bearer" = []), ("cookie" = [])),
)]
pub(crate) async fn upsert(
    state: web::Data<AppState>,
    caller: Caller,
    body: ApiJson<MappingBody>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    req.extensions_mut().insert(Action("task_mapping.upsert"));
    let input = body.into_inner().into_input("")?;
    let (mapping, outcome) = state.integration.upsert(caller.user_id, &input).await?;
    let mut response = match outcome {
        UpsertOutcome::Created => HttpResponse::Created(),
        UpsertOutcome::Updated => HttpResponse::Ok(),
    };
    Ok(response.json(views::task_mapping(&mapping)))
}

/// A batch body. Items are read one by one so a bad item is named by its index, and the size
/// limit is checked before any item is parsed.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BatchBody {
    items: Vec<Map<String, Value>>,
}

fn parse_batch(items: Vec<Map<String, Value>>) -> Result<Vec<TaskMappingInput>, ApiError> {
    if items.len() > MAX_BATCH {
        return Err(ApiError::invalid(
            "items",
            format!("at most {MAX_BATCH} items per batch (got {})", items.len()),
        ));
    }
    items
        .into_iter()
        .enumerate()
        .map(|(index, item)| {
            let at = format!("items[{index}].");
            let body: MappingBody = crate::extract::from_value(Value::Object(item), &at)?;
            body.into_input(&at)
        })
        .collect()
}

#[utoipa::path(
    post,
    path = "/integration/task-mappings/batch",
    tag = "integration",
    summary = "Record up to 1,000 entries, all or nothing.",
    request_body = crate::openapi::schemas::TaskMappingBatchRequest,
    responses(
        (status = 200, description = "How many were created and replaced.", body = crate::openapi::schemas::BatchReport),
        (status = 413, description = "The body is larger than 4 MiB.", body = crate::openapi::schemas::ErrorBody),
    ),
    security(("api_key" = []), ("bearer" = []), ("cookie" = [])),
)]
pub(crate) async fn batch(
    state: web::Data<AppState>,
    caller: Caller,
    body: ApiJson<BatchBody, MAX_BATCH_BODY_BYTES>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    req.extensions_mut().insert(Action("task_mapping.batch"));
    let inputs = parse_batch(body.into_inner().items)?;
    match state
        .integration
        .upsert_batch(caller.user_id, &inputs)
        .await
    {
        Ok((created, updated)) => {
            Ok(HttpResponse::Ok().json(json!({"created": created, "updated": updated})))
        }
        Err(BatchError::TooLarge(n)) => Err(ApiError::invalid(
            "items",
            format!("at most {MAX_BATCH} items per batch (got {n})"),
        )),
        Err(BatchError::Repo(e)) => Err(e.into()),
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListParams {
    from: Option<String>,
    to: Option<String>,
    foundation: Option<String>,
    limit: Option<i64>,
    before: Option<String>,
}

/// An RFC 3339 time from a query string. A `+` offset that arrived unencoded reads as a space
/// once the query is decoded; it is put back rather than refused.
fn query_time(field: &str, value: Option<&str>) -> Result<Option<OffsetDateTime>, ApiError> {
    let Some(raw) = value.filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    OffsetDateTime::parse(raw, &Rfc3339)
        .or_else(|_| OffsetDateTime::parse(&raw.replace(' ', "+"), &Rfc3339))
        .map(Some)
        .map_err(|_| {
            ApiError::invalid(field, "must be an RFC 3339 time, e.g. 2026-11-22T10:00:00Z")
        })
}

impl ListParams {
    fn query(self) -> Result<TaskMappingQuery, ApiError> {
        let (limit, before) = PageParams {
            limit: self.limit,
            before: self.before,
        }
        .parse()?;
        let foundation = match self.foundation.as_deref() {
            None | Some("") => None,
            Some(key) => Some(key.parse::<Foundation>().map_err(|_| {
                ApiError::invalid("foundation", "must be one of the six foundations")
            })?),
        };
        Ok(TaskMappingQuery {
            from: query_time("from", self.from.as_deref())?,
            to: query_time("to", self.to.as_deref())?,
            foundation,
            limit,
            before,
        })
    }
}

#[utoipa::path(
    get,
    path = "/integration/task-mappings",
    tag = "integration",
    summary = "Time entries, newest `occurred_at` first.",
    params(crate::openapi::schemas::TaskMappingQuery),
    responses(
        (status = 200, description = "A page.", body = crate::openapi::schemas::TaskMappingPage),
    ),
    security(("api_key" = []), ("bearer" = []), ("cookie" = [])),
)]
pub(crate) async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    params: web::Query<ListParams>,
) -> Result<HttpResponse, ApiError> {
    let query = params.into_inner().query()?;
    let page = state.integration.list(caller.user_id, &query).await?;
    Ok(HttpResponse::Ok().json(views::page(&page, views::task_mapping)))
}

#[utoipa::path(
    delete,
    path = "/integration/task-mappings/{external_task_id}",
    tag = "integration",
    summary = "Delete a time entry.",
    params(("external_task_id" = String, Path, description = "The tracker's id of the entry.")),
    responses(
        (status = 204, description = "Deleted."),
        (status = 404, description = "Nothing was found here for this caller.", body = crate::openapi::schemas::ErrorBody),
    ),
    security(("api_key" = []), ("bearer" = []), ("cookie" = [])),
)]
pub(crate) async fn delete(
    state: web::Data<AppState>,
    caller: Caller,
    external_task_id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    delete_mapping(&state, &caller, &external_task_id, &req).await
}

#[utoipa::path(
    delete,
    path = "/integration/task-mappings/batch",
    tag = "integration",
    summary = "Delete the time entry whose external id is `batch`.",
    responses(
        (status = 204, description = "Deleted."),
        (status = 404, description = "Nothing was found here for this caller.", body = crate::openapi::schemas::ErrorBody),
    ),
    security(("api_key" = []), ("bearer" = []), ("cookie" = [])),
)]
pub(crate) async fn delete_named_batch(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    delete_mapping(&state, &caller, "batch", &req).await
}

async fn delete_mapping(
    state: &AppState,
    caller: &Caller,
    external_task_id: &str,
    req: &HttpRequest,
) -> Result<HttpResponse, ApiError> {
    req.extensions_mut().insert(Action("task_mapping.delete"));
    match state
        .integration
        .delete(caller.user_id, external_task_id)
        .await
    {
        Ok(()) => Ok(HttpResponse::NoContent().finish()),
        Err(DeleteMappingError::NotFound) => Err(ApiError::NotFound),
        Err(DeleteMappingError::Repo(e)) => Err(e.into()),
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WorkPatternParams {
    days: Option<i64>,
}

#[utoipa::path(
    get,
    path = "/integration/work-patterns",
    tag = "integration",
    summary = "Where the logged time went.",
    params(crate::openapi::schemas::WorkPatternQuery),
    responses(
        (status = 200, description = "Minutes and shares per foundation, per day, and a summary.", body = crate::openapi::schemas::WorkPattern),
    ),
    security(("api_key" = []), ("bearer" = []), ("cookie" = [])),
)]
pub(crate) async fn work_patterns(
    state: web::Data<AppState>,
    caller: Caller,
    params: web::Query<WorkPatternParams>,
) -> Result<HttpResponse, ApiError> {
    let days = params.days.unwrap_or(14);
    match state.integration.work_patterns(caller.user_id, days).await {
        Ok(pattern) => Ok(HttpResponse::Ok().json(work_pattern(&pattern))),
        Err(WorkPatternError::InvalidDays(e)) => Err(ApiError::invalid("days", e)),
        Err(WorkPatternError::Repo(e)) => Err(e.into()),
    }
}

fn work_pattern(p: &WorkPattern) -> Value {
    let foundations: Vec<Value> = p
        .foundations
        .iter()
        .map(|f| json!({"foundation": f.foundation.key(), "minutes": f.minutes, "share": f.share, "neglected": f.neglected}))
        .collect();
    let daily: Vec<Value> = p
        .daily
        .iter()
        .map(|d| {
            let minutes: Map<String, Value> = d
                .minutes
                .iter()
                .map(|(f, m)| (f.key().to_owned(), Value::from(m)))
                .collect();
            json!({"date": d.date.to_string(), "minutes": minutes})
        })
        .collect();
    json!({
        "days": p.window.days,
        "from": rfc3339(p.window.from),
        "to": rfc3339(p.window.to),
        "total_minutes": p.total_minutes,
        "foundations": foundations,
        "neglected": p.neglected.iter().map(|f| f.key()).collect::<Vec<_>>(),
        "summary": p.summary,
        "daily": daily,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::FieldError;

    fn item(minutes: Value) -> Map<String, Value> {
        json!({"external_task_id": "t", "foundation": "love", "minutes": minutes, "occurred_at": "2026-11-22T10:00:00Z"})
            .as_object()
            .unwrap()
            .clone()
    }

    #[test]
    fn a_bad_item_is_named_by_its_index() {
        let items = vec![item(json!(5)), item(json!(5)), item(json!(1_441))];
        let Err(ApiError::Validation(errors)) = parse_batch(items) else {
            panic!("expected a validation error");
        };
        assert_eq!(errors[0].field, "items[2].minutes");
    }

    #[test]
    fn a_blank_external_id_is_named_with_its_index() {
        let mut blank = item(json!(5));
        blank.insert("external_task_id".into(), json!("   "));
        let Err(ApiError::Validation(errors)) = parse_batch(vec![item(json!(1)), blank]) else {
            panic!("expected a validation error");
        };
        assert_eq!(
            errors,
            [FieldError::new(
                "items[1].external_task_id",
                "external_task_id must not be blank"
            )]
        );
    }

    #[test]
    fn query_times_accept_an_unencoded_plus_offset() {
        let at = query_time("from", Some("2026-11-22T10:00:00 01:00")).unwrap();
        assert_eq!(at.unwrap().offset().whole_hours(), 1);
        assert!(query_time("from", Some("yesterday")).is_err());
        assert_eq!(query_time("from", Some("")).unwrap(), None);
    }
}
