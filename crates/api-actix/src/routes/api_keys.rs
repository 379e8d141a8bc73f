//! `/api/me/api-keys`: personal API keys — created (the key shown once), listed, revoked.

use super::declaration::Route;
use crate::answers::{Created, NoContent};
use crate::auth::policy::Policy;
use actix_web::{HttpMessage, HttpRequest, web};
use domain::ids::ApiKeyId;

use crate::activity::Action;
use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::extract::ApiJson;
use crate::requests::account::ApiKeyRequest;
use crate::service_types::{Accounts, Authenticator};
use crate::views::account::{ApiKeyCreated, ApiKeyView};
use credentials::secrets;

/// The routes of this file, mounted under `/api/me` in this order (see `routes::api`).
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(Policy::Session, create, __path_create),
        Route::new(Policy::SignedIn, list, __path_list),
        Route::new(Policy::Session, revoke, __path_revoke),
    ]
}

#[utoipa::path(
    post,
    path = "/api/me/api-keys",
    tag = "account",
    summary = "Create a personal API key.",
    request_body = ApiKeyRequest,
    responses(
        (status = 201, description = "The key, shown this once.", body = ApiKeyCreated),
    ),
)]
pub(crate) async fn create(
    accounts: web::Data<Accounts>,
    caller: Caller,
    body: ApiJson<ApiKeyRequest>,
    req: HttpRequest,
) -> Result<Created<ApiKeyCreated>, ApiError> {
    req.extensions_mut().insert(Action("api_key.create"));
    let new = body.new_key()?;
    let (key, prefix) = secrets::new_api_key()
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("no randomness: {e}")))?;
    let stored = accounts
        .create_api_key(caller.user_id, new, prefix, secrets::hash(&key))
        .await?;
    Ok(Created(ApiKeyCreated::new(&stored, &key)))
}

#[utoipa::path(
    get,
    path = "/api/me/api-keys",
    tag = "account",
    summary = "The caller's API keys (never the secret).",
    responses(
        (status = 200, description = "The keys.", body = [ApiKeyView]),
    ),
)]
pub(crate) async fn list(
    accounts: web::Data<Accounts>,
    caller: Caller,
) -> Result<web::Json<Vec<ApiKeyView>>, ApiError> {
    let keys = accounts.api_keys(caller.user_id).await?;
    let items: Vec<ApiKeyView> = keys.iter().map(Into::into).collect();
    Ok(web::Json(items))
}

#[utoipa::path(
    delete,
    path = "/api/me/api-keys/{id}",
    tag = "account",
    summary = "Revoke an API key.",
    params(("id" = String, Path, description = "The key's id.")),
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
    req: HttpRequest,
) -> Result<NoContent, ApiError> {
    req.extensions_mut().insert(Action("api_key.revoke"));
    let id: ApiKeyId = id.parse().map_err(|_| ApiError::NotFound)?;
    accounts.revoke_api_key(caller.user_id, id).await?;
    auth.cache.forget_api_keys();
    Ok(NoContent)
}
