//! `/api/activity`: the caller's activity (paginated) and its summary; `/api/admin/activity`:
//! everyone's, for admins.

use super::declaration::Route;
use crate::auth::policy::Policy;
use actix_web::web;
use domain::account::ActivityQuery;
use domain::clock::{Clock, SystemClock};
use domain::ids::UserId;
use domain::pagination::{Cursor, PageLimit};
use domain::ports::ActivityRepository;

use crate::auth::{AdminCaller, Caller};
use crate::error::{ApiError, ErrorBody};
use crate::requests::account::{AdminActivityQuery, SummaryQuery};
use crate::requests::{self, page::PageQuery};
use crate::views::activity::{ActivityPage, ActivitySummaryView};
use adapters_diesel::DieselActivityRepository;

/// The routes of this file, mounted at the root in this order (see `routes::api`).
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(Policy::SignedIn, list, __path_list),
        Route::new(Policy::SignedIn, summary, __path_summary),
        Route::new(Policy::SignedIn, admin_list, __path_admin_list),
    ]
}

/// `?limit=&before=` as the contract pages every growing list.
async fn page(
    activity: &DieselActivityRepository,
    user_id: Option<UserId>,
    (limit, before): (PageLimit, Option<Cursor>),
) -> Result<web::Json<ActivityPage>, ApiError> {
    let page = activity
        .list(&ActivityQuery {
            user_id,
            limit,
            before,
        })
        .await?;
    Ok(web::Json(ActivityPage::from(&page)))
}

#[utoipa::path(
    get,
    path = "/api/activity",
    tag = "activity",
    summary = "The caller's activity, newest first.",
    params(PageQuery),
    responses(
        (status = 200, description = "A page.", body = ActivityPage),
    ),
)]
pub(crate) async fn list(
    activity: web::Data<DieselActivityRepository>,
    caller: Caller,
    params: web::Query<PageQuery>,
) -> Result<web::Json<ActivityPage>, ApiError> {
    page(&activity, Some(caller.user_id), params.parse()?).await
}

#[utoipa::path(
    get,
    path = "/api/admin/activity",
    tag = "activity",
    summary = "Everyone's activity (admins only).",
    params(AdminActivityQuery),
    responses(
        (status = 200, description = "A page.", body = ActivityPage),
        (status = 403, description = "Not an admin.", body = ErrorBody),
    ),
)]
pub(crate) async fn admin_list(
    activity: web::Data<DieselActivityRepository>,
    _admin: AdminCaller,
    params: web::Query<AdminActivityQuery>,
) -> Result<web::Json<ActivityPage>, ApiError> {
    let user_id = params.user_id()?;
    page(
        &activity,
        user_id,
        requests::page::page(params.limit, params.before.as_deref())?,
    )
    .await
}

#[utoipa::path(
    get,
    path = "/api/activity/summary",
    tag = "activity",
    summary = "The caller's activity counted by action, source and day.",
    params(SummaryQuery),
    responses(
        (status = 200, description = "The summary.", body = ActivitySummaryView),
    ),
)]
pub(crate) async fn summary(
    activity: web::Data<DieselActivityRepository>,
    caller: Caller,
    params: web::Query<SummaryQuery>,
) -> Result<web::Json<ActivitySummaryView>, ApiError> {
    let days = params.days()?;
    let since = SystemClock.now() - time::Duration::days(i64::from(days));
    let summary = activity.summary(caller.user_id, since).await?;
    Ok(web::Json(ActivitySummaryView::new(days, &summary)))
}
