//! `GET /discovery/profile/me/reflect/preview?message=...` (or `?opener=true`): the exact request
//! body the coach's next turn would send to the language model, without sending it or storing
//! anything. `POST` with the body of `/reflect` answers the same and keeps the message out of the
//! URL (and so out of proxies' access logs and browser history). See docs/llm.md.
//!
//! The answer is `{"provider", "endpoint", "request", "note"}`: with the offline engine
//! `{"provider": "offline", "endpoint": null, "request": null, ...}`, because no request is made
//! at all.

use super::declaration::Route;
use crate::auth::policy::Policy;
use actix_web::http::header;
use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};

use crate::activity::Action;
use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::extract::ApiJson;
use crate::requests::profile::ReflectRequest;
use crate::service_types::Profiles;
use crate::views::profile::ReflectPreviewView;
use adapters_llm::LanguageModel;

/// The routes of this file, mounted under `/discovery` in this order (see `routes::api`).
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(Policy::SignedIn, preview_get, __path_preview_get),
        Route::new(Policy::SignedIn, preview_post, __path_preview_post),
    ]
}

#[utoipa::path(
    get,
    path = "/discovery/profile/me/reflect/preview",
    tag = "profile",
    summary = "What the next reflection turn would send to the language model (sent nowhere).",
    params(ReflectRequest),
    responses(
        (status = 200, description = "The request that would be sent.", body = ReflectPreviewView),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
        (status = 409, description = "`profile_locked`: an affirmed profile takes no more reflection.", body = ErrorBody),
    ),
)]
pub(crate) async fn preview_get(
    profiles: web::Data<Profiles>,
    language_model: web::Data<LanguageModel>,
    caller: Caller,
    query: web::Query<ReflectRequest>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    preview(
        (&profiles, &language_model),
        &caller,
        query.into_inner(),
        &req,
    )
    .await
}

#[utoipa::path(
    post,
    path = "/discovery/profile/me/reflect/preview",
    tag = "profile",
    summary = "As the GET, with the reflect body (keeps the message out of URLs).",
    request_body = ReflectRequest,
    responses(
        (status = 200, description = "The request that would be sent.", body = ReflectPreviewView),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
        (status = 409, description = "`profile_locked`: an affirmed profile takes no more reflection.", body = ErrorBody),
    ),
)]
pub(crate) async fn preview_post(
    profiles: web::Data<Profiles>,
    language_model: web::Data<LanguageModel>,
    caller: Caller,
    body: ApiJson<ReflectRequest>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    preview(
        (&profiles, &language_model),
        &caller,
        body.into_inner(),
        &req,
    )
    .await
}

async fn preview(
    (profiles, language_model): (&Profiles, &LanguageModel),
    caller: &Caller,
    turn: ReflectRequest,
    req: &HttpRequest,
) -> Result<HttpResponse, ApiError> {
    req.extensions_mut()
        .insert(Action("profile.reflect_preview"));
    let turn = turn.turn()?;
    let request = profiles.coach_request(caller.user_id, turn).await?;
    let preview = language_model.reflection_preview(&request);
    // The person's own words and profile: never kept by a cache.
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(ReflectPreviewView::new(
            preview.provider,
            preview.endpoint,
            preview.request,
            preview.note,
        )))
}
