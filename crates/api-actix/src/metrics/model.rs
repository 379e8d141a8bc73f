//! [`MeteredModel`]: the language model the services use, with every request to it counted and
//! timed. It sits on the domain's ports (`Extractor`, `Coach`), so the domain stays free of
//! metrics and the offline engine is counted the same way as a remote model.

use std::sync::Arc;
use std::time::Instant;

use adapters_llm::LanguageModel;
use async_trait::async_trait;
use domain::discovery::{ExtractionDraft, ExtractionInput};
use domain::ports::{Coach, CoachRequest, Extractor, ModelError};
use domain::profile::EnneagramType;
use domain::reflection::CoachReplyDraft;

use super::{LlmOperation, Metrics};

/// A [`LanguageModel`] whose calls are measured.
#[derive(Debug, Clone)]
pub struct MeteredModel {
    inner: LanguageModel,
    metrics: Arc<Metrics>,
}

impl MeteredModel {
    #[must_use]
    pub const fn new(inner: LanguageModel, metrics: Arc<Metrics>) -> Self {
        Self { inner, metrics }
    }
}

#[async_trait]
impl Extractor for MeteredModel {
    async fn extract(
        &self,
        input: &ExtractionInput,
        feedback: Option<String>,
    ) -> Result<String, ModelError> {
        let started = Instant::now();
        let reply = self.inner.extract(input, feedback).await;
        self.metrics.observe_llm_call(
            LlmOperation::Extract,
            reply.as_ref().map(|_| ()),
            started.elapsed(),
        );
        reply
    }

    /// Not a model call: the offline engine's mirror, computed in the process.
    fn mirror(&self, input: &ExtractionInput) -> Option<ExtractionDraft> {
        self.inner.mirror(input)
    }

    /// Not a model call either: the offline engine's lexicon.
    fn read_type(&self, drives: &str) -> Option<EnneagramType> {
        self.inner.read_type(drives)
    }
}

#[async_trait]
impl Coach for MeteredModel {
    async fn reply(&self, request: &CoachRequest) -> Result<String, ModelError> {
        let started = Instant::now();
        let reply = self.inner.reply(request).await;
        self.metrics.observe_llm_call(
            LlmOperation::Reflect,
            reply.as_ref().map(|_| ()),
            started.elapsed(),
        );
        reply
    }

    /// Not a model call: the offline coach's reply, computed in the process.
    fn mirror_reply(&self, request: &CoachRequest) -> Option<CoachReplyDraft> {
        self.inner.mirror_reply(request)
    }
}
