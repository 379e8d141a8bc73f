//! Sign-in sessions and their rotating refresh tokens.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::account::{RefreshToken, Session, TokenHash};
use crate::error::RepoError;
use crate::ids::{RefreshTokenId, SessionId, UserId};

/// Sign-in sessions and their refresh tokens.
/// # Errors
/// `Conflict` from [`SessionRepository::rotate`] when the old token was already revoked.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait SessionRepository: Send + Sync {
    /// Stores a new session with its first refresh token.
    async fn create(&self, session: &Session, token: &RefreshToken) -> Result<(), RepoError>;
    async fn get(&self, id: SessionId) -> Result<Option<Session>, RepoError>;
    /// The token with this hash, revoked or not, and its session.
    async fn find_refresh(
        &self,
        hash: &TokenHash,
    ) -> Result<Option<(RefreshToken, Session)>, RepoError>;
    /// Revokes `old` and stores `new` in one transaction, and marks the session used.
    async fn rotate(
        &self,
        old: RefreshTokenId,
        new: &RefreshToken,
        now: OffsetDateTime,
    ) -> Result<(), RepoError>;
    /// Stores one more token of an active session (the refresh grace: a second tab refreshing
    /// with the token the first one just rotated) and marks the session used.
    /// [`RepoError::NotFound`] when the session is revoked or unknown.
    async fn add_refresh(&self, new: &RefreshToken, now: OffsetDateTime) -> Result<(), RepoError>;
    /// Revokes a session of `user` and all its tokens; `false` when it is not theirs or unknown.
    async fn revoke(
        &self,
        user: UserId,
        id: SessionId,
        now: OffsetDateTime,
    ) -> Result<bool, RepoError>;
    /// The user's sessions that are neither revoked nor expired, newest first.
    async fn list_active(
        &self,
        user: UserId,
        now: OffsetDateTime,
    ) -> Result<Vec<Session>, RepoError>;
}
