//! [`LanguageModel`]: the engine chosen at start-up (`LLM_PROVIDER`), one type for the services
//! whichever it is, and the preview of what a reflection turn would send.

use async_trait::async_trait;
use domain::discovery::{ExtractionDraft, ExtractionInput};
use domain::ports::{Coach, CoachRequest, Extractor, ModelError};
use domain::profile::EnneagramType;
use domain::reflection::{CoachReplyDraft, ReplyEngine};
use serde::Serialize;
use serde_json::Value;

use crate::offline::OfflineEngine;
use crate::openai::OpenAiClient;

/// The extractor and coach in use.
#[derive(Debug, Clone)]
pub enum LanguageModel {
    /// The deterministic engine inside the service: nothing leaves the server.
    Offline(OfflineEngine),
    /// An OpenAI-compatible chat-completions endpoint.
    OpenAi(OpenAiClient),
}

impl Default for LanguageModel {
    fn default() -> Self {
        Self::Offline(OfflineEngine)
    }
}

/// What a reflection turn would send to a model, without sending it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestPreview {
    /// `offline` or `openai` (the `LLM_PROVIDER`).
    pub provider: &'static str,
    /// Where the body would be POSTed (`null` offline).
    pub endpoint: Option<String>,
    /// The exact JSON body (`null` offline: no request is made at all).
    pub request: Option<Value>,
    /// One sentence for the person reading it.
    pub note: &'static str,
}

impl LanguageModel {
    /// The `LLM_PROVIDER` value of this engine.
    #[must_use]
    pub const fn provider(&self) -> &'static str {
        match self {
            Self::Offline(_) => "offline",
            Self::OpenAi(_) => "openai",
        }
    }

    /// The body the coach would send for `request` (the first attempt; the one retry adds a
    /// message saying what was wrong).
    #[must_use]
    pub fn reflection_preview(&self, request: &CoachRequest) -> RequestPreview {
        match self {
            Self::Offline(_) => RequestPreview {
                provider: self.provider(),
                endpoint: None,
                request: None,
                note: "The offline engine runs inside the service: nothing leaves the server.",
            },
            Self::OpenAi(client) => RequestPreview {
                provider: self.provider(),
                endpoint: Some(client.endpoint().to_string()),
                request: Some(client.reflection_body(request)),
                note: "This is the body the service would send to the language model for this \
                       turn; nothing was sent. If the reply cannot be used, the one retry adds a \
                       message saying why.",
            },
        }
    }
}

#[async_trait]
impl Extractor for LanguageModel {
    async fn extract(
        &self,
        input: &ExtractionInput,
        feedback: Option<String>,
    ) -> Result<String, ModelError> {
        match self {
            Self::Offline(engine) => engine.extract(input, feedback).await,
            Self::OpenAi(client) => client.extract(input, feedback).await,
        }
    }

    fn mirror(&self, input: &ExtractionInput) -> Option<ExtractionDraft> {
        match self {
            Self::Offline(engine) => engine.mirror(input),
            Self::OpenAi(client) => client.mirror(input),
        }
    }

    fn read_type(&self, drives: &str) -> Option<EnneagramType> {
        match self {
            Self::Offline(engine) => engine.read_type(drives),
            Self::OpenAi(client) => client.read_type(drives),
        }
    }
}

#[async_trait]
impl Coach for LanguageModel {
    async fn reply(&self, request: &CoachRequest) -> Result<String, ModelError> {
        match self {
            Self::Offline(engine) => engine.reply(request).await,
            Self::OpenAi(client) => client.reply(request).await,
        }
    }

    fn mirror_reply(&self, request: &CoachRequest) -> Option<CoachReplyDraft> {
        match self {
            Self::Offline(engine) => engine.mirror_reply(request),
            Self::OpenAi(client) => client.mirror_reply(request),
        }
    }

    fn engine(&self) -> ReplyEngine {
        match self {
            Self::Offline(engine) => engine.engine(),
            Self::OpenAi(client) => client.engine(),
        }
    }
}
