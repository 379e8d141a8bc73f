//! `/integration/work-patterns/weekly`: minutes per foundation in each of the person's last
//! local weeks (Monday to Sunday in their time zone), for the dashboard's trend.

use super::declaration::Route;
use crate::auth::policy::Policy;
use actix_web::web;
use domain::account::KeyScope;
use domain::integration::Weeks;
use domain::services::integration::WeeklyError;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::requests::integration::WeeklyQuery;
use crate::service_types::{Accounts, Integration};
use crate::views::integration::WeeklyView;

/// The routes of this file, mounted under `/integration` in this order (see `routes::api`).
pub fn routes() -> Vec<Route> {
    vec![Route::new(
        Policy::Key(KeyScope::Integration),
        weekly,
        __path_weekly,
    )]
}

#[utoipa::path(
    get,
    path = "/integration/work-patterns/weekly",
    tag = "integration",
    summary = "Minutes per foundation in each of the last local weeks.",
    params(WeeklyQuery),
    responses(
        (status = 200, description = "Exactly the weeks asked for, oldest first, ending with the current one; their sums equal those of `daily` over the same dates.", body = WeeklyView),
    ),
)]
pub(crate) async fn weekly(
    accounts: web::Data<Accounts>,
    integration: web::Data<Integration>,
    caller: Caller,
    params: web::Query<WeeklyQuery>,
) -> Result<web::Json<WeeklyView>, ApiError> {
    let weeks = params.weeks.unwrap_or(i64::from(Weeks::DEFAULT));
    let zone = accounts.time_zone(caller.user_id).await?;
    match integration.weekly(caller.user_id, weeks, &zone).await {
        Ok(pattern) => Ok(web::Json(WeeklyView::from(&pattern))),
        Err(WeeklyError::InvalidWeeks(e)) => Err(ApiError::invalid("weeks", e)),
        Err(WeeklyError::Repo(e)) => Err(e.into()),
    }
}
