//! Turns a token response into the verified person: checks the ID token (signature against the
//! JWKS, `iss`, `aud`, `exp`, `nonce`, `at_hash`) and reads the claims sign-in needs.

use openidconnect::core::{
    CoreGenderClaim, CoreIdTokenClaims, CoreJwsSigningAlgorithm, CoreTokenResponse,
    CoreUserInfoClaims,
};
use openidconnect::{
    AccessTokenHash, ClaimsVerificationError, LocalizedClaim, Nonce, OAuth2TokenResponse,
    StandardClaims, TokenResponse,
};

use crate::discovery::DiscoveredClient;
use crate::error::OidcError;

/// The ID-token signatures accepted: RS*, PS*, ES* and EdDSA.
const ASYMMETRIC_ALGS: [CoreJwsSigningAlgorithm; 10] = [
    CoreJwsSigningAlgorithm::RsaSsaPkcs1V15Sha256,
    CoreJwsSigningAlgorithm::RsaSsaPkcs1V15Sha384,
    CoreJwsSigningAlgorithm::RsaSsaPkcs1V15Sha512,
    CoreJwsSigningAlgorithm::RsaSsaPssSha256,
    CoreJwsSigningAlgorithm::RsaSsaPssSha384,
    CoreJwsSigningAlgorithm::RsaSsaPssSha512,
    CoreJwsSigningAlgorithm::EcdsaP256Sha256,
    CoreJwsSigningAlgorithm::EcdsaP384Sha384,
    CoreJwsSigningAlgorithm::EcdsaP521Sha512,
    CoreJwsSigningAlgorithm::EdDsa,
];

/// Verifies the ID token of a code exchange and returns its claims.
pub(crate) fn verify_id_token(
    client: &DiscoveredClient,
    token: &CoreTokenResponse,
    nonce: &Nonce,
) -> Result<CoreIdTokenClaims, OidcError> {
    let id_token = token.id_token().ok_or(OidcError::MissingIdToken)?;
    // Asymmetric signatures only: with HS256 the "key" is our own client secret, so a provider
    // (or anyone who learns the secret) could mint ID tokens for any person.
    let verifier = client.id_token_verifier().set_allowed_algs(ASYMMETRIC_ALGS);
    let claims = id_token
        .claims(&verifier, nonce)
        .map_err(OidcError::InvalidToken)?;
    // `at_hash` binds the access token (used for the user info) to this ID token.
    if let Some(expected) = claims.access_token_hash() {
        let signature =
            |e| OidcError::InvalidToken(ClaimsVerificationError::SignatureVerification(e));
        let alg = id_token.signing_alg().map_err(signature)?;
        let key = id_token.signing_key(&verifier).map_err(signature)?;
        let actual = AccessTokenHash::from_token(token.access_token(), alg, key).map_err(|e| {
            OidcError::InvalidToken(ClaimsVerificationError::Unsupported(e.to_string()))
        })?;
        if actual != *expected {
            return Err(OidcError::AccessTokenHashMismatch);
        }
    }
    Ok(claims.clone())
}

/// The claims sign-in needs, from the ID token or the user info.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Person {
    pub(crate) email: Option<String>,
    /// An absent `email_verified` means not verified.
    pub(crate) email_verified: bool,
    pub(crate) name: Option<String>,
}

impl Person {
    pub(crate) fn from_id_token(claims: &CoreIdTokenClaims) -> Self {
        Self {
            email: claims.email().map(|e| e.as_str().to_owned()),
            email_verified: claims.email_verified().unwrap_or(false),
            name: default_locale(claims.name()),
        }
    }

    pub(crate) fn from_user_info(claims: &CoreUserInfoClaims) -> Self {
        let claims: &StandardClaims<CoreGenderClaim> = claims.standard_claims();
        Self {
            email: claims.email().map(|e| e.as_str().to_owned()),
            email_verified: claims.email_verified().unwrap_or(false),
            name: default_locale(claims.name()),
        }
    }
}

/// The untagged value of a localizable claim (`name`, not `name#de`).
fn default_locale<T: std::ops::Deref<Target = String>>(
    claim: Option<&LocalizedClaim<T>>,
) -> Option<String> {
    claim
        .and_then(|c| c.get(None))
        .map(|v| v.as_str().to_owned())
}
