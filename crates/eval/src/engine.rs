//! The extractor to evaluate, chosen from `LLM_PROVIDER` and `LLM_*` exactly as the service
//! chooses it: read and validated by the `settings` crate (`settings::llm`), the endpoint then
//! checked by adapters-llm's `OpenAiConfig`.

use adapters_llm::{LanguageModel, OfflineEngine, OpenAiClient, OpenAiConfig};
use settings::Vars;
use settings::llm::LlmSettings;

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
    let llm = match settings::llm::llm(&Vars::from_fn(var)).map_err(|e| e.to_string())? {
        LlmSettings::Offline => {
            return Ok(Engine {
                model: LanguageModel::Offline(OfflineEngine),
                description: "offline engine".to_owned(),
            });
        }
        LlmSettings::OpenAi(llm) => llm,
    };
    let timeout = llm.timeout.as_secs();
    let config = OpenAiConfig::new(&llm.base_url, &llm.model, llm.api_key, llm.timeout);
    let config = config
        .and_then(|c| c.with_max_tokens(llm.max_tokens))
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
