//! Which engine extracts profiles and coaches, for the service and `discovery-eval` alike:
//! `LLM_PROVIDER` (`offline` or `openai`) and, for `openai`, `LLM_BASE_URL`, `LLM_MODEL`,
//! `LLM_API_KEY`, `LLM_TIMEOUT_SECONDS` and `LLM_MAX_TOKENS`. What only the client can judge
//! (the URL's shape, the ranges of the timeout and the token cap) is checked when the binary
//! builds the client's config from these values, naming the same variables.

use std::time::Duration;

use secrecy::SecretString;

use crate::error::invalid;
use crate::{SettingError, Vars};

/// `LLM_TIMEOUT_SECONDS` when unset.
pub const DEFAULT_TIMEOUT_SECONDS: u64 = 30;
/// `LLM_MAX_TOKENS` when unset. A whole profile with its sources takes about 1,000 tokens;
/// without a budget, a small model that never closes a string writes until its context is full
/// and the call ends in the timeout instead.
pub const DEFAULT_MAX_TOKENS: u32 = 2_048;

/// The engine chosen.
#[derive(Debug, Clone)]
pub enum LlmSettings {
    /// The deterministic offline engine: no model, no data leaves the server.
    Offline,
    /// An OpenAI-compatible chat-completions endpoint.
    OpenAi(OpenAiSettings),
}

/// The endpoint of `LLM_PROVIDER=openai`.
#[derive(Debug, Clone)]
pub struct OpenAiSettings {
    pub base_url: String,
    pub model: String,
    /// `LLM_API_KEY`, a secret: `Debug` shows none of it.
    pub api_key: Option<SecretString>,
    pub timeout: Duration,
    /// `LLM_MAX_TOKENS` ([`DEFAULT_MAX_TOKENS`] when unset); 0: no `max_tokens` is sent.
    pub max_tokens: u32,
}

/// # Errors
/// An unknown provider, or `openai` without its endpoint and model or with a timeout or token
/// cap that is not a whole number (of at least 1, or 0); the other `LLM_*` are ignored by the
/// offline engine.
pub fn llm(vars: &Vars<'_>) -> Result<LlmSettings, SettingError> {
    match vars.text("LLM_PROVIDER", "offline").as_str() {
        "offline" => Ok(LlmSettings::Offline),
        "openai" => {
            let required = |name: &'static str, example: &str| {
                vars.get(name).ok_or_else(|| {
                    invalid(
                        name,
                        format!("must be set with LLM_PROVIDER=openai, e.g. {example}"),
                    )
                })
            };
            let base_url = required("LLM_BASE_URL", "http://127.0.0.1:11434/v1 (Ollama)")?;
            let model = required("LLM_MODEL", "llama3.1:8b")?;
            let timeout = vars.number(
                "LLM_TIMEOUT_SECONDS",
                i64::try_from(DEFAULT_TIMEOUT_SECONDS).unwrap_or(i64::MAX),
                1,
            )?;
            let max_tokens = vars.number("LLM_MAX_TOKENS", i64::from(DEFAULT_MAX_TOKENS), 0)?;
            Ok(LlmSettings::OpenAi(OpenAiSettings {
                base_url,
                model,
                api_key: vars.get("LLM_API_KEY").map(SecretString::from),
                timeout: Duration::from_secs(timeout.unsigned_abs()),
                // Beyond u32 the client's own upper bound refuses it, naming LLM_MAX_TOKENS.
                max_tokens: u32::try_from(max_tokens).unwrap_or(u32::MAX),
            }))
        }
        other => Err(invalid(
            "LLM_PROVIDER",
            format!("expected \"offline\" or \"openai\", got {other:?}"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use secrecy::ExposeSecret;

    const OPENAI: [(&str, &str); 4] = [
        ("LLM_PROVIDER", "openai"),
        ("LLM_BASE_URL", "http://127.0.0.1:11434/v1"),
        ("LLM_MODEL", "llama3.1:8b"),
        ("LLM_API_KEY", "sk-live-key-never-printed"),
    ];

    fn with(
        overrides: &[(&'static str, Option<&'static str>)],
    ) -> Result<LlmSettings, SettingError> {
        let vars: Vec<(&str, &str)> = OPENAI
            .iter()
            .copied()
            .filter(|(n, _)| !overrides.iter().any(|(o, _)| o == n))
            .chain(overrides.iter().filter_map(|(n, v)| v.map(|v| (*n, v))))
            .collect();
        llm(&Vars::from_pairs(vars))
    }

    #[test]
    fn unset_or_offline_is_the_offline_engine_whatever_the_other_settings() {
        for provider in ["", " offline "] {
            let vars = Vars::from_pairs([
                ("LLM_PROVIDER", provider),
                ("LLM_BASE_URL", "::"),
                ("LLM_TIMEOUT_SECONDS", "soon"),
            ]);
            assert!(
                matches!(llm(&vars), Ok(LlmSettings::Offline)),
                "{provider:?}"
            );
        }
    }

    #[test]
    fn openai_has_defaults_and_hides_its_key() {
        let LlmSettings::OpenAi(s) = with(&[]).unwrap() else {
            panic!("openai expected");
        };
        assert_eq!(s.model, "llama3.1:8b");
        assert_eq!(s.timeout, Duration::from_secs(30));
        assert_eq!(s.max_tokens, DEFAULT_MAX_TOKENS);
        assert_eq!(
            s.api_key.as_ref().map(ExposeSecret::expose_secret),
            Some("sk-live-key-never-printed")
        );
        let shown = format!("{s:?}");
        assert!(!shown.contains("never-printed"), "{shown}");
        assert!(shown.contains("llama3.1:8b"), "{shown}");
        let LlmSettings::OpenAi(s) = with(&[
            ("LLM_TIMEOUT_SECONDS", Some("300")),
            ("LLM_MAX_TOKENS", Some("0")),
        ])
        .unwrap() else {
            panic!("openai expected");
        };
        assert_eq!((s.timeout, s.max_tokens), (Duration::from_secs(300), 0));
    }

    #[test]
    fn what_openai_lacks_or_cannot_read_is_named() {
        for (name, value) in [
            ("LLM_BASE_URL", None),
            ("LLM_MODEL", None),
            ("LLM_TIMEOUT_SECONDS", Some("0")),
            ("LLM_TIMEOUT_SECONDS", Some("soon")),
            ("LLM_MAX_TOKENS", Some("-1")),
            ("LLM_MAX_TOKENS", Some("many")),
            ("LLM_PROVIDER", Some("gpt")),
        ] {
            let err = with(&[(name, value)]).unwrap_err().to_string();
            assert!(
                err.starts_with(&format!("{name} is not valid")),
                "{name}: {err}"
            );
            assert!(!err.contains('\n'));
        }
    }
}
