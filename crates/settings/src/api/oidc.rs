//! The OpenID Connect client (`OIDC_*`, `OAUTH_REDIRECT_URI`), when `OIDC_ISSUER_URL` is set.

use crate::Vars;
use secrecy::SecretString;
use url::Url;

use super::{ConfigError, invalid};

/// The OpenID Connect client, when `OIDC_ISSUER_URL` is set.
#[derive(Debug, Clone)]
pub struct OidcSettings {
    pub issuer_url: String,
    pub client_id: String,
    /// `OIDC_CLIENT_SECRET` (empty for a public client), a secret: `Debug` shows none of it.
    pub client_secret: SecretString,
    pub redirect_uri: String,
}

impl OidcSettings {
    /// `None` when no identity provider is configured.
    ///
    /// # Errors
    /// [`ConfigError`] naming the first unusable value.
    pub fn from_vars(
        vars: &Vars<'_>,
        dev: bool,
        public_base_url: &str,
    ) -> Result<Option<Self>, ConfigError> {
        let Some(issuer_url) = vars.get("OIDC_ISSUER_URL") else {
            return Ok(None);
        };
        let parsed = Url::parse(&issuer_url).map_err(|e| invalid("OIDC_ISSUER_URL", e))?;
        // Discovery, keys and tokens all come from there: over plain http anyone on the path
        // could answer instead. Only a dev machine may use a local http one.
        if parsed.scheme() != "https" && !dev {
            return Err(invalid(
                "OIDC_ISSUER_URL",
                "must be an https URL outside dev mode (--dev)",
            ));
        }
        let redirect_uri = vars.text(
            "OAUTH_REDIRECT_URI",
            &format!("{public_base_url}/api/auth/callback"),
        );
        Url::parse(&redirect_uri).map_err(|e| invalid("OAUTH_REDIRECT_URI", e))?;
        Ok(Some(Self {
            issuer_url,
            client_id: vars
                .get("OIDC_CLIENT_ID")
                .ok_or(ConfigError::Missing("OIDC_CLIENT_ID"))?,
            client_secret: vars.get("OIDC_CLIENT_SECRET").unwrap_or_default().into(),
            redirect_uri,
        }))
    }
}
