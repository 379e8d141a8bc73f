//! `/discovery/profile/me`: the caller's profile — read, edit (`If-Match` on its version),
//! affirm (lock), reopen (unlock), restore a revision, reflect with the coach, and the
//! reflection dialogue and revision history.

use super::declaration::Route;
use crate::answers::Versioned;
use crate::auth::policy::Policy;
use actix_web::http::header::{self, HeaderMap};
use actix_web::{HttpMessage, HttpRequest, web};
use domain::account::KeyScope;
use domain::profile::Profile;
use domain::services::profile::{ChangeProfileError, ReadProfileError, ReflectError};

use crate::activity::Action;
use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::extract::ApiJson;
use crate::requests::profile::{
    IfMatchHeader, ProfileEditRequest, ReflectRequest, RevisionNumberPath,
};
use crate::service_types::Profiles;
use crate::views::profile::{ProfileView, ReflectReplyView, ReflectionMessageView, RevisionView};
use service_metrics::LlmOperation;
use service_metrics::Metrics;

/// The routes of this file, mounted under `/discovery` in this order (see `routes::api`).
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(Policy::Key(KeyScope::ProfileRead), get, __path_get),
        Route::new(Policy::SignedIn, edit, __path_edit),
        Route::new(Policy::SignedIn, affirm, __path_affirm),
        Route::new(Policy::SignedIn, reopen, __path_reopen),
        Route::new(Policy::SignedIn, restore, __path_restore),
        Route::new(Policy::SignedIn, reflect, __path_reflect),
        Route::new(
            Policy::Key(KeyScope::ProfileRead),
            reflection,
            __path_reflection,
        ),
        Route::new(
            Policy::Key(KeyScope::ProfileRead),
            revisions,
            __path_revisions,
        ),
    ]
}

/// The profile with its version as the entity tag, so a client can send it back in `If-Match`.
fn profile_response(profile: &Profile) -> Versioned<ProfileView> {
    Versioned {
        version: profile.version,
        body: ProfileView::from(profile),
    }
}

impl From<ReadProfileError> for ApiError {
    fn from(e: ReadProfileError) -> Self {
        match e {
            ReadProfileError::NotFound => Self::NotFound,
            ReadProfileError::Repo(e) => e.into(),
        }
    }
}

impl From<ChangeProfileError> for ApiError {
    fn from(e: ChangeProfileError) -> Self {
        match e {
            ChangeProfileError::NotFound | ChangeProfileError::NoSuchRevision => Self::NotFound,
            ChangeProfileError::Locked => ApiError::PROFILE_LOCKED,
            ChangeProfileError::VersionMismatch => ApiError::STALE,
            ChangeProfileError::Repo(e) => e.into(),
        }
    }
}

#[utoipa::path(
    get,
    path = "/discovery/profile/me",
    tag = "profile",
    summary = "The profile.",
    responses(
        (status = 200, description = "The profile; `ETag` is its version.", body = ProfileView),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
    ),
)]
pub(crate) async fn get(
    profiles: web::Data<Profiles>,
    caller: Caller,
) -> Result<Versioned<ProfileView>, ApiError> {
    let profile = profiles.get(caller.user_id).await?;
    Ok(profile_response(&profile))
}

/// `If-Match: "<version>"` (a weak tag or a bare number is read the same; `*` matches any).
fn if_match(headers: &HeaderMap) -> Result<Option<i64>, ApiError> {
    let Some(value) = headers.get(header::IF_MATCH) else {
        return Ok(None);
    };
    let invalid = || ApiError::invalid("If-Match", "must be the profile version, e.g. \"3\"");
    let raw = value.to_str().map_err(|_| invalid())?.trim();
    if raw == "*" {
        return Ok(None);
    }
    let tag = raw.strip_prefix("W/").unwrap_or(raw);
    let tag = tag
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(tag);
    tag.parse::<i64>().map(Some).map_err(|_| invalid())
}

#[utoipa::path(
    patch,
    path = "/discovery/profile/me",
    tag = "profile",
    summary = "Edit any of the seven prose fields (a `manual_edit` revision).",
    description = "A blank love, strength, mission, vocation or overlap text is refused (422 \
                   naming the field) and changes nothing; a goal set to null or to blank text \
                   means \"I have no such goal\".",
    request_body = ProfileEditRequest,
    params(IfMatchHeader),
    responses(
        (status = 200, description = "The updated profile.", body = ProfileView),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
        (status = 409, description = "`profile_locked`, or `conflict` when `If-Match` is stale.", body = ErrorBody),
        (status = 429, description = "Too many requests; `Retry-After` says when to try again.", body = ErrorBody),
    ),
)]
pub(crate) async fn edit(
    profiles: web::Data<Profiles>,
    caller: Caller,
    body: ApiJson<ProfileEditRequest>,
    req: HttpRequest,
) -> Result<Versioned<ProfileView>, ApiError> {
    req.extensions_mut().insert(Action("profile.edit"));
    let version = if_match(req.headers())?;
    let edit = body.into_inner().into_edit()?;
    let profile = profiles.edit(caller.user_id, edit, version).await?;
    Ok(profile_response(&profile))
}

#[utoipa::path(
    post,
    path = "/discovery/profile/me/affirm",
    tag = "profile",
    summary = "Affirm (lock) the profile.",
    responses(
        (status = 200, description = "The locked profile (unchanged when already locked).", body = ProfileView),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
        (status = 429, description = "Too many requests; `Retry-After` says when to try again.", body = ErrorBody),
    ),
)]
pub(crate) async fn affirm(
    profiles: web::Data<Profiles>,
    caller: Caller,
    req: HttpRequest,
) -> Result<Versioned<ProfileView>, ApiError> {
    req.extensions_mut().insert(Action("profile.affirm"));
    let profile = profiles.affirm(caller.user_id).await?;
    Ok(profile_response(&profile))
}

#[utoipa::path(
    post,
    path = "/discovery/profile/me/reopen",
    tag = "profile",
    summary = "Reopen (unlock) an affirmed profile to revisit it.",
    description = "The profile takes edits, reflection and a new discovery again; check-ins \
                   wait until it is affirmed again. No revision is recorded (no text changes).",
    responses(
        (status = 200, description = "The unlocked profile (unchanged when already unlocked).", body = ProfileView),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
        (status = 429, description = "Too many requests; `Retry-After` says when to try again.", body = ErrorBody),
    ),
)]
pub(crate) async fn reopen(
    profiles: web::Data<Profiles>,
    caller: Caller,
    req: HttpRequest,
) -> Result<Versioned<ProfileView>, ApiError> {
    req.extensions_mut().insert(Action("profile.reopen"));
    let profile = profiles.reopen(caller.user_id).await?;
    Ok(profile_response(&profile))
}

#[utoipa::path(
    post,
    path = "/discovery/profile/me/revisions/{number}/restore",
    tag = "profile",
    summary = "Restore the seven fields of a revision (a `manual_edit` revision).",
    description = "The seven editable fields and their sources become that revision's snapshot; \
                   type and triad stay. The new revision's note is `restored revision N`.",
    params(RevisionNumberPath, IfMatchHeader),
    responses(
        (status = 200, description = "The restored profile.", body = ProfileView),
        (status = 404, description = "No profile, or no revision of that number.", body = ErrorBody),
        (status = 409, description = "`profile_locked`, or `conflict` when `If-Match` is stale.", body = ErrorBody),
        (status = 422, description = "`If-Match` is not a version.", body = ErrorBody),
        (status = 429, description = "Too many requests; `Retry-After` says when to try again.", body = ErrorBody),
    ),
)]
pub(crate) async fn restore(
    profiles: web::Data<Profiles>,
    caller: Caller,
    number: web::Path<RevisionNumberPath>,
    req: HttpRequest,
) -> Result<Versioned<ProfileView>, ApiError> {
    req.extensions_mut().insert(Action("profile.restore"));
    let number = number.number()?;
    let version = if_match(req.headers())?;
    let profile = profiles.restore(caller.user_id, number, version).await?;
    Ok(profile_response(&profile))
}

#[utoipa::path(
    post,
    path = "/discovery/profile/me/reflect",
    tag = "profile",
    summary = "One turn with the reflection coach.",
    request_body = ReflectRequest,
    responses(
        (status = 200, description = "The coach's reply and any revisions applied.", body = ReflectReplyView),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
        (status = 409, description = "`profile_locked`.", body = ErrorBody),
        (status = 429, description = "Too many requests; `Retry-After` says when to try again.", body = ErrorBody),
        (status = 502, description = "The language model failed (after one retry); nothing was changed.", body = ErrorBody),
    ),
)]
pub(crate) async fn reflect(
    profiles: web::Data<Profiles>,
    metrics: web::Data<Metrics>,
    caller: Caller,
    body: ApiJson<ReflectRequest>,
    req: HttpRequest,
) -> Result<web::Json<ReflectReplyView>, ApiError> {
    req.extensions_mut().insert(Action("profile.reflect"));
    let turn = body.into_inner().turn()?;
    let outcome = match profiles.reflect(caller.user_id, turn).await {
        Ok(outcome) => outcome,
        Err(e) => {
            if let ReflectError::CoachUnavailable(failure) = &e {
                metrics.llm_failed(LlmOperation::Reflect, failure);
            }
            return Err(e.into());
        }
    };
    Ok(web::Json(ReflectReplyView::from(&outcome)))
}

impl From<ReflectError> for ApiError {
    fn from(e: ReflectError) -> Self {
        match e {
            ReflectError::NotFound => Self::NotFound,
            ReflectError::Locked => ApiError::PROFILE_LOCKED,
            ReflectError::Conflict => ApiError::STALE,
            ReflectError::CoachUnavailable(e) => {
                tracing::warn!(error = %e, "coach unavailable");
                Self::CoachUnavailable
            }
            ReflectError::Repo(e) => e.into(),
        }
    }
}

#[utoipa::path(
    get,
    path = "/discovery/profile/me/reflection",
    tag = "profile",
    summary = "The reflection dialogue, oldest first.",
    responses(
        (status = 200, description = "The messages.", body = [ReflectionMessageView]),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
    ),
)]
pub(crate) async fn reflection(
    profiles: web::Data<Profiles>,
    caller: Caller,
) -> Result<web::Json<Vec<ReflectionMessageView>>, ApiError> {
    let messages = profiles.reflection(caller.user_id).await?;
    let messages: Vec<ReflectionMessageView> = messages.iter().map(Into::into).collect();
    Ok(web::Json(messages))
}

#[utoipa::path(
    get,
    path = "/discovery/profile/me/revisions",
    tag = "profile",
    summary = "The revision history, oldest first.",
    responses(
        (status = 200, description = "The revisions.", body = [RevisionView]),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
    ),
)]
pub(crate) async fn revisions(
    profiles: web::Data<Profiles>,
    caller: Caller,
) -> Result<web::Json<Vec<RevisionView>>, ApiError> {
    let revisions = profiles.revisions(caller.user_id).await?;
    let revisions: Vec<RevisionView> = revisions.iter().map(Into::into).collect();
    Ok(web::Json(revisions))
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::header::HeaderValue;

    fn headers(value: &str) -> HeaderMap {
        let mut map = HeaderMap::new();
        map.insert(header::IF_MATCH, HeaderValue::from_str(value).unwrap());
        map
    }

    #[test]
    fn if_match_reads_strong_weak_and_bare_versions() {
        assert_eq!(if_match(&HeaderMap::new()).unwrap(), None);
        assert_eq!(if_match(&headers("\"3\"")).unwrap(), Some(3));
        assert_eq!(if_match(&headers("W/\"4\"")).unwrap(), Some(4));
        assert_eq!(if_match(&headers("5")).unwrap(), Some(5));
        assert_eq!(if_match(&headers("*")).unwrap(), None);
        assert!(if_match(&headers("\"abc\"")).is_err());
    }
}
