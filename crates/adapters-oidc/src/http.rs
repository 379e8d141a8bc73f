//! The HTTP client used for every call to the identity provider.

use std::time::Duration;

use openidconnect::reqwest;

use crate::error::OidcError;

/// Redirects are off, as the openidconnect docs require: a redirect followed on the token or
/// user-info call could hand the code or the access token to another host (SSRF). The timeout
/// keeps a stalled provider from holding a sign-in request forever.
pub(crate) fn build_client(timeout: Duration) -> Result<reqwest::Client, OidcError> {
    reqwest::ClientBuilder::new()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(timeout)
        .connect_timeout(timeout.min(Duration::from_secs(5)))
        .build()
        .map_err(|e| OidcError::Config(format!("cannot build the HTTP client: {e}")))
}
