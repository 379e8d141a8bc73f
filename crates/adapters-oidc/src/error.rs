//! The adapter's own errors, sorted by meaning, and their mapping onto the port's
//! [`IdentityError`]. No message carries a secret, a code or a token: response bodies are dropped
//! and parse errors keep only the JSON path.

use domain::ports::IdentityError;
use openidconnect::core::CoreErrorResponseType;
use openidconnect::{
    ClaimsVerificationError, DiscoveryError, HttpClientError, RequestTokenError,
    StandardErrorResponse, UserInfoError, reqwest,
};

type HttpError = HttpClientError<reqwest::Error>;

/// Everything that can go wrong talking to the identity provider.
#[derive(Debug, thiserror::Error)]
pub enum OidcError {
    /// A setting is unusable (bad URL...); found at start-up.
    #[error("OpenID Connect configuration: {0}")]
    Config(String),
    /// Discovery or the JWKS could not be fetched or made no sense.
    #[error("OpenID discovery at the issuer failed")]
    Discovery(#[source] anyhow::Error),
    /// The token endpoint could not be reached or answered nonsense.
    #[error("the token endpoint failed")]
    TokenEndpoint(#[source] anyhow::Error),
    /// The provider refused the code (used, expired, wrong PKCE verifier or redirect URI).
    #[error("the token endpoint refused the authorization code ({0})")]
    CodeRejected(String),
    /// The provider refused us as a client: a configuration problem, not the user's.
    #[error("the token endpoint refused the client ({0}); check the client id and secret")]
    ClientRejected(String),
    /// The authorization response names another issuer than ours (RFC 9207 mix-up defence).
    #[error("the authorization response comes from an unexpected issuer")]
    IssuerMismatch,
    #[error("the token response carries no ID token")]
    MissingIdToken,
    #[error("the ID token failed verification")]
    InvalidToken(#[source] ClaimsVerificationError),
    #[error("the access token does not match the ID token's at_hash")]
    AccessTokenHashMismatch,
    #[error("neither the ID token nor the user info carries an e-mail address")]
    MissingEmail,
    /// The user-info endpoint could not be reached or answered nonsense.
    #[error("the user-info endpoint failed")]
    UserInfo(#[source] anyhow::Error),
    /// The user info belongs to someone else than the ID token.
    #[error("the user info failed verification")]
    InvalidUserInfo(#[source] ClaimsVerificationError),
}

impl From<OidcError> for IdentityError {
    fn from(e: OidcError) -> Self {
        match e {
            OidcError::CodeRejected(_) | OidcError::IssuerMismatch => IdentityError::CodeRejected,
            OidcError::MissingIdToken
            | OidcError::InvalidToken(_)
            | OidcError::AccessTokenHashMismatch
            | OidcError::MissingEmail
            | OidcError::InvalidUserInfo(_) => IdentityError::InvalidToken(e.into()),
            OidcError::Config(_) | OidcError::ClientRejected(_) => {
                IdentityError::Misconfigured(e.into())
            }
            OidcError::Discovery(_) | OidcError::TokenEndpoint(_) | OidcError::UserInfo(_) => {
                IdentityError::Unreachable(e.into())
            }
        }
    }
}

pub(crate) fn from_discovery(e: DiscoveryError<HttpError>) -> OidcError {
    let cause = match e {
        DiscoveryError::Request(inner) => http_cause(inner),
        DiscoveryError::Response(status, _body, _) => {
            anyhow::anyhow!("the provider answered HTTP {status}")
        }
        DiscoveryError::Parse(inner) => unparsable(inner.path()),
        DiscoveryError::Validation(why) => anyhow::anyhow!("invalid provider metadata: {why}"),
        DiscoveryError::UrlParse(inner) => anyhow::Error::new(inner),
        DiscoveryError::Other(why) => anyhow::anyhow!(why),
        other => anyhow::anyhow!("{other}"),
    };
    OidcError::Discovery(cause)
}

pub(crate) fn from_token_request(
    e: RequestTokenError<HttpError, StandardErrorResponse<CoreErrorResponseType>>,
) -> OidcError {
    match e {
        RequestTokenError::ServerResponse(response) => {
            // The error code is a fixed vocabulary; the free-text description is left out since
            // some providers echo request values into it.
            let code = oauth_error_code(response.error());
            match response.error() {
                CoreErrorResponseType::InvalidGrant | CoreErrorResponseType::InvalidRequest => {
                    OidcError::CodeRejected(code)
                }
                _ => OidcError::ClientRejected(code),
            }
        }
        RequestTokenError::Request(inner) => OidcError::TokenEndpoint(http_cause(inner)),
        // The body may hold tokens: keep only where parsing failed.
        RequestTokenError::Parse(inner, _body) => {
            OidcError::TokenEndpoint(unparsable(inner.path()))
        }
        RequestTokenError::Other(why) => OidcError::TokenEndpoint(anyhow::anyhow!(why)),
    }
}

pub(crate) fn from_user_info(e: UserInfoError<HttpError>) -> OidcError {
    let cause = match e {
        UserInfoError::ClaimsVerification(inner) => return OidcError::InvalidUserInfo(inner),
        UserInfoError::Request(inner) => http_cause(inner),
        UserInfoError::Response(status, _body, _) => {
            anyhow::anyhow!("the provider answered HTTP {status}")
        }
        UserInfoError::Parse(inner) => unparsable(inner.path()),
        UserInfoError::Other(why) => anyhow::anyhow!(why),
        other => anyhow::anyhow!("{other}"),
    };
    OidcError::UserInfo(cause)
}

/// Keeps the transport error (connection refused, timeout...) as the cause; its message names
/// the URL, never a request body.
fn http_cause(e: HttpError) -> anyhow::Error {
    match e {
        HttpClientError::Reqwest(inner) => anyhow::Error::new(*inner),
        other => anyhow::Error::new(other),
    }
}

fn unparsable(path: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("unparsable response at `{path}`")
}

fn oauth_error_code(code: &CoreErrorResponseType) -> String {
    code.as_ref().to_owned()
}
