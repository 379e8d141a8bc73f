//! The discovery responses: the seven prompts and the conversation with its answers.

use domain::discovery::{Answer, Conversation, Prompt};
use domain::ids::ConversationId;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::enum_schemas;

/// One written prompt (`GET /discovery/prompts`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Prompt)]
pub struct PromptView {
    #[schema(minimum = 1, maximum = 7)]
    step: u8,
    #[schema(value_type = enum_schemas::PromptKey)]
    key: &'static str,
    title: &'static str,
    text: &'static str,
    /// `"6-12 months"` (step 6), `"3-5 years"` (step 7), else null.
    horizon: Option<&'static str>,
}

impl From<&'static Prompt> for PromptView {
    fn from(p: &'static Prompt) -> Self {
        Self {
            step: p.step,
            key: p.key.key(),
            title: p.title,
            text: p.text,
            horizon: p.horizon,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Answer)]
pub struct AnswerView {
    #[schema(minimum = 1, maximum = 7)]
    step: u8,
    #[schema(value_type = enum_schemas::PromptKey)]
    key: &'static str,
    text: String,
    #[serde(with = "time::serde::rfc3339")]
    answered_at: OffsetDateTime,
}

impl From<&Answer> for AnswerView {
    fn from(a: &Answer) -> Self {
        Self {
            step: a.step.get(),
            key: a.step.prompt().key.key(),
            text: a.text.as_str().to_owned(),
            answered_at: a.answered_at,
        }
    }
}

/// The conversation (`/discovery/conversation/me`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Conversation)]
pub struct ConversationView {
    #[schema(value_type = uuid::Uuid)]
    id: ConversationId,
    #[schema(value_type = enum_schemas::ConversationStatus)]
    status: &'static str,
    answers: Vec<AnswerView>,
    #[schema(minimum = 1, maximum = 7)]
    next_step: Option<u8>,
    near_term_goal_raw: Option<String>,
    long_term_goal_raw: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    completed_at: Option<OffsetDateTime>,
}

impl From<&Conversation> for ConversationView {
    fn from(c: &Conversation) -> Self {
        Self {
            id: c.id,
            status: c.status.key(),
            answers: c.answers().map(AnswerView::from).collect(),
            next_step: c.next_step().map(|s| s.get()),
            near_term_goal_raw: c.near_term_goal_raw().map(str::to_owned),
            long_term_goal_raw: c.long_term_goal_raw().map(str::to_owned),
            created_at: c.created_at,
            completed_at: c.completed_at,
        }
    }
}
