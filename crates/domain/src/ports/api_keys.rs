//! Personal API keys.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::account::{ApiKey, TokenHash};
use crate::error::RepoError;
use crate::ids::{ApiKeyId, UserId};

/// Personal API keys (hashes only).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ApiKeyRepository: Send + Sync {
    async fn create(&self, key: &ApiKey) -> Result<(), RepoError>;
    /// The user's keys that are not revoked, newest first.
    async fn list(&self, user: UserId) -> Result<Vec<ApiKey>, RepoError>;
    /// `false` when the key is not the user's or already revoked.
    async fn revoke(
        &self,
        user: UserId,
        id: ApiKeyId,
        now: OffsetDateTime,
    ) -> Result<bool, RepoError>;
    /// The unrevoked key with this hash. Records `now` as its `last_used_at`, but writes at most
    /// once a minute per key so that authenticating stays a read on the hot path.
    async fn authenticate(
        &self,
        hash: &TokenHash,
        now: OffsetDateTime,
    ) -> Result<Option<ApiKey>, RepoError>;
}
