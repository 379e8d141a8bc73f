//! The language model (or the offline engine): the extractor and the coach.

use async_trait::async_trait;

use crate::coaching::CoachingStyle;
use crate::discovery::{ExtractionDraft, ExtractionInput};
use crate::profile::{EnneagramType, Profile};
use crate::reflection::{CoachReplyDraft, ReflectionMessage, ReflectionTurn, ReplyEngine};

/// A language-model (or offline engine) failure.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("the model did not answer in time")]
    Timeout,
    #[error("the model is rate limited")]
    RateLimited,
    #[error("the model is unavailable: {0}")]
    Unavailable(String),
}

/// Reads a profile draft out of the answers.
/// # Errors
/// [`ModelError`] when no reply could be had; a bad reply is returned as text and judged by the domain.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait Extractor: Send + Sync {
    /// Returns the raw reply. `feedback` says what was wrong with the previous reply, on the one retry.
    async fn extract(
        &self,
        input: &ExtractionInput,
        feedback: Option<String>,
    ) -> Result<String, ModelError>;

    /// The offline engine's reading of the same answers (its mirror of each field, with their
    /// sources): what is stored for a field whose text does not rest on the person's words, and
    /// for a goal they stated that the reply did not keep (docs/api.md, "Provenance"). Asked for only
    /// when needed; `None` when there is none, and an ungrounded reply is then refused.
    fn mirror(&self, input: &ExtractionInput) -> Option<ExtractionDraft>;

    /// The offline engine's reading of `drives` (sentences of a drives answer) as a type, when
    /// it is clear; `None` when it cannot tell. The type rule (`discovery::type_rule`) checks an
    /// extractor's type against it.
    fn read_type(&self, drives: &str) -> Option<EnneagramType>;
}

/// What the coach sees for one turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoachRequest {
    pub profile: Profile,
    pub dialogue: Vec<ReflectionMessage>,
    pub style: CoachingStyle,
    pub turn: ReflectionTurn,
    /// What was wrong with the previous reply, on the one retry.
    pub feedback: Option<String>,
}

/// The reflection coach.
/// # Errors
/// [`ModelError`] when no reply could be had.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait Coach: Send + Sync {
    /// Returns the raw reply, expected to be `{message, revisions, revision_note}`.
    async fn reply(&self, request: &CoachRequest) -> Result<String, ModelError>;

    /// The offline coach's reply to the same turn: its revision of a field stands in for a
    /// revision whose words do not rest on the person's (docs/api.md, "Provenance"). Asked for only
    /// when needed; `None` when there is none, and such a revision is then dropped.
    fn mirror_reply(&self, request: &CoachRequest) -> Option<CoachReplyDraft>;

    /// The engine whose replies [`Coach::reply`] returns.
    fn engine(&self) -> ReplyEngine;
}
