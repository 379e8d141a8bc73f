//! `/api/me/sessions`: the caller's open sessions, and revoking one.

use super::declaration::Route;
use crate::answers::NoContent;
use crate::auth::policy::Policy;
use actix_web::web;
use domain::ids::SessionId;

use crate::activity::Action;
use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::service_types::{Accounts, Authenticator};
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
)]
pub(crate) async fn list(
    accounts: web::Data<Accounts>,
    caller: Caller,
) -> Result<web::Json<Vec<SessionView>>, ApiError> {
    let sessions = accounts.sessions(caller.user_id).await?;
    let items: Vec<SessionView> = sessions
        .iter()
        .map(|s| SessionView::new(s, caller.session_id == Some(s.id)))
        .collect();
    Ok(web::Json(items))
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
)]
pub(crate) async fn revoke(
    accounts: web::Data<Accounts>,
    auth: web::Data<Authenticator>,
    caller: Caller,
    id: web::Path<String>,
    req: actix_web::HttpRequest,
) -> Result<NoContent, ApiError> {
    actix_web::HttpMessage::extensions_mut(&req).insert(Action("session.revoke"));
    let id: SessionId = id.parse().map_err(|_| ApiError::NotFound)?;
    accounts.revoke_session(caller.user_id, id).await?;
    auth.cache.forget_session(id);
    Ok(NoContent)
}
