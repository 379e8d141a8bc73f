//! What the adapter needs to know about the identity provider and about us as its client.

use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};

/// The OpenID Connect client settings. Composed by the binaries from `OIDC_ISSUER_URL`,
/// `OIDC_CLIENT_ID`, `OIDC_CLIENT_SECRET` and `OAUTH_REDIRECT_URI`; the adapter never reads the
/// environment itself.
#[derive(Debug, Clone)]
pub struct OidcConfig {
    /// The issuer identifier, exactly as the provider spells it (trailing slash included or not):
    /// discovery and the ID token's `iss` are compared to it character for character.
    pub issuer_url: String,
    pub client_id: String,
    pub client_secret: ClientSecret,
    /// Our callback, registered at the provider.
    pub redirect_uri: String,
    /// Scopes to request; `openid` is always sent, whether listed or not.
    pub scopes: Vec<String>,
    /// Limit for each call to the provider (discovery, JWKS, token, user info).
    pub http_timeout: Duration,
}

impl OidcConfig {
    /// `openid` for the ID token, `email` and `profile` for the claims sign-in needs.
    pub const DEFAULT_SCOPES: [&'static str; 3] = ["openid", "email", "profile"];
    pub const DEFAULT_HTTP_TIMEOUT: Duration = Duration::from_secs(10);

    /// A configuration with the default scopes and timeout.
    pub fn new(
        issuer_url: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: ClientSecret,
        redirect_uri: impl Into<String>,
    ) -> Self {
        Self {
            issuer_url: issuer_url.into(),
            client_id: client_id.into(),
            client_secret,
            redirect_uri: redirect_uri.into(),
            scopes: Self::DEFAULT_SCOPES.map(str::to_owned).to_vec(),
            http_timeout: Self::DEFAULT_HTTP_TIMEOUT,
        }
    }
}

/// The client secret: a secrecy secret, so its `Debug` shows none of it and it has no
/// `Display`; it cannot reach a log by accident, and `expose_secret` is the one way to read it.
#[derive(Debug, Clone)]
pub struct ClientSecret(SecretString);

impl ClientSecret {
    pub fn new(secret: String) -> Self {
        Self(secret.into())
    }
}

impl From<String> for ClientSecret {
    fn from(secret: String) -> Self {
        Self::new(secret)
    }
}

/// From the settings, where it is already a secret.
impl From<SecretString> for ClientSecret {
    fn from(secret: SecretString) -> Self {
        Self(secret)
    }
}

impl ExposeSecret<str> for ClientSecret {
    fn expose_secret(&self) -> &str {
        self.0.expose_secret()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_never_shows_the_client_secret() {
        let config = OidcConfig::new(
            "https://idp.example.org",
            "discovery",
            ClientSecret::new("hunter2-very-secret".to_owned()),
            "http://127.0.0.1:8011/api/auth/callback",
        );
        let printed = format!("{config:?}");
        assert!(!printed.contains("hunter2"), "{printed}");
        assert!(printed.contains("REDACTED"));
    }
}
