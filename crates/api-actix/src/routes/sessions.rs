//! `/api/me/sessions`: the caller's open sessions, and revoking one.

use super::declaration::Route;
use crate::auth::policy::Policy;
use actix_web::{HttpResponse, web};
use domain::ids::SessionId;

use crate::activity::Action;
use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;
use crate::views::account::SessionView;

/// The routes of this file, mounted under `/api/me` in this order (see `routes::api`).
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(Policy::SignedIn, list, __path_list),
        Route::new(Policy::Session, revoke, __path_revoke),
    ]
}

#[utoipa::path(
    get,
    path = "/api/me/sessions",
    tag = "account",
    summary = "The caller's sessions.",
    responses(
        (status = 200, description = "The sessions.", body = [SessionView]),
    ),
    security(("api_key" = []), ("bearer" = []), ("cookie" = [])),
)]
pub(crate) async fn list(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let sessions = state.accounts.sessions(caller.user_id).await?;
    let items: Vec<SessionView> = sessions
        .iter()
        .map(|s| SessionView::new(s, caller.session_id == Some(s.id)))
        .collect();
    Ok(HttpResponse::Ok().json(items))
}

#[utoipa::path(
    delete,
    path = "/api/me/sessions/{id}",
    tag = "account",
    summary = "Revoke a session.",
    params(("id" = String, Path, description = "The session's id.")),
    responses(
        (status = 204, description = "Revoked."),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
    ),
    security(("cookie" = [])),
)]
pub(crate) async fn revoke(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
    req: actix_web::HttpRequest,
) -> Result<HttpResponse, ApiError> {
    actix_web::HttpMessage::extensions_mut(&req).insert(Action("session.revoke"));
    let id: SessionId = id.parse().map_err(|_| ApiError::NotFound)?;
    state.accounts.revoke_session(caller.user_id, id).await?;
    state.auth.cache.forget_session(id);
    Ok(HttpResponse::NoContent().finish())
}
