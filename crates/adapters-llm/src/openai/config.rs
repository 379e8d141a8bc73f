//! The settings of the OpenAI-compatible client (`LLM_BASE_URL`, `LLM_MODEL`, `LLM_API_KEY`,
//! `LLM_TIMEOUT_SECONDS`, `LLM_MAX_TOKENS`), checked once when they are read. The binary reads the environment;
//! this crate never does.

use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use url::{Host, Url};

/// The longest `LLM_TIMEOUT_SECONDS` accepted: an hour is already far beyond any reply.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(3_600);

/// The reply budget sent as `max_tokens` unless `LLM_MAX_TOKENS` says otherwise. A whole profile
/// with its sources takes about 1,000 tokens; without a budget, a small model that never closes a
/// string writes until its context is full and the call ends in the timeout instead.
pub const DEFAULT_MAX_TOKENS: u32 = 2_048;

/// A bearer token for the endpoint: a secret, with no `Display` and a `Debug` that shows none
/// of it; it is read (`expose_secret`) for the `Authorization` header only.
#[derive(Debug, Clone)]
pub struct ApiKey(SecretString);

impl ApiKey {
    #[must_use]
    pub fn new(key: impl Into<SecretString>) -> Self {
        Self(key.into())
    }
}

impl ExposeSecret<str> for ApiKey {
    fn expose_secret(&self) -> &str {
        self.0.expose_secret()
    }
}

/// Where the model is and how long to wait for it.
#[derive(Debug, Clone)]
pub struct OpenAiConfig {
    /// The API root, e.g. `http://127.0.0.1:11434/v1`; requests go to `<base_url>/chat/completions`.
    pub base_url: Url,
    pub model: String,
    /// Sent as `Authorization: Bearer <key>` when set.
    pub api_key: Option<ApiKey>,
    /// The bound on one model call, from the first byte sent to the last byte read, including
    /// a `Retry-After` wait and the steps down the structured-output ladder.
    pub timeout: Duration,
    /// Sent as `max_tokens`, the most a reply may take; `None` leaves the endpoint's default
    /// (for endpoints that refuse the field). [`DEFAULT_MAX_TOKENS`] unless set otherwise.
    pub max_tokens: Option<u32>,
}

/// A setting that cannot be used, named with its variable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{setting} is not valid: {reason}")]
pub struct InvalidSetting {
    /// The environment variable, e.g. `LLM_BASE_URL`.
    pub setting: &'static str,
    pub reason: String,
}

impl OpenAiConfig {
    /// Checks the settings: an `http(s)` base URL without credentials in it (the key belongs in
    /// `LLM_API_KEY`), a model name, a timeout of 1 second to an hour.
    ///
    /// # Errors
    /// [`InvalidSetting`] naming the first unusable value.
    pub fn new(
        base_url: &str,
        model: &str,
        api_key: Option<SecretString>,
        timeout: Duration,
    ) -> Result<Self, InvalidSetting> {
        let invalid = |setting, reason: String| InvalidSetting { setting, reason };
        let base_url = Url::parse(base_url.trim()).map_err(|e| {
            invalid(
                "LLM_BASE_URL",
                format!("{e} (expected e.g. http://127.0.0.1:11434/v1)"),
            )
        })?;
        if !matches!(base_url.scheme(), "http" | "https") || base_url.cannot_be_a_base() {
            return Err(invalid(
                "LLM_BASE_URL",
                "must be an http:// or https:// URL".to_owned(),
            ));
        }
        if !base_url.username().is_empty() || base_url.password().is_some() {
            return Err(invalid(
                "LLM_BASE_URL",
                "must not contain credentials; put the key in LLM_API_KEY".to_owned(),
            ));
        }
        if base_url.query().is_some() || base_url.fragment().is_some() {
            return Err(invalid(
                "LLM_BASE_URL",
                "must not have a query or fragment (the API root only, e.g. https://api.openai.com/v1)"
                    .to_owned(),
            ));
        }
        let model = model.trim();
        if model.is_empty() || model.chars().any(char::is_control) {
            return Err(invalid(
                "LLM_MODEL",
                "must name a model, e.g. llama3.1:8b".to_owned(),
            ));
        }
        if timeout < Duration::from_secs(1) || timeout > MAX_TIMEOUT {
            return Err(invalid(
                "LLM_TIMEOUT_SECONDS",
                format!("must be between 1 and {} seconds", MAX_TIMEOUT.as_secs()),
            ));
        }
        let api_key = api_key
            .map(|k| ApiKey::new(k.expose_secret().trim()))
            .filter(|k| !k.expose_secret().is_empty());
        if api_key.as_ref().is_some_and(|k| {
            k.expose_secret()
                .chars()
                .any(|c| c.is_control() || c == ' ')
        }) {
            return Err(invalid(
                "LLM_API_KEY",
                "must not contain spaces or control characters".to_owned(),
            ));
        }
        Ok(Self {
            base_url,
            model: model.to_owned(),
            api_key,
            timeout,
            max_tokens: Some(DEFAULT_MAX_TOKENS),
        })
    }

    /// The reply budget from `LLM_MAX_TOKENS`: `0` sends no `max_tokens` at all, otherwise
    /// 256 to 131,072 (below 256 not even a short reply fits).
    ///
    /// # Errors
    /// [`InvalidSetting`] for `LLM_MAX_TOKENS` out of range.
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Result<Self, InvalidSetting> {
        self.max_tokens = match max_tokens {
            0 => None,
            256..=131_072 => Some(max_tokens),
            _ => {
                return Err(InvalidSetting {
                    setting: "LLM_MAX_TOKENS",
                    reason: "must be 0 (not sent) or between 256 and 131072".to_owned(),
                });
            }
        };
        Ok(self)
    }

    /// `<base_url>/chat/completions`.
    #[must_use]
    pub fn endpoint(&self) -> Url {
        let mut url = self.base_url.clone();
        if let Ok(mut segments) = url.path_segments_mut() {
            segments.pop_if_empty().extend(["chat", "completions"]);
        }
        url
    }

    /// Whether the person's words would cross a network unencrypted: plain `http` to a host
    /// that is not this machine.
    #[must_use]
    pub fn sends_in_clear_text(&self) -> bool {
        let loopback = match self.base_url.host() {
            Some(Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
            Some(Host::Ipv4(ip)) => ip.is_loopback(),
            Some(Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        };
        self.base_url.scheme() == "http" && !loopback
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(base_url: &str) -> Result<OpenAiConfig, InvalidSetting> {
        OpenAiConfig::new(base_url, "m", None, Duration::from_secs(30))
    }

    #[test]
    fn the_endpoint_is_the_chat_completions_path_under_the_base_url() {
        for (base, endpoint) in [
            (
                "http://127.0.0.1:11434/v1",
                "http://127.0.0.1:11434/v1/chat/completions",
            ),
            (
                "http://127.0.0.1:11434/v1/",
                "http://127.0.0.1:11434/v1/chat/completions",
            ),
            (
                "https://api.openai.com/v1",
                "https://api.openai.com/v1/chat/completions",
            ),
            (
                "http://localhost:8080",
                "http://localhost:8080/chat/completions",
            ),
        ] {
            assert_eq!(config(base).unwrap().endpoint().as_str(), endpoint);
        }
    }

    #[test]
    fn bad_settings_are_named() {
        for (base, model, key, secs, setting) in [
            ("not a url", "m", None, 30, "LLM_BASE_URL"),
            ("ftp://host/v1", "m", None, 30, "LLM_BASE_URL"),
            ("https://user:pw@host/v1", "m", None, 30, "LLM_BASE_URL"),
            ("https://host/v1?key=secret", "m", None, 30, "LLM_BASE_URL"),
            ("https://host/v1", "  ", None, 30, "LLM_MODEL"),
            ("https://host/v1", "m", None, 0, "LLM_TIMEOUT_SECONDS"),
            ("https://host/v1", "m", None, 7_200, "LLM_TIMEOUT_SECONDS"),
            ("https://host/v1", "m", Some("a b"), 30, "LLM_API_KEY"),
        ] {
            let err = OpenAiConfig::new(
                base,
                model,
                key.map(SecretString::from),
                Duration::from_secs(secs),
            )
            .unwrap_err();
            assert_eq!(err.setting, setting, "{base} {model}: {err}");
            assert!(err.to_string().starts_with(setting));
            assert!(!err.to_string().contains('\n'));
        }
    }

    #[test]
    fn the_key_never_reaches_debug_output() {
        let c = OpenAiConfig::new(
            "https://api.openai.com/v1",
            "gpt-4o-mini",
            Some(" sk-very-secret ".into()),
            Duration::from_secs(30),
        )
        .unwrap();
        assert_eq!(
            c.api_key.as_ref().unwrap().expose_secret(),
            "sk-very-secret"
        );
        let debug = format!("{c:?} {:?}", c.api_key);
        assert!(!debug.contains("very-secret"), "{debug}");
        assert!(debug.contains("REDACTED"));
        let empty = OpenAiConfig::new(
            "https://h/v1",
            "m",
            Some(" ".into()),
            Duration::from_secs(1),
        );
        assert!(empty.unwrap().api_key.is_none());
    }

    #[test]
    fn plain_http_is_flagged_only_off_this_machine() {
        assert!(
            !config("http://127.0.0.1:11434/v1")
                .unwrap()
                .sends_in_clear_text()
        );
        assert!(
            !config("http://localhost:1234/v1")
                .unwrap()
                .sends_in_clear_text()
        );
        assert!(
            !config("http://[::1]:8000/v1")
                .unwrap()
                .sends_in_clear_text()
        );
        assert!(!config("https://gpu.lan/v1").unwrap().sends_in_clear_text());
        assert!(
            config("http://gpu.lan:8000/v1")
                .unwrap()
                .sends_in_clear_text()
        );
    }

    #[test]
    fn the_reply_budget_defaults_to_2048_and_0_leaves_it_out() {
        let default = config("http://127.0.0.1/v1").unwrap();
        assert_eq!(default.max_tokens, Some(DEFAULT_MAX_TOKENS));
        assert_eq!(default.clone().with_max_tokens(0).unwrap().max_tokens, None);
        for fine in [256, 1_024, 131_072] {
            assert_eq!(
                default.clone().with_max_tokens(fine).unwrap().max_tokens,
                Some(fine)
            );
        }
        for bad in [1, 255, 131_073] {
            let err = default.clone().with_max_tokens(bad).unwrap_err();
            assert_eq!(err.setting, "LLM_MAX_TOKENS");
        }
    }
}
