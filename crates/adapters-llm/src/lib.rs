//! Language-model adapters: implementations of the domain's `Extractor` and `Coach` ports.
//!
//! [`OfflineEngine`] is the default (`LLM_PROVIDER=offline`): deterministic extraction and
//! coaching from a documented lexicon and the person's own sentences, with no model at all (see
//! docs/offline-engine.md). A client for OpenAI-compatible chat-completions endpoints (Ollama,
//! llama.cpp, vLLM, OpenAI) is to come with the issue "Language-model extraction...".

pub mod offline;

pub use offline::OfflineEngine;
