//! `/api/me`: the caller's account — read, delete (with all data), export, stats.

use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};
use domain::account::Source;
use domain::services::account::RevokeError;
use serde_json::json;

use super::rfc3339;
use crate::activity::Action;
use crate::auth::Caller;
use crate::error::ApiError;
use crate::state::AppState;
use crate::views;

/// Mounted under `/api/me` (see `routes::configure`).
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("", web::get().to(get))
        .route("", web::delete().to(delete))
        .route("/export", web::get().to(export))
        .route("/stats", web::get().to(stats));
}

#[utoipa::path(
    get,
    path = "/api/me",
    tag = "account",
    summary = "The signed-in person.",
    responses(
        (status = 200, description = "The person.", body = crate::openapi::schemas::Me),
    ),
    security(("api_key" = []), ("bearer" = []), ("cookie" = [])),
)]
pub(crate) async fn get(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let user = match state.credentials.user(caller.user_id) {
        Some(user) => user,
        None => {
            let user = state
                .accounts
                .user(caller.user_id)
                .await?
                .ok_or(ApiError::Unauthenticated)?;
            state.credentials.remember_user(user.clone());
            user
        }
    };
    Ok(HttpResponse::Ok().json(views::user(&user, caller.is_admin)))
}

#[utoipa::path(
    delete,
    path = "/api/me",
    tag = "account",
    summary = "Delete the account and all its data.",
    responses(
        (status = 204, description = "Deleted; cookies cleared."),
    ),
    security(("api_key" = []), ("bearer" = []), ("cookie" = [])),
)]
pub(crate) async fn delete(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    req.extensions_mut().insert(Action("account.delete"));
    match state.accounts.delete_account(caller.user_id).await {
        Ok(()) | Err(RevokeError::NotFound) => {}
        Err(RevokeError::Repo(e)) => return Err(e.into()),
    }
    state.credentials.forget_everything();
    // The activity entry of this very request must not point at the deleted user.
    req.extensions_mut().remove::<Caller>();
    req.extensions_mut()
        .remove::<crate::auth::caller::Identified>();
    let mut response = HttpResponse::NoContent();
    for cookie in state.cookies.cleared() {
        response.cookie(cookie);
    }
    Ok(response.finish())
}

#[utoipa::path(
    get,
    path = "/api/me/export",
    tag = "account",
    summary = "Every record of the caller's, as one document.",
    responses(
        (status = 200, description = "The export.", body = crate::openapi::schemas::Export),
    ),
    security(("api_key" = []), ("bearer" = []), ("cookie" = [])),
)]
pub(crate) async fn export(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    req.extensions_mut().insert(Action("account.export"));
    let data = state.accounts.export(caller.user_id).await?;
    let document = json!({
        "exported_at": rfc3339(time::OffsetDateTime::now_utc()),
        "user": views::user(&data.user, caller.is_admin),
        "conversations": data.conversations.iter().map(views::conversation).collect::<Vec<_>>(),
        "profile": data.profile.as_ref().map(views::profile),
        "revisions": data.revisions.iter().map(views::revision).collect::<Vec<_>>(),
        "reflection": data.reflection.iter().map(views::reflection_message).collect::<Vec<_>>(),
        "coaching_preferences": data.preferences.as_ref().map(views::preferences),
        "checkins": data.checkins.iter().map(views::checkin).collect::<Vec<_>>(),
        "task_mappings": data.task_mappings.iter().map(views::task_mapping).collect::<Vec<_>>(),
        "activity": data.activity.iter().map(views::activity).collect::<Vec<_>>(),
        "sessions": data.sessions.iter().map(|s| views::session(s, caller.session_id == Some(s.id))).collect::<Vec<_>>(),
        "api_keys": data.api_keys.iter().map(views::api_key).collect::<Vec<_>>(),
    });
    Ok(HttpResponse::Ok()
        .insert_header((
            "Content-Disposition",
            "attachment; filename=\"discovery-export.json\"",
        ))
        .json(document))
}

#[utoipa::path(
    get,
    path = "/api/me/stats",
    tag = "account",
    summary = "Counts of the caller's requests and records.",
    responses(
        (status = 200, description = "The counts.", body = crate::openapi::schemas::Stats),
    ),
    security(("api_key" = []), ("bearer" = []), ("cookie" = [])),
)]
pub(crate) async fn stats(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let stats = state.accounts.stats(caller.user_id).await?;
    let by_source: serde_json::Map<String, serde_json::Value> = Source::ALL
        .iter()
        .map(|s| {
            (
                s.key().to_owned(),
                json!(stats.by_source.get(s).copied().unwrap_or(0)),
            )
        })
        .collect();
    Ok(HttpResponse::Ok().json(json!({
        "total_requests": stats.total_requests,
        "requests_last_30_days": stats.requests_since,
        "by_source": by_source,
        "task_mappings": stats.task_mappings,
        "checkins": stats.checkins,
        "reflection_turns": stats.reflection_turns,
        "first_activity_at": stats.first_activity_at.map(rfc3339),
        "last_activity_at": stats.last_activity_at.map(rfc3339),
    })))
}
