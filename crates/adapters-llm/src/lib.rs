//! Language-model adapters: implementations of the domain's `Extractor` and `Coach` ports.
//!
//! - [`OfflineEngine`] is the default (`LLM_PROVIDER=offline`): deterministic extraction and
//!   coaching from a documented lexicon and the person's own sentences, with no model at all (see
//!   docs/offline-engine.md).
//! - [`OpenAiClient`] (`LLM_PROVIDER=openai`) speaks the OpenAI-compatible chat-completions
//!   protocol of Ollama, llama.cpp's server, vLLM, LM Studio and OpenAI (see docs/llm.md).
//! - [`LanguageModel`] is either, chosen at start-up, so the services have one concrete type.
//!
//! Both return the model's raw text; the domain parses it strictly, applies its guards and retries
//! once.

pub mod engine;
pub mod offline;
pub mod openai;

pub use engine::{LanguageModel, RequestPreview};
pub use offline::OfflineEngine;
pub use openai::{ApiKey, DEFAULT_MAX_TOKENS, InvalidSetting, OpenAiClient, OpenAiConfig};
