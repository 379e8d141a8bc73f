//! The identity provider: sign-in with OpenID Connect.

use async_trait::async_trait;

/// The start of a sign-in at the identity provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationRequest {
    /// Where to send the browser.
    pub url: String,
    pub state: String,
    pub nonce: String,
    pub pkce_verifier: String,
}

/// What a verified ID token says about the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedIdentity {
    /// The issuer that vouched for the person; with `subject` it names them for good.
    pub issuer: String,
    pub subject: String,
    pub email: String,
    pub email_verified: bool,
    pub name: Option<String>,
}

/// A sign-in failure at or with the identity provider.
#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    #[error("the identity provider could not be reached")]
    Unreachable(#[source] anyhow::Error),
    #[error("the provider refused our client or its settings are unusable")]
    Misconfigured(#[source] anyhow::Error),
    /// The code, its PKCE verifier, or the response's `iss` (RFC 9207) was refused.
    #[error("the authorization code was refused")]
    CodeRejected,
    #[error("the ID token failed verification")]
    InvalidToken(#[source] anyhow::Error),
}

/// An OpenID Connect provider.
/// # Errors
/// [`IdentityError`] as named.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait IdentityProvider: Send + Sync {
    /// Builds an authorization-code request with PKCE (S256), `state` and `nonce`.
    async fn begin(&self) -> Result<AuthorizationRequest, IdentityError>;
    /// Checks the callback's `iss` parameter (RFC 9207) when given or announced, exchanges the
    /// code and verifies the ID token (signature, issuer, audience, expiry, nonce).
    async fn finish(
        &self,
        code: &str,
        pkce_verifier: &str,
        nonce: &str,
        iss: Option<String>,
    ) -> Result<VerifiedIdentity, IdentityError>;
}
