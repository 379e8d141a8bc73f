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

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/me/api-keys", web::post().to(create))
        .route("/api/me/api-keys", web::get().to(list))
        .route("/api/me/api-keys/{id}", web::delete().to(revoke));
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateKey {
    name: String,
}

async fn create(
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

async fn list(state: web::Data<AppState>, caller: Caller) -> Result<HttpResponse, ApiError> {
    let keys = state.accounts.api_keys(caller.user_id).await?;
    let items: Vec<_> = keys.iter().map(views::api_key).collect();
    Ok(HttpResponse::Ok().json(items))
}

async fn revoke(
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
