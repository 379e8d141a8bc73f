//! What the service's clients (`discovery-mcp`, `discovery-sync`) need to reach it: its base URL
//! (`--url` or `DISCOVERY_URL`) and a personal API key (`DISCOVERY_API_KEY`, never a
//! command-line argument, which any local user could read in `ps`).

use secrecy::{ExposeSecret, SecretString};
use url::Url;

use crate::Vars;

/// The service address when neither `--url` nor `DISCOVERY_URL` names one: the service's own
/// default `BIND_ADDR`, so a local `discovery-api --dev` works without configuration.
pub const DEFAULT_URL: &str = "http://127.0.0.1:8011";

/// The variable holding the personal API key.
pub const KEY_VARIABLE: &str = "DISCOVERY_API_KEY";
/// The variable holding the service's base URL.
pub const URL_VARIABLE: &str = "DISCOVERY_URL";

/// A personal API key: a secret, so its `Debug` cannot leak it into a log line; it is read
/// (`expose_secret`) for the `X-API-Key` header only.
#[derive(Debug, Clone)]
pub struct ApiKey(SecretString);

impl ExposeSecret<str> for ApiKey {
    fn expose_secret(&self) -> &str {
        self.0.expose_secret()
    }
}

/// Where the service is and which key to call it with.
#[derive(Debug, Clone)]
pub struct ClientSettings {
    /// The service's base URL, e.g. `https://discovery.example.org/` (a path prefix is kept;
    /// the path always ends in `/`).
    pub base_url: Url,
    pub api_key: ApiKey,
}

/// Why the client settings are unusable; each message is one line for stderr and names no
/// secret.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ClientError {
    #[error(
        "{KEY_VARIABLE} is not set: create a personal API key (POST /api/me/api-keys or the account page) and put it in the environment"
    )]
    MissingKey,
    #[error("{KEY_VARIABLE} contains characters that cannot be sent in an HTTP header")]
    UnusableKey,
    #[error("the service URL {url:?} is not usable: {reason}")]
    BadUrl { url: String, reason: String },
}

impl ClientSettings {
    /// From the `--url` argument (if any) and `vars`. `--url` wins over `DISCOVERY_URL`; both
    /// fall back to [`DEFAULT_URL`].
    ///
    /// # Errors
    /// [`ClientError`] when the key is missing, blank or not header-safe, or the URL is not an
    /// absolute `http`/`https` URL.
    pub fn from_parts(url_argument: Option<String>, vars: &Vars<'_>) -> Result<Self, ClientError> {
        // A key pasted with a trailing newline is still the key (`Vars` trims).
        let key = vars.get(KEY_VARIABLE).ok_or(ClientError::MissingKey)?;
        if !key.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(ClientError::UnusableKey);
        }
        let raw_url = url_argument
            .or_else(|| vars.get(URL_VARIABLE))
            .unwrap_or_else(|| DEFAULT_URL.to_owned());
        Ok(Self {
            base_url: parse_base_url(raw_url.trim())?,
            api_key: ApiKey(key.into()),
        })
    }

    /// Whether the key would travel unencrypted to another machine: `http` to a host that is
    /// not loopback. Worth a warning, not a refusal (a private network may be fine).
    #[must_use]
    pub fn sends_key_in_clear(&self) -> bool {
        if self.base_url.scheme() != "http" {
            return false;
        }
        match self.base_url.host() {
            Some(url::Host::Domain(d)) => d != "localhost",
            Some(url::Host::Ipv4(ip)) => !ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => !ip.is_loopback(),
            None => true,
        }
    }
}

/// An absolute `http`/`https` URL without query or fragment, its path ending in `/` so that
/// joining `integration/work-patterns` keeps a prefix such as `/discovery/`.
fn parse_base_url(raw: &str) -> Result<Url, ClientError> {
    let bad = |reason: &str| ClientError::BadUrl {
        url: raw.to_owned(),
        reason: reason.to_owned(),
    };
    let mut url = Url::parse(raw).map_err(|e| bad(&e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad("the scheme must be http or https"));
    }
    if url.host().is_none() {
        return Err(bad("it has no host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad(
            "credentials in the URL are not supported; use DISCOVERY_API_KEY",
        ));
    }
    url.set_query(None);
    url.set_fragment(None);
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vars<'static> {
        Vars::from_pairs(pairs.iter().map(|(k, v)| (*k, *v)))
    }

    #[test]
    fn a_missing_or_blank_key_is_refused() {
        assert_eq!(
            ClientSettings::from_parts(None, &env(&[])).unwrap_err(),
            ClientError::MissingKey
        );
        assert_eq!(
            ClientSettings::from_parts(None, &env(&[(KEY_VARIABLE, "  \n")])).unwrap_err(),
            ClientError::MissingKey
        );
    }

    #[test]
    fn a_key_with_spaces_inside_is_refused() {
        assert_eq!(
            ClientSettings::from_parts(None, &env(&[(KEY_VARIABLE, "ds_a b")])).unwrap_err(),
            ClientError::UnusableKey
        );
    }

    #[test]
    fn the_key_is_trimmed_and_never_shown_by_debug() {
        let config =
            ClientSettings::from_parts(None, &env(&[(KEY_VARIABLE, "ds_secret123\n")])).unwrap();
        assert_eq!(config.api_key.expose_secret(), "ds_secret123");
        let shown = format!("{config:?}");
        assert!(!shown.contains("secret123"), "{shown}");
        assert!(shown.contains("REDACTED"), "{shown}");
    }

    #[test]
    fn the_url_argument_wins_over_the_variable_which_wins_over_the_default() {
        let both = env(&[(KEY_VARIABLE, "k"), (URL_VARIABLE, "http://from-env:1")]);
        let config =
            ClientSettings::from_parts(Some("https://from-arg.example/".into()), &both).unwrap();
        assert_eq!(config.base_url.as_str(), "https://from-arg.example/");

        let config = ClientSettings::from_parts(None, &both).unwrap();
        assert_eq!(config.base_url.as_str(), "http://from-env:1/");

        let config = ClientSettings::from_parts(None, &env(&[(KEY_VARIABLE, "k")])).unwrap();
        assert_eq!(config.base_url.as_str(), "http://127.0.0.1:8011/");
    }

    #[test]
    fn a_path_prefix_is_kept_and_query_and_fragment_dropped() {
        let config = ClientSettings::from_parts(
            Some("https://example.org/discovery?x=1#top".into()),
            &env(&[(KEY_VARIABLE, "k")]),
        )
        .unwrap();
        assert_eq!(config.base_url.as_str(), "https://example.org/discovery/");
    }

    #[test]
    fn unusable_urls_are_refused_with_a_reason() {
        for bad in [
            "not a url",
            "ftp://example.org",
            "https://user:pw@example.org",
        ] {
            let error = ClientSettings::from_parts(Some(bad.into()), &env(&[(KEY_VARIABLE, "k")]));
            assert!(
                matches!(error, Err(ClientError::BadUrl { .. })),
                "{bad}: {error:?}"
            );
        }
    }

    #[test]
    fn plain_http_is_flagged_only_off_loopback() {
        let key = env(&[(KEY_VARIABLE, "k")]);
        let clear = |url: &str| {
            ClientSettings::from_parts(Some(url.into()), &key)
                .unwrap()
                .sends_key_in_clear()
        };
        assert!(!clear("http://127.0.0.1:8011"));
        assert!(!clear("http://localhost:8011"));
        assert!(!clear("http://[::1]:8011"));
        assert!(!clear("https://discovery.example.org"));
        assert!(clear("http://discovery.example.org"));
        assert!(clear("http://10.0.0.5:8011"));
    }
}
