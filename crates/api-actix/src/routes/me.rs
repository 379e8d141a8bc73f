//! `/api/me`: the caller's account — read, delete (with all data), export, stats.

use super::declaration::Route;
use crate::auth::policy::Policy;
use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};
use domain::account::KeyScope;
use domain::services::account::RevokeError;

use crate::activity::Action;
use crate::auth::Caller;
use crate::auth::cookies::CookieJar;
use crate::error::ApiError;
use crate::service_types::{Accounts, Authenticator};
use crate::views::account::{StatsView, UserView};
use crate::views::export::ExportView;

/// The routes of this file, mounted under `/api/me` in this order (see `routes::api`).
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(Policy::Key(KeyScope::Integration), get, __path_get),
        Route::new(Policy::Session, delete, __path_delete),
        Route::new(Policy::Session, export, __path_export),
        Route::new(Policy::SignedIn, stats, __path_stats),
    ]
}

#[utoipa::path(
    get,
    path = "/api/me",
    tag = "account",
    summary = "The signed-in person.",
    responses(
        (status = 200, description = "The person.", body = UserView),
    ),
)]
pub(crate) async fn get(
    accounts: web::Data<Accounts>,
    auth: web::Data<Authenticator>,
    caller: Caller,
) -> Result<web::Json<UserView>, ApiError> {
    let user = match auth.cache.user(caller.user_id) {
        Some(user) => user,
        None => {
            let user = accounts
                .user(caller.user_id)
                .await?
                .ok_or(ApiError::Unauthenticated)?;
            auth.cache.remember_user(user.clone());
            user
        }
    };
    Ok(web::Json(UserView::new(&user, caller.is_admin)))
}

#[utoipa::path(
    delete,
    path = "/api/me",
    tag = "account",
    summary = "Delete the account and all its data.",
    responses(
        (status = 204, description = "Deleted; cookies cleared."),
    ),
)]
pub(crate) async fn delete(
    accounts: web::Data<Accounts>,
    auth: web::Data<Authenticator>,
    cookies: web::Data<CookieJar>,
    caller: Caller,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    req.extensions_mut().insert(Action("account.delete"));
    match accounts.delete_account(caller.user_id).await {
        Ok(()) | Err(RevokeError::NotFound) => {}
        Err(RevokeError::Repo(e)) => return Err(e.into()),
    }
    auth.cache.forget_everything();
    // The activity entry of this very request must not point at the deleted user.
    req.extensions_mut().remove::<Caller>();
    req.extensions_mut()
        .remove::<crate::auth::caller::Identified>();
    let mut response = HttpResponse::NoContent();
    for cookie in cookies.cleared() {
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
        (status = 200, description = "The export.", body = ExportView),
    ),
)]
pub(crate) async fn export(
    accounts: web::Data<Accounts>,
    caller: Caller,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    req.extensions_mut().insert(Action("account.export"));
    let data = accounts.export(caller.user_id).await?;
    let document = ExportView::new(
        &data,
        caller.is_admin,
        caller.session_id,
        time::OffsetDateTime::now_utc(),
    );
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
        (status = 200, description = "The counts.", body = StatsView),
    ),
)]
pub(crate) async fn stats(
    accounts: web::Data<Accounts>,
    caller: Caller,
) -> Result<web::Json<StatsView>, ApiError> {
    let stats = accounts.stats(caller.user_id).await?;
    Ok(web::Json(StatsView::from(&stats)))
}
