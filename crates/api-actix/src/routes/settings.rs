//! `/api/me/settings`: the person's account settings — their time zone, whose calendar days
//! and weeks the work patterns are dated in.

use super::declaration::Route;
use crate::auth::policy::Policy;
use actix_web::{HttpMessage, HttpRequest, web};
use domain::services::account::SetTimeZoneError;

use crate::activity::Action;
use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::extract::ApiJson;
use crate::requests::settings::SettingsRequest;
use crate::service_types::Accounts;
use crate::views::settings::SettingsView;

/// The routes of this file, mounted under `/api/me` in this order (see `routes::api`).
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(Policy::SignedIn, get, __path_get),
        Route::new(Policy::SignedIn, put, __path_put),
    ]
}

impl From<SetTimeZoneError> for ApiError {
    fn from(e: SetTimeZoneError) -> Self {
        match e {
            SetTimeZoneError::Unknown(why) => Self::invalid("time_zone", why),
            SetTimeZoneError::NoUser => Self::Unauthenticated,
            SetTimeZoneError::Repo(e) => e.into(),
        }
    }
}

#[utoipa::path(
    get,
    path = "/api/me/settings",
    tag = "account",
    summary = "The person's settings: their time zone.",
    responses(
        (status = 200, description = "The settings.", body = SettingsView),
    ),
)]
pub(crate) async fn get(
    accounts: web::Data<Accounts>,
    caller: Caller,
) -> Result<web::Json<SettingsView>, ApiError> {
    let zone = accounts.time_zone(caller.user_id).await?;
    Ok(web::Json(SettingsView::from(&zone)))
}

#[utoipa::path(
    put,
    path = "/api/me/settings",
    tag = "account",
    summary = "Set the person's time zone (an IANA name).",
    request_body = SettingsRequest,
    responses(
        (status = 200, description = "The settings, as stored.", body = SettingsView),
        (status = 422, description = "`validation_failed`: an unknown time zone.", body = ErrorBody),
    ),
)]
pub(crate) async fn put(
    accounts: web::Data<Accounts>,
    caller: Caller,
    body: ApiJson<SettingsRequest>,
    req: HttpRequest,
) -> Result<web::Json<SettingsView>, ApiError> {
    req.extensions_mut().insert(Action("settings.update"));
    let zone = accounts
        .set_time_zone(caller.user_id, &body.time_zone)
        .await?;
    Ok(web::Json(SettingsView::from(&zone)))
}
