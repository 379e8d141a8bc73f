//! The credential checks: who an API key or an access token acts as. The cache answers the
//! common case; the account store ([`CredentialStore`]) the rest. The HTTP layer finds the
//! credential in the request and turns the outcome into a caller or a 401/503.

use domain::RepoError;
use domain::account::{KeyScopes, User};
use domain::ids::{SessionId, UserId};

use crate::cache::{CredentialCache, KeyOwner, VerifiedToken};
use crate::jwt::JwtKeys;
use crate::secrets::{self, SecretDigest};
use crate::store::CredentialStore;

/// The issuer recorded for people who signed in through dev login.
pub const DEV_LOGIN_ISSUER: &str = "urn:discovery:dev-login";

/// The operator key (only its SHA-256 is kept, computed once) and the synthetic admin user it
/// acts as.
#[derive(Debug, Clone)]
pub struct Operator {
    pub key_digest: SecretDigest,
    pub user: User,
}

/// Who a credential acts as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Authenticated {
    pub user_id: UserId,
    pub is_admin: bool,
    /// The session of an access token (absent for API keys).
    pub session_id: Option<SessionId>,
    /// The scopes of a personal API key (absent for the operator key and tokens).
    pub key_scopes: Option<KeyScopes>,
}

/// Why a credential was not accepted.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// Unknown, malformed, expired or revoked: a 401, and nothing tells which.
    #[error("the credential is not valid")]
    Unauthenticated,
    /// The account store could not answer: the credential may well be good.
    #[error("credentials could not be checked")]
    Store(#[from] RepoError),
}

/// The credential checks' dependencies.
pub struct Authenticator<S> {
    pub store: S,
    pub jwt: JwtKeys,
    /// Credentials checked recently, so most requests need no store read to authenticate.
    pub cache: CredentialCache,
    pub operator: Option<Operator>,
    /// `ADMIN_EMAILS`, as configured (lower-cased).
    pub admin_emails: Vec<String>,
}

impl<S> std::fmt::Debug for Authenticator<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authenticator")
            .field("operator", &self.operator)
            .finish_non_exhaustive()
    }
}

impl<S: CredentialStore> Authenticator<S> {
    /// Admins: the people whose e-mail, as their identity provider verified it, is in
    /// `ADMIN_EMAILS` exactly (both folded in ASCII only: `Email`). Someone signed in through dev
    /// login never is, whatever address they typed (the operator is checked by the caller).
    #[must_use]
    pub fn is_admin(&self, user: &User) -> bool {
        user.issuer != DEV_LOGIN_ISSUER
            && self.admin_emails.iter().any(|a| a == user.email.as_str())
    }

    /// Who the key in `X-API-Key` acts as: the operator (an admin, no scopes) or a person's
    /// personal key (never an admin, within its scopes).
    ///
    /// # Errors
    /// [`CheckError::Unauthenticated`] for any key that is not live; [`CheckError::Store`] when
    /// a personal key the cache does not know could not be looked up.
    pub async fn api_key(&self, key: &str) -> Result<Authenticated, CheckError> {
        // One SHA-256 serves both checks: the operator key's is computed at start, and a personal
        // key is stored, and remembered, by its own.
        let digest = secrets::digest(key);
        if let Some(operator) = &self.operator
            && secrets::same_digest(&digest, &operator.key_digest)
        {
            return Ok(Authenticated {
                user_id: operator.user.id,
                is_admin: true,
                session_id: None,
                key_scopes: None,
            });
        }
        if !key.starts_with(secrets::API_KEY_PREFIX) {
            return Err(CheckError::Unauthenticated);
        }
        let now = time::OffsetDateTime::now_utc();
        let remembered = self
            .cache
            .api_key_owner(&digest)
            .filter(|owner| owner.expires_at.is_none_or(|at| now < at));
        let owner = match remembered {
            Some(owner) => owner,
            None => self.look_up_key(digest).await?,
        };
        Ok(Authenticated {
            user_id: owner.user_id,
            is_admin: false,
            session_id: None,
            key_scopes: Some(owner.scopes),
        })
    }

    /// A store check, which also keeps the key's `last_used_at` (to within the cache expiry).
    async fn look_up_key(&self, digest: SecretDigest) -> Result<KeyOwner, CheckError> {
        let (key, user) = self
            .store
            .api_key_owner(&secrets::stored_form(&digest))
            .await?
            .ok_or(CheckError::Unauthenticated)?;
        let owner = KeyOwner {
            user_id: user.id,
            scopes: key.scopes,
            expires_at: key.expires_at,
        };
        self.cache.remember_api_key(digest, owner);
        self.cache.remember_user(user);
        Ok(owner)
    }

    /// Who an access token (Bearer or the session cookie) acts as, while its session is active.
    ///
    /// # Errors
    /// [`CheckError::Unauthenticated`] for a bad or expired token or an ended session;
    /// [`CheckError::Store`] when the session could not be looked up.
    pub async fn access_token(&self, token: &str) -> Result<Authenticated, CheckError> {
        let verified = self.verify_access(token)?;
        // A revoked session's tokens stop working at once, not only when they expire (see
        // `CredentialCache` for how long another instance may take to notice).
        let session_id = verified.session_id;
        if !self.cache.session_is_active(session_id) {
            if !self.store.session_is_active(session_id).await? {
                return Err(CheckError::Unauthenticated);
            }
            self.cache.remember_active_session(session_id);
        }
        Ok(Authenticated {
            user_id: verified.user_id,
            is_admin: verified.is_admin,
            session_id: Some(session_id),
            key_scopes: None,
        })
    }

    /// The token's signature and claims, checked once and then remembered within the cache's
    /// expiry (each check decodes it twice and computes an HMAC; its expiry is still checked
    /// every time).
    fn verify_access(&self, token: &str) -> Result<VerifiedToken, CheckError> {
        let now = jsonwebtoken::get_current_timestamp();
        if let Some(verified) = self.cache.verified_token(token, now) {
            return Ok(verified);
        }
        let claims = self
            .jwt
            .verify_access(token)
            .map_err(|_| CheckError::Unauthenticated)?;
        let verified = VerifiedToken {
            user_id: claims
                .sub
                .parse()
                .map_err(|_| CheckError::Unauthenticated)?,
            session_id: claims
                .sid
                .parse()
                .map_err(|_| CheckError::Unauthenticated)?,
            is_admin: claims.adm,
            expires_at: u64::try_from(claims.exp).map_err(|_| CheckError::Unauthenticated)?,
        };
        self.cache.remember_verified_token(token, verified);
        Ok(verified)
    }
}

#[cfg(test)]
#[path = "check_tests.rs"]
mod tests;
