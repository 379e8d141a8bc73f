//! The offline engine: deterministic extraction and coaching that needs no language model
//! (`LLM_PROVIDER=offline`, the default). Its rules are fixed, documented in
//! docs/offline-engine.md, and the same input always gives the same output: no randomness, no
//! clock, no I/O.

pub mod chat;
pub mod clauses;
pub mod coach;
pub mod extraction;
pub mod frames;
pub mod grounding;
pub mod lexicon;
pub mod mirror;
pub mod mirrors;
pub mod summaries;
pub mod text;

use async_trait::async_trait;
use domain::discovery::{ExtractionDraft, ExtractionInput};
use domain::ports::{Coach, CoachRequest, Extractor, ModelError};
use domain::profile::EnneagramType;
use domain::reflection::{CoachReplyDraft, ReplyEngine};

use self::lexicon::TypeDecision;

/// The offline extractor and coach. It holds no state, so one value serves every request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OfflineEngine;

impl OfflineEngine {
    #[must_use]
    pub const fn new() -> Self {
        Self
    }

    /// The draft the extractor returns (as JSON) for `input`.
    ///
    /// # Errors
    /// [`ModelError::Unavailable`] only if the lexicon were to yield a type outside 1-9.
    pub fn extraction_draft(&self, input: &ExtractionInput) -> Result<ExtractionDraft, ModelError> {
        extraction::draft(input)
            .map(|(draft, _)| draft)
            .map_err(|e| ModelError::Unavailable(format!("offline engine: {e}")))
    }

    /// How the type was decided: every type's score and hits (the answer to "why a 5?").
    #[must_use]
    pub fn explain(&self, input: &ExtractionInput) -> TypeDecision {
        lexicon::decide(input)
    }

    /// The reply the coach returns (as JSON) for `request`.
    #[must_use]
    pub fn coach_reply(&self, request: &CoachRequest) -> CoachReplyDraft {
        coach::reply(request)
    }
}

#[async_trait]
impl Extractor for OfflineEngine {
    /// The engine's output already passes the domain's guards, and it is deterministic, so the
    /// retry `feedback` has nothing to change and is ignored.
    async fn extract(
        &self,
        input: &ExtractionInput,
        _feedback: Option<String>,
    ) -> Result<String, ModelError> {
        let draft = self.extraction_draft(input)?;
        serde_json::to_string(&draft).map_err(|e| ModelError::Unavailable(e.to_string()))
    }

    /// Its own draft: the engine writes mirrors only, so it stands in for itself.
    fn mirror(&self, input: &ExtractionInput) -> Option<ExtractionDraft> {
        self.extraction_draft(input).ok()
    }

    /// The lexicon's reading of the sentences alone, as a drives answer, when one type leads.
    fn read_type(&self, drives: &str) -> Option<EnneagramType> {
        lexicon::clear_reading(drives).and_then(|t| EnneagramType::new(i64::from(t)).ok())
    }
}

#[async_trait]
impl Coach for OfflineEngine {
    async fn reply(&self, request: &CoachRequest) -> Result<String, ModelError> {
        serde_json::to_string(&self.coach_reply(request))
            .map_err(|e| ModelError::Unavailable(e.to_string()))
    }

    /// Its own reply: the coach says the person's words back, so it stands in for itself.
    fn mirror_reply(&self, request: &CoachRequest) -> Option<CoachReplyDraft> {
        Some(self.coach_reply(request))
    }

    fn engine(&self) -> ReplyEngine {
        ReplyEngine::Offline
    }
}
