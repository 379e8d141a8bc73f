//! `/api/me/api-keys`: personal API keys — created (the key shown once), listed, revoked.

use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};
use domain::account::api_key::ApiKeyName;
use domain::ids::ApiKeyId;
use serde::Deserialize;
use serde_json::json;

use super::rfc3339;
use crate::activity::Action;
use crate::auth::{Caller, secrets};
use crate::error::ApiError;
use crate::extract::ApiJson;
use crate::state::AppState;
use crate::views;

/// Mounted under `/api/me` (see `routes::configure`).
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/api-keys", web::post().to(create))
        .route("/api-keys", web::get().to(list))
        .route("/api-keys/{id}", web::delete().to(revoke));
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CreateKey {
    name: String,
}

#[utoipa::path(
    post,
    path = "/api/me/api-keys",
    tag = "account",
    summary = "Create a personal API key.",
    request_body = crate::openapi::schemas::ApiKeyRequest,
    responses(
        (status = 201, description = "The key, shown this once.", body = crate::openapi::schemas::ApiKeyCreated),
    ),
    security(("api_key" = []), ("bearer" = []), ("cookie" = [])),
)]
pub(crate) async fn create(
    state: web::Data<AppState>,
    caller: Caller,
    body: ApiJson<CreateKey>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    req.extensions_mut().insert(Action("api_key.create"));
    let name = ApiKeyName::non_blank(body.into_inner().name.trim())
        .map_err(|e| ApiError::invalid("name", e))?;
    let (key, prefix) = secrets::new_api_key()
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("no randomness: {e}")))?;
    let stored = state
        .accounts
        .create_api_key(caller.user_id, name, prefix, secrets::hash(&key))
        .await?;
    Ok(HttpResponse::Created().json(json!({
        "id": stored.id,
        "name": stored.name,
        "key": key,
        "prefix": stored.prefix,
        "created_at": rfc3339(stored.created_at),
    })))
}

#[utoipa::path(
    get,
    path = "/api/me/api-keys",
    tag = "account",
    summary = "The caller's API keys (never the secret).",
    responses(
        (status = 200, description = "The keys.", body = [crate::openapi::schemas::ApiKeyView]),
    ),
    security(("api_key" = []), ("bearer" = []), ("cookie" = [])),
)]
pub(crate) async fn list(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let keys = state.accounts.api_keys(caller.user_id).await?;
    let items: Vec<_> = keys.iter().map(views::api_key).collect();
    Ok(HttpResponse::Ok().json(items))
}

#[utoipa::path(
    delete,
    path = "/api/me/api-keys/{id}",
    tag = "account",
    summary = "Revoke an API key.",
    params(("id" = String, Path, description = "The key's id.")),
    responses(
        (status = 204, description = "Revoked."),
        (status = 404, description = "Nothing was found here for this caller.", body = crate::openapi::schemas::ErrorBody),
    ),
    security(("api_key" = []), ("bearer" = []), ("cookie" = [])),
)]
pub(crate) async fn revoke(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    req.extensions_mut().insert(Action("api_key.revoke"));
    let id: ApiKeyId = id.parse().map_err(|_| ApiError::NotFound)?;
    state.accounts.revoke_api_key(caller.user_id, id).await?;
    state.credentials.forget_api_keys();
    Ok(HttpResponse::NoContent().finish())
}
