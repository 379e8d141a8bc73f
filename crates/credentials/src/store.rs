//! The port the credential checks read accounts through: an API key's owner and whether a
//! session is still active. The domain's account use cases implement it; tests mock it.

use async_trait::async_trait;
use domain::RepoError;
use domain::account::{ApiKey, TokenHash, User};
use domain::ids::SessionId;
use domain::ports::{ApiKeyRepository, Clock, SessionRepository, UserRepository};
use domain::services::AccountService;

/// Where credentials are checked when the cache does not know them.
#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait CredentialStore: Send + Sync {
    /// The live key with this SHA-256 and its owner; `None` for an unknown, revoked or expired
    /// key. Also records the key's use.
    ///
    /// # Errors
    /// [`RepoError`] when the store cannot answer; the caller answers 503 or 500 by its kind.
    async fn api_key_owner(&self, hash: &TokenHash) -> Result<Option<(ApiKey, User)>, RepoError>;

    /// Whether the session exists and has neither ended nor idled out.
    ///
    /// # Errors
    /// [`RepoError`] when the store cannot answer.
    async fn session_is_active(&self, id: SessionId) -> Result<bool, RepoError>;
}

#[async_trait]
impl<U, S, A, K> CredentialStore for AccountService<U, S, A, K>
where
    U: UserRepository,
    S: SessionRepository,
    A: ApiKeyRepository,
    K: Clock,
{
    async fn api_key_owner(&self, hash: &TokenHash) -> Result<Option<(ApiKey, User)>, RepoError> {
        self.authenticate_api_key(hash).await
    }

    async fn session_is_active(&self, id: SessionId) -> Result<bool, RepoError> {
        AccountService::session_is_active(self, id).await
    }
}
