//! Language-model adapters: implementations of the domain's `Extractor` and `Coach` ports.
//!
//! Two engines will live here: the offline deterministic engine (the default, `LLM_PROVIDER=offline`)
//! and a client for OpenAI-compatible chat-completions endpoints (Ollama, llama.cpp, vLLM, OpenAI).
//! Neither exists yet: see the open issues "Discovery, profile, reflection..." and "Language-model
//! extraction...". Until then this crate only fixes its place in the hexagon.
