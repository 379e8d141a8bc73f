//! `/coaching/*`: the caller's preferences (derived, overridden, regenerated), check-ins (list,
//! create now, respond once) and the admin's run of the due check-ins.

use super::declaration::Route;
use crate::answers::Created;
use crate::auth::policy::Policy;
use actix_web::{HttpMessage, HttpRequest, web};
use domain::account::KeyScope;
use domain::ids::CheckInId;
use domain::services::coaching::{CreateCheckInError, PreferencesError, RespondError};

use crate::activity::Action;
use crate::auth::{AdminCaller, Caller};
use crate::error::{ApiError, ErrorBody};
use crate::extract::ApiJson;
use crate::requests::coaching::{CheckInResponseRequest, PreferencesRequest};
use crate::requests::page::PageQuery;
use crate::service_types::{Accounts, Coaching};
use crate::views::coaching::{CheckInPage, CheckInView, PreferencesView, RunReportView};
use service_metrics::CheckInOrigin;
use service_metrics::Metrics;

/// The routes of this file, mounted under `/coaching` in this order (see `routes::api`).
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(
            Policy::Key(KeyScope::Coaching),
            preferences,
            __path_preferences,
        ),
        Route::new(Policy::SignedIn, set_preferences, __path_set_preferences),
        Route::new(Policy::SignedIn, regenerate, __path_regenerate),
        Route::new(Policy::Key(KeyScope::Coaching), checkins, __path_checkins),
        Route::new(
            Policy::Key(KeyScope::Coaching),
            create_checkin,
            __path_create_checkin,
        ),
        Route::new(Policy::Key(KeyScope::Coaching), respond, __path_respond),
        Route::new(Policy::SignedIn, run, __path_run),
    ]
}

impl From<PreferencesError> for ApiError {
    fn from(e: PreferencesError) -> Self {
        match e {
            PreferencesError::NoProfile => Self::NotFound,
            PreferencesError::Repo(e) => e.into(),
        }
    }
}

#[utoipa::path(
    get,
    path = "/coaching/preferences",
    tag = "coaching",
    summary = "The coaching preferences (derived from the triad until overridden).",
    responses(
        (status = 200, description = "The preferences.", body = PreferencesView),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
    ),
)]
pub(crate) async fn preferences(
    coaching: web::Data<Coaching>,
    caller: Caller,
) -> Result<web::Json<PreferencesView>, ApiError> {
    let preferences = coaching.preferences(caller.user_id).await?;
    Ok(web::Json(PreferencesView::from(&preferences)))
}

#[utoipa::path(
    put,
    path = "/coaching/preferences",
    tag = "coaching",
    summary = "Override the preferences.",
    request_body = PreferencesRequest,
    responses(
        (status = 200, description = "Stored with `source: override`.", body = PreferencesView),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
    ),
)]
pub(crate) async fn set_preferences(
    coaching: web::Data<Coaching>,
    caller: Caller,
    body: ApiJson<PreferencesRequest>,
    req: HttpRequest,
) -> Result<web::Json<PreferencesView>, ApiError> {
    req.extensions_mut().insert(Action("preferences.set"));
    let preferences = coaching
        .set_preferences(caller.user_id, body.into_inner().into())
        .await?;
    Ok(web::Json(PreferencesView::from(&preferences)))
}

#[utoipa::path(
    post,
    path = "/coaching/preferences/regenerate",
    tag = "coaching",
    summary = "Re-derive the preferences from the triad.",
    responses(
        (status = 200, description = "Stored with `source: derived`.", body = PreferencesView),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
    ),
)]
pub(crate) async fn regenerate(
    coaching: web::Data<Coaching>,
    caller: Caller,
    req: HttpRequest,
) -> Result<web::Json<PreferencesView>, ApiError> {
    req.extensions_mut()
        .insert(Action("preferences.regenerate"));
    let preferences = coaching.regenerate(caller.user_id).await?;
    Ok(web::Json(PreferencesView::from(&preferences)))
}

#[utoipa::path(
    get,
    path = "/coaching/checkins",
    tag = "coaching",
    summary = "The check-ins, newest first.",
    params(PageQuery),
    responses(
        (status = 200, description = "A page.", body = CheckInPage),
    ),
)]
pub(crate) async fn checkins(
    coaching: web::Data<Coaching>,
    caller: Caller,
    params: web::Query<PageQuery>,
) -> Result<web::Json<CheckInPage>, ApiError> {
    let (limit, before) = params.parse()?;
    let page = coaching.checkins(caller.user_id, limit, before).await?;
    Ok(web::Json(CheckInPage::from(&page)))
}

#[utoipa::path(
    post,
    path = "/coaching/checkins",
    tag = "coaching",
    summary = "Write a check-in now.",
    responses(
        (status = 201, description = "The check-in.", body = CheckInView),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
        (status = 409, description = "`profile_not_affirmed`.", body = ErrorBody),
        (status = 429, description = "Too many requests; `Retry-After` says when to try again.", body = ErrorBody),
    ),
)]
pub(crate) async fn create_checkin(
    accounts: web::Data<Accounts>,
    coaching: web::Data<Coaching>,
    metrics: web::Data<Metrics>,
    caller: Caller,
    req: HttpRequest,
) -> Result<Created<CheckInView>, ApiError> {
    req.extensions_mut().insert(Action("checkin.create"));
    // The observation covers the person's own calendar days.
    let zone = accounts.time_zone(caller.user_id).await?;
    match coaching.create_checkin(caller.user_id, &zone).await {
        Ok(checkin) => {
            metrics.checkins_created(CheckInOrigin::Manual, 1);
            Ok(Created(CheckInView::from(&checkin)))
        }
        Err(CreateCheckInError::NoProfile) => Err(ApiError::NotFound),
        Err(CreateCheckInError::NotAffirmed) => Err(ApiError::Conflict {
            code: "profile_not_affirmed",
            message: "Affirm your profile before asking for a check-in.",
        }),
        Err(CreateCheckInError::Repo(e)) => Err(e.into()),
    }
}

#[utoipa::path(
    post,
    path = "/coaching/checkins/{id}/response",
    tag = "coaching",
    summary = "Answer a check-in.",
    request_body = CheckInResponseRequest,
    params(("id" = String, Path, description = "The check-in's id.")),
    responses(
        (status = 200, description = "The check-in with the answer.", body = CheckInView),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
        (status = 409, description = "`already_responded`.", body = ErrorBody),
    ),
)]
pub(crate) async fn respond(
    coaching: web::Data<Coaching>,
    caller: Caller,
    id: web::Path<String>,
    body: ApiJson<CheckInResponseRequest>,
    req: HttpRequest,
) -> Result<web::Json<CheckInView>, ApiError> {
    req.extensions_mut().insert(Action("checkin.respond"));
    // An id that cannot exist names no check-in of the caller's.
    let id: CheckInId = id.parse().map_err(|_| ApiError::NotFound)?;
    let CheckInResponseRequest { still_valid, note } = body.into_inner();
    match coaching
        .respond(caller.user_id, id, still_valid, note)
        .await
    {
        Ok(checkin) => Ok(web::Json(CheckInView::from(&checkin))),
        Err(RespondError::NotFound) => Err(ApiError::NotFound),
        Err(RespondError::AlreadyResponded(_)) => Err(ApiError::Conflict {
            code: "already_responded",
            message: "This check-in already has your answer.",
        }),
        Err(RespondError::Repo(e)) => Err(e.into()),
    }
}

#[utoipa::path(
    post,
    path = "/coaching/run",
    tag = "coaching",
    summary = "Run the due check-ins now (admins only).",
    responses(
        (status = 200, description = "What the run did.", body = RunReportView),
        (status = 403, description = "Not an admin, or a cookie write from a foreign origin.", body = ErrorBody),
    ),
)]
pub(crate) async fn run(
    coaching: web::Data<Coaching>,
    metrics: web::Data<Metrics>,
    _admin: AdminCaller,
    req: HttpRequest,
) -> Result<web::Json<RunReportView>, ApiError> {
    req.extensions_mut().insert(Action("coaching.run"));
    let report = coaching.run_due().await?;
    metrics.checkins_created(CheckInOrigin::Batch, report.created);
    tracing::info!(
        considered = report.considered,
        created = report.created,
        "due check-ins run"
    );
    Ok(web::Json(RunReportView::from(&report)))
}
