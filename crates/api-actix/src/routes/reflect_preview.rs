//! `GET /discovery/profile/me/reflect/preview?message=...` (or `?opener=true`): the exact request
//! body the coach's next turn would send to the language model, without sending it or storing
//! anything. `POST` with the body of `/reflect` answers the same and keeps the message out of the
//! URL (and so out of proxies' access logs and browser history). See docs/llm.md.
//!
//! The answer is `{"provider", "endpoint", "request", "note"}`: with the offline engine
//! `{"provider": "offline", "endpoint": null, "request": null, ...}`, because no request is made
//! at all.

use actix_web::http::header;
use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};
use domain::reflection::ReflectionTurn;
use domain::services::profile::ReflectError;
use domain::text::MessageText;
use serde::Deserialize;

use crate::activity::Action;
use crate::auth::Caller;
use crate::error::ApiError;
use crate::extract::ApiJson;
use crate::state::AppState;

pub const PATH: &str = "/discovery/profile/me/reflect/preview";

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route(PATH, web::get().to(preview_get))
        .route(PATH, web::post().to(preview_post));
}

/// The turn to preview, as a query string or as the body of `/reflect`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreviewTurn {
    opener: Option<bool>,
    message: Option<String>,
}

impl PreviewTurn {
    /// Exactly one of `opener=true` and a non-blank `message` of at most 4,000 characters, as
    /// for `POST /discovery/profile/me/reflect`.
    fn turn(self) -> Result<ReflectionTurn, ApiError> {
        match (self.opener, self.message) {
            (Some(true), None) => Ok(ReflectionTurn::Opener),
            (None, Some(message)) => MessageText::non_blank(message)
                .map(ReflectionTurn::Message)
                .map_err(|e| ApiError::invalid("message", e)),
            (Some(false), None) => Err(ApiError::invalid(
                "opener",
                "must be true (or send a message instead)",
            )),
            _ => Err(ApiError::invalid(
                "message",
                "send exactly one of opener=true or message=...",
            )),
        }
    }
}

async fn preview_get(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<PreviewTurn>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    preview(&state, &caller, query.into_inner(), &req).await
}

async fn preview_post(
    state: web::Data<AppState>,
    caller: Caller,
    body: ApiJson<PreviewTurn>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    preview(&state, &caller, body.into_inner(), &req).await
}

async fn preview(
    state: &AppState,
    caller: &Caller,
    turn: PreviewTurn,
    req: &HttpRequest,
) -> Result<HttpResponse, ApiError> {
    req.extensions_mut()
        .insert(Action("profile.reflect_preview"));
    let turn = turn.turn()?;
    let request = state
        .profiles
        .coach_request(caller.user_id, turn)
        .await
        .map_err(|e| match e {
            ReflectError::NotFound => ApiError::NotFound,
            ReflectError::Locked => ApiError::Conflict {
                code: "profile_locked",
                message: "Your profile is affirmed and can no longer change.",
            },
            ReflectError::Conflict => ApiError::Conflict {
                code: "conflict",
                message: "The profile changed since you read it; reload and try again.",
            },
            // Preparing a request never asks the coach.
            ReflectError::CoachUnavailable(_) => ApiError::CoachUnavailable,
            ReflectError::Repo(e) => e.into(),
        })?;
    let preview = state.language_model.reflection_preview(&request);
    // The person's own words and profile: never kept by a cache.
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(preview))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(opener: Option<bool>, message: Option<&str>) -> Result<ReflectionTurn, ApiError> {
        PreviewTurn {
            opener,
            message: message.map(str::to_owned),
        }
        .turn()
    }

    #[test]
    fn exactly_one_of_opener_and_message() {
        assert_eq!(turn(Some(true), None).unwrap(), ReflectionTurn::Opener);
        assert!(matches!(
            turn(None, Some("Actually, I teach")).unwrap(),
            ReflectionTurn::Message(_)
        ));
        assert!(turn(Some(true), Some("hi")).is_err());
        assert!(turn(None, None).is_err());
        assert!(turn(Some(false), None).is_err());
        assert!(turn(None, Some("  ")).is_err());
        assert!(turn(None, Some(&"x".repeat(4_001))).is_err());
    }
}
