//! `/api/activity`: the caller's activity (paginated) and its summary; `/api/admin/activity`:
//! everyone's, for admins.

use actix_web::{HttpResponse, web};
use domain::account::ActivityQuery;
use domain::clock::{Clock, SystemClock};
use domain::ids::UserId;
use domain::pagination::{Cursor, PageLimit};
use domain::ports::ActivityRepository;
use serde::Deserialize;
use serde_json::json;

use crate::auth::{AdminCaller, Caller};
use crate::error::ApiError;
use crate::state::AppState;
use crate::views;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/activity", web::get().to(list))
        .route("/api/activity/summary", web::get().to(summary))
        .route("/api/admin/activity", web::get().to(admin_list));
}

/// `?limit=&before=` as the contract pages every growing list.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageParams {
    pub limit: Option<i64>,
    pub before: Option<String>,
}

impl PageParams {
    /// # Errors
    /// 422 naming `limit` or `before`.
    pub fn parse(&self) -> Result<(PageLimit, Option<Cursor>), ApiError> {
        let limit = match self.limit {
            None => PageLimit::default(),
            Some(n) => PageLimit::new(n).map_err(|e| ApiError::invalid("limit", e))?,
        };
        let before = match self.before.as_deref() {
            None | Some("") => None,
            Some(c) => Some(
                c.parse::<Cursor>()
                    .map_err(|e| ApiError::invalid("before", e))?,
            ),
        };
        Ok((limit, before))
    }
}

async fn page(
    state: &AppState,
    user_id: Option<UserId>,
    params: &PageParams,
) -> Result<HttpResponse, ApiError> {
    let (limit, before) = params.parse()?;
    let page = state
        .activity
        .list(&ActivityQuery {
            user_id,
            limit,
            before,
        })
        .await?;
    Ok(HttpResponse::Ok().json(views::page(&page, views::activity)))
}

#[utoipa::path(
    get,
    path = "/api/activity",
    tag = "activity",
    summary = "The caller's activity, newest first.",
    params(crate::openapi::schemas::PageQuery),
    responses(
        (status = 200, description = "A page.", body = crate::openapi::schemas::ActivityPage),
    ),
    security(("api_key" = []), ("bearer" = []), ("cookie" = [])),
)]
pub(crate) async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    params: web::Query<PageParams>,
) -> Result<HttpResponse, ApiError> {
    page(&state, Some(caller.user_id), &params).await
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AdminParams {
    user_id: Option<String>,
    limit: Option<i64>,
    before: Option<String>,
}

#[utoipa::path(
    get,
    path = "/api/admin/activity",
    tag = "activity",
    summary = "Everyone's activity (admins only).",
    params(crate::openapi::schemas::AdminActivityQuery),
    responses(
        (status = 200, description = "A page.", body = crate::openapi::schemas::ActivityPage),
        (status = 403, description = "Not an admin.", body = crate::openapi::schemas::ErrorBody),
    ),
    security(("api_key" = []), ("bearer" = []), ("cookie" = [])),
)]
pub(crate) async fn admin_list(
    state: web::Data<AppState>,
    _admin: AdminCaller,
    params: web::Query<AdminParams>,
) -> Result<HttpResponse, ApiError> {
    let params = params.into_inner();
    let user_id = match params.user_id.as_deref() {
        None | Some("") => None,
        Some(id) => Some(
            id.parse::<UserId>()
                .map_err(|_| ApiError::invalid("user_id", "must be a user id"))?,
        ),
    };
    page(
        &state,
        user_id,
        &PageParams {
            limit: params.limit,
            before: params.before,
        },
    )
    .await
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SummaryParams {
    days: Option<i64>,
}

#[utoipa::path(
    get,
    path = "/api/activity/summary",
    tag = "activity",
    summary = "The caller's activity counted by action, source and day.",
    params(crate::openapi::schemas::SummaryQuery),
    responses(
        (status = 200, description = "The summary.", body = crate::openapi::schemas::ActivitySummary),
    ),
    security(("api_key" = []), ("bearer" = []), ("cookie" = [])),
)]
pub(crate) async fn summary(
    state: web::Data<AppState>,
    caller: Caller,
    params: web::Query<SummaryParams>,
) -> Result<HttpResponse, ApiError> {
    let days = params.days.unwrap_or(30);
    if !(1..=365).contains(&days) {
        return Err(ApiError::invalid("days", "must be between 1 and 365"));
    }
    let since = SystemClock.now() - time::Duration::days(days);
    let summary = state.activity.summary(caller.user_id, since).await?;
    Ok(HttpResponse::Ok().json(json!({
        "days": days,
        "by_action": summary.by_action,
        "by_source": summary.by_source,
        "by_day": summary.by_day.iter().map(|(date, count)| json!({"date": date.to_string(), "count": count})).collect::<Vec<_>>(),
    })))
}
