//! `/discovery/*`: the seven prompts and the caller's conversation — start, read, answer,
//! complete (extraction into the profile).

use super::declaration::Route;
use crate::answers::Created;
use crate::answers::CreatedOrOk;
use crate::auth::policy::Policy;
use actix_web::{HttpMessage, HttpRequest, web};
use domain::discovery::PROMPTS;
use domain::services::discovery::{AnswerError, CompleteError, GetConversationError};

use crate::activity::Action;
use crate::auth::Caller;
use crate::error::{ApiError, ErrorBody};
use crate::extract::ApiJson;
use crate::requests::discovery::{AnswerRequest, StepPath};
use crate::service_types::Discovery;
use crate::views::discovery::{ConversationView, PromptView};
use crate::views::profile::ProfileView;
use service_metrics::LlmOperation;
use service_metrics::Metrics;

/// The routes of this file, mounted under `/discovery` in this order (see `routes::api`).
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(Policy::Public, prompts, __path_prompts),
        Route::new(Policy::SignedIn, start, __path_start),
        Route::new(Policy::SignedIn, get, __path_get),
        Route::new(Policy::SignedIn, answer, __path_answer),
        Route::new(Policy::SignedIn, complete, __path_complete),
    ]
}

#[utoipa::path(
    get,
    path = "/discovery/prompts",
    tag = "discovery",
    summary = "The seven prompts, in order.",
    responses(
        (status = 200, description = "The prompts.", body = [crate::views::discovery::PromptView]),
    ),
)]
pub(crate) async fn prompts() -> web::Json<Vec<PromptView>> {
    let prompts: Vec<PromptView> = PROMPTS.iter().map(PromptView::from).collect();
    web::Json(prompts)
}

#[utoipa::path(
    post,
    path = "/discovery/conversation",
    tag = "discovery",
    summary = "Start a conversation (or return the one in progress).",
    responses(
        (status = 201, description = "Started.", body = ConversationView),
        (status = 200, description = "One was already in progress.", body = ConversationView),
    ),
)]
pub(crate) async fn start(
    discovery: web::Data<Discovery>,
    caller: Caller,
    req: HttpRequest,
) -> Result<CreatedOrOk<ConversationView>, ApiError> {
    req.extensions_mut().insert(Action("conversation.start"));
    let (conversation, created) = discovery.start(caller.user_id).await?;
    Ok(CreatedOrOk {
        created,
        body: ConversationView::from(&conversation),
    })
}

#[utoipa::path(
    get,
    path = "/discovery/conversation/me",
    tag = "discovery",
    summary = "The latest conversation.",
    responses(
        (status = 200, description = "The conversation.", body = ConversationView),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
    ),
)]
pub(crate) async fn get(
    discovery: web::Data<Discovery>,
    caller: Caller,
) -> Result<web::Json<ConversationView>, ApiError> {
    match discovery.get(caller.user_id).await {
        Ok(conversation) => Ok(web::Json(ConversationView::from(&conversation))),
        Err(GetConversationError::NotFound) => Err(ApiError::NotFound),
        Err(GetConversationError::Repo(e)) => Err(e.into()),
    }
}

#[utoipa::path(
    put,
    path = "/discovery/conversation/me/answers/{step}",
    tag = "discovery",
    summary = "Answer one prompt.",
    request_body = AnswerRequest,
    params(StepPath),
    responses(
        (status = 200, description = "The conversation with the answer saved.", body = ConversationView),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
        (status = 409, description = "`conversation_completed`: the conversation is completed.", body = ErrorBody),
    ),
)]
pub(crate) async fn answer(
    discovery: web::Data<Discovery>,
    caller: Caller,
    step: web::Path<StepPath>,
    body: ApiJson<AnswerRequest>,
    req: HttpRequest,
) -> Result<web::Json<ConversationView>, ApiError> {
    req.extensions_mut().insert(Action("conversation.answer"));
    let step = step.step()?;
    match discovery
        .answer(caller.user_id, step, body.into_inner().text)
        .await
    {
        Ok(conversation) => Ok(web::Json(ConversationView::from(&conversation))),
        Err(AnswerError::NotFound) => Err(ApiError::NotFound),
        Err(AnswerError::Completed) => Err(ApiError::Conflict {
            code: "conversation_completed",
            message: "This conversation is completed; start a new one to answer again.",
        }),
        Err(AnswerError::Repo(e)) => Err(e.into()),
    }
}

#[utoipa::path(
    post,
    path = "/discovery/conversation/me/complete",
    tag = "discovery",
    summary = "Extract the profile from the answers.",
    responses(
        (status = 201, description = "The profile.", body = ProfileView),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
        (status = 409, description = "`conversation_incomplete` (steps 1-5 not all answered) or `profile_locked`.", body = ErrorBody),
        (status = 429, description = "Too many requests; `Retry-After` says when to try again.", body = ErrorBody),
        (status = 502, description = "The language model failed (after one retry); nothing was changed.", body = ErrorBody),
    ),
)]
pub(crate) async fn complete(
    discovery: web::Data<Discovery>,
    metrics: web::Data<Metrics>,
    caller: Caller,
    req: HttpRequest,
) -> Result<Created<ProfileView>, ApiError> {
    req.extensions_mut().insert(Action("conversation.complete"));
    match discovery.complete(caller.user_id).await {
        Ok(profile) => Ok(Created(ProfileView::from(&profile))),
        Err(CompleteError::NotFound) => Err(ApiError::NotFound),
        Err(CompleteError::Completed) => Err(ApiError::Conflict {
            code: "conversation_completed",
            message: "This conversation is already completed.",
        }),
        Err(CompleteError::Incomplete { .. }) => Err(ApiError::Conflict {
            code: "conversation_incomplete",
            message: "Answer steps 1 to 5 before completing.",
        }),
        Err(CompleteError::ProfileLocked) => Err(ApiError::PROFILE_LOCKED),
        Err(CompleteError::Conflict) => Err(ApiError::STALE),
        Err(CompleteError::ExtractorUnavailable(e)) => {
            tracing::warn!(error = %e, "extractor unavailable");
            metrics.llm_failed(LlmOperation::Extract, &e);
            Err(ApiError::CoachUnavailable)
        }
        Err(CompleteError::Repo(e)) => Err(e.into()),
    }
}
