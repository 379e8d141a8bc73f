//! A person's webhook endpoints: where events go, which events, and the secret that signs them.
//! The address rules (https; only public addresses, as [`super::address`] defines them) are
//! checked here on the URL as written; the delivery adapter checks every resolved address again on each
//! connection, since a name may point anywhere later.

use std::net::IpAddr;

use secrecy::{ExposeSecret, SecretString};
use time::OffsetDateTime;
use url::{Host, Url};

use super::EventType;
use super::address::is_public;
use crate::ids::{UserId, WebhookId};

/// At most this many endpoints per person.
pub const MAX_WEBHOOKS_PER_USER: usize = 10;
/// An endpoint whose last this many deliveries all failed is disabled.
pub const DISABLE_AFTER_FAILURES: u32 = 20;
/// The longest URL accepted.
pub const URL_MAX_CHARS: usize = 2_000;

/// An endpoint URL that passed the rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookUrl(Url);

/// Why a URL is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WebhookUrlError {
    #[error("is not a URL")]
    NotAUrl,
    #[error("must be at most {URL_MAX_CHARS} characters")]
    TooLong,
    #[error("must be an https:// URL")]
    NotHttps,
    #[error("must not contain credentials")]
    Credentials,
    #[error(
        "must not point to a private, loopback, link-local, multicast or other special-purpose address"
    )]
    PrivateAddress,
    /// The host name does not resolve (checked when the endpoint is registered).
    #[error("names a host that does not resolve")]
    Unresolvable,
}

impl WebhookUrl {
    /// Checks `raw`: an absolute `https` URL (also `http` when `allow_private`) without
    /// credentials whose host, when it is an IP address, is public (any when `allow_private`).
    /// The fragment is dropped.
    ///
    /// # Errors
    /// [`WebhookUrlError`] naming the broken rule.
    pub fn parse(raw: &str, allow_private: bool) -> Result<Self, WebhookUrlError> {
        if raw.chars().count() > URL_MAX_CHARS {
            return Err(WebhookUrlError::TooLong);
        }
        let mut url = Url::parse(raw.trim()).map_err(|_| WebhookUrlError::NotAUrl)?;
        match url.scheme() {
            "https" => {}
            "http" if allow_private => {}
            _ => return Err(WebhookUrlError::NotHttps),
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(WebhookUrlError::Credentials);
        }
        let public = match url.host() {
            None => return Err(WebhookUrlError::NotAUrl),
            Some(Host::Ipv4(ip)) => is_public(IpAddr::V4(ip)),
            Some(Host::Ipv6(ip)) => is_public(IpAddr::V6(ip)),
            Some(Host::Domain(name)) => !is_local_name(name),
        };
        if !public && !allow_private {
            return Err(WebhookUrlError::PrivateAddress);
        }
        url.set_fragment(None);
        Ok(Self(url))
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    #[must_use]
    pub fn url(&self) -> &Url {
        &self.0
    }
}

/// Names that always mean this machine or its network, whatever a resolver says.
fn is_local_name(name: &str) -> bool {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost"
        || name.ends_with(".localhost")
        || name.ends_with(".local")
        || name.ends_with(".internal")
}

/// The signing secret: `whsec_` and the base64 of 32 random bytes. A secret: its `Debug` shows
/// none of it, and it is read (`expose_secret`) to sign, to store and to show once.
#[derive(Debug, Clone)]
pub struct WebhookSecret(SecretString);

impl WebhookSecret {
    pub const PREFIX: &'static str = "whsec_";

    /// Wraps a secret made by the caller (`whsec_` + base64 of random bytes).
    #[must_use]
    pub fn new(secret: String) -> Self {
        Self(secret.into())
    }
}

impl ExposeSecret<str> for WebhookSecret {
    fn expose_secret(&self) -> &str {
        self.0.expose_secret()
    }
}

/// A webhook, and a claimed delivery's target, are compared as values, secret included (the
/// storage tests check that a stored secret comes back unchanged). Nothing is authenticated by
/// this comparison, so it need not take constant time.
impl PartialEq for WebhookSecret {
    fn eq(&self, other: &Self) -> bool {
        self.expose_secret() == other.expose_secret()
    }
}

impl Eq for WebhookSecret {}

/// An endpoint as registered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Webhook {
    pub id: WebhookId,
    pub user_id: UserId,
    pub url: WebhookUrl,
    /// The events it receives (a `ping` always reaches it).
    pub events: Vec<EventType>,
    pub secret: WebhookSecret,
    pub created_at: OffsetDateTime,
    pub disabled_at: Option<OffsetDateTime>,
    /// Deliveries that failed since the last success.
    pub failures_in_a_row: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_urls_to_public_hosts_are_accepted() {
        for ok in [
            "https://hooks.example.com/discovery",
            "https://93.184.215.14/x",
            "https://[2606:4700::6810:85e5]/x",
            "https://example.com:8443/x?y=1#fragment",
            // Public IPv4 addresses inside IPv6 forms.
            "https://[64:ff9b::5db8:d70e]/x",
            "https://[2002:5db8:d70e::1]/x",
        ] {
            let url = WebhookUrl::parse(ok, false).unwrap();
            assert!(!url.as_str().contains('#'), "{url:?}");
        }
    }

    #[test]
    fn private_loopback_link_local_and_plain_http_are_refused_unless_allowed() {
        for (bad, why) in [
            ("http://hooks.example.com/", WebhookUrlError::NotHttps),
            ("ftp://hooks.example.com/", WebhookUrlError::NotHttps),
            ("https://127.0.0.1/", WebhookUrlError::PrivateAddress),
            ("https://10.0.0.1/", WebhookUrlError::PrivateAddress),
            ("https://172.16.5.4/", WebhookUrlError::PrivateAddress),
            ("https://192.168.1.1/", WebhookUrlError::PrivateAddress),
            ("https://169.254.169.254/", WebhookUrlError::PrivateAddress),
            ("https://100.64.0.1/", WebhookUrlError::PrivateAddress),
            ("https://0.0.0.0/", WebhookUrlError::PrivateAddress),
            ("https://224.0.0.1/", WebhookUrlError::PrivateAddress),
            ("https://[::1]/", WebhookUrlError::PrivateAddress),
            ("https://[fe80::1]/", WebhookUrlError::PrivateAddress),
            ("https://[fd00::1]/", WebhookUrlError::PrivateAddress),
            (
                "https://[::ffff:127.0.0.1]/",
                WebhookUrlError::PrivateAddress,
            ),
            (
                "https://[::ffff:10.1.2.3]/",
                WebhookUrlError::PrivateAddress,
            ),
            // Forms of IPv6 that embed a loopback or private IPv4 address, and other
            // special-purpose ranges, written as URLs (address.rs has the rule itself).
            ("https://[::127.0.0.1]/", WebhookUrlError::PrivateAddress),
            ("https://[::ffff:7f00:1]/", WebhookUrlError::PrivateAddress),
            ("https://[64:ff9b::a00:1]/", WebhookUrlError::PrivateAddress),
            ("https://[2002:7f00:1::]/", WebhookUrlError::PrivateAddress),
            (
                "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
                WebhookUrlError::PrivateAddress,
            ),
            ("https://[100::1]/", WebhookUrlError::PrivateAddress),
            ("https://198.51.100.7/", WebhookUrlError::PrivateAddress),
            ("https://localhost/", WebhookUrlError::PrivateAddress),
            ("https://api.localhost./", WebhookUrlError::PrivateAddress),
            // Decimal and short forms are IPv4 to the WHATWG parser.
            ("https://2130706433/", WebhookUrlError::PrivateAddress),
            ("https://127.1/", WebhookUrlError::PrivateAddress),
            ("https://user:pw@example.com/", WebhookUrlError::Credentials),
            ("not a url", WebhookUrlError::NotAUrl),
            ("/relative", WebhookUrlError::NotAUrl),
        ] {
            assert_eq!(WebhookUrl::parse(bad, false), Err(why), "{bad}");
        }
        for allowed in [
            "http://127.0.0.1:8080/hook",
            "https://[::1]/",
            "https://10.0.0.1/",
        ] {
            assert!(WebhookUrl::parse(allowed, true).is_ok(), "{allowed}");
        }
        let long = format!("https://example.com/{}", "a".repeat(URL_MAX_CHARS));
        assert_eq!(
            WebhookUrl::parse(&long, true),
            Err(WebhookUrlError::TooLong)
        );
    }

    #[test]
    fn the_secret_never_reaches_debug_output() {
        let secret = WebhookSecret::new("whsec_c2VjcmV0".to_owned());
        let shown = format!("{secret:?}");
        assert!(!shown.contains("c2VjcmV0"), "{shown}");
        assert_eq!(secret.expose_secret(), "whsec_c2VjcmV0");
        assert_eq!(secret, WebhookSecret::new("whsec_c2VjcmV0".to_owned()));
        assert_ne!(secret, WebhookSecret::new("whsec_b3RoZXI".to_owned()));
    }
}
