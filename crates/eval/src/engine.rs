//! The extractor to evaluate, chosen from `LLM_PROVIDER` and `LLM_*` as the service chooses it
//! (api-actix `config.rs`: blank counts as unset; `openai` needs `LLM_BASE_URL` and `LLM_MODEL`;
//! `LLM_TIMEOUT_SECONDS` defaults to 30, `LLM_MAX_TOKENS` to 2048), checked by adapters-llm's `OpenAiConfig`.

use std::time::Duration;

use adapters_llm::{DEFAULT_MAX_TOKENS, LanguageModel, OfflineEngine, OpenAiClient, OpenAiConfig};

/// The engine and a one-line description of it for the report.
#[derive(Debug)]
pub struct Engine {
    pub model: LanguageModel,
    /// `offline engine` or `openai <model> at <endpoint>`.
    pub description: String,
}

/// Builds the engine from variables read through `var`.
///
/// # Errors
/// One line naming the setting that cannot be used, as the service words it.
pub fn from_lookup(var: impl Fn(&str) -> Option<String>) -> Result<Engine, String> {
    let var = |name: &str| {
        var(name)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    };
    match var("LLM_PROVIDER").as_deref() {
        None | Some("offline") => Ok(Engine {
            model: LanguageModel::Offline(OfflineEngine),
            description: "offline engine".to_owned(),
        }),
        Some("openai") => {
            let required = |name: &str, example: &str| {
                var(name).ok_or_else(|| {
                    format!(
                        "{name} is not valid: must be set with LLM_PROVIDER=openai, e.g. {example}"
                    )
                })
            };
            let base_url = required("LLM_BASE_URL", "http://127.0.0.1:11434/v1 (Ollama)")?;
            let model = required("LLM_MODEL", "llama3.1:8b")?;
            let timeout = match var("LLM_TIMEOUT_SECONDS") {
                None => 30,
                Some(v) => v.parse::<u64>().ok().filter(|n| *n >= 1).ok_or_else(|| {
                    format!(
                        "LLM_TIMEOUT_SECONDS is not valid: expected a whole number of at least 1, got {v:?}"
                    )
                })?,
            };
            let max_tokens = match var("LLM_MAX_TOKENS") {
                None => DEFAULT_MAX_TOKENS,
                Some(v) => v.parse::<u32>().map_err(|_| {
                    format!("LLM_MAX_TOKENS is not valid: expected a whole number, got {v:?}")
                })?,
            };
            let config = OpenAiConfig::new(
                &base_url,
                &model,
                var("LLM_API_KEY"),
                Duration::from_secs(timeout),
            )
            .and_then(|config| config.with_max_tokens(max_tokens))
            .map_err(|e| e.to_string())?;
            let description = format!(
                "openai model {:?} at {} (timeout {timeout} s, max_tokens {})",
                config.model,
                config.endpoint(),
                config
                    .max_tokens
                    .map_or_else(|| "not sent".to_owned(), |n| n.to_string())
            );
            let client =
                OpenAiClient::new(config).map_err(|e| format!("the language-model client: {e}"))?;
            Ok(Engine {
                model: LanguageModel::OpenAi(client),
                description,
            })
        }
        Some(other) => Err(format!(
            "LLM_PROVIDER is not valid: expected \"offline\" or \"openai\", got {other:?}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(vars: &[(&str, &str)]) -> Result<Engine, String> {
        from_lookup(|name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn no_provider_or_offline_is_the_offline_engine() {
        for vars in [
            &[][..],
            &[("LLM_PROVIDER", " offline ")],
            &[("LLM_PROVIDER", "")],
        ] {
            let e = engine(vars).unwrap();
            assert!(matches!(e.model, LanguageModel::Offline(_)));
        }
    }

    #[test]
    fn openai_needs_an_endpoint_and_a_model_and_names_what_is_wrong() {
        let ok = engine(&[
            ("LLM_PROVIDER", "openai"),
            ("LLM_BASE_URL", "http://127.0.0.1:8080/v1"),
            ("LLM_MODEL", "smollm2"),
            ("LLM_TIMEOUT_SECONDS", "300"),
        ])
        .unwrap();
        assert!(matches!(ok.model, LanguageModel::OpenAi(_)));
        assert!(
            ok.description.contains("/v1/chat/completions")
                && ok.description.contains("max_tokens 2048"),
            "{}",
            ok.description
        );
        for (vars, setting) in [
            (&[("LLM_PROVIDER", "openai")][..], "LLM_BASE_URL"),
            (
                &[("LLM_PROVIDER", "openai"), ("LLM_BASE_URL", "http://h/v1")][..],
                "LLM_MODEL",
            ),
            (
                &[
                    ("LLM_PROVIDER", "openai"),
                    ("LLM_BASE_URL", "http://h/v1"),
                    ("LLM_MODEL", "m"),
                    ("LLM_TIMEOUT_SECONDS", "0"),
                ][..],
                "LLM_TIMEOUT_SECONDS",
            ),
            (
                &[
                    ("LLM_PROVIDER", "openai"),
                    ("LLM_BASE_URL", "http://h/v1"),
                    ("LLM_MODEL", "m"),
                    ("LLM_MAX_TOKENS", "12"),
                ][..],
                "LLM_MAX_TOKENS",
            ),
            (&[("LLM_PROVIDER", "gpt")][..], "LLM_PROVIDER"),
        ] {
            let err = engine(vars).unwrap_err();
            assert!(err.starts_with(setting), "{err}");
        }
    }
}
