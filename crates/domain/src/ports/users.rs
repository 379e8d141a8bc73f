//! Users: the people who sign in, their data and what is stored about them.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::account::{AccountData, Email, LoginIdentity, TimeZone, User, UserStats};
use crate::error::RepoError;
use crate::ids::UserId;

/// People. # Errors: `Unavailable`/`Unexpected` on storage failure.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait UserRepository: Send + Sync {
    /// Creates the user on first sign-in, keyed by `(issuer, subject)`, or refreshes the e-mail,
    /// `last_login_at` and the name (a missing name keeps the stored one); returns the row.
    async fn upsert_login(
        &self,
        identity: &LoginIdentity,
        now: OffsetDateTime,
    ) -> Result<User, RepoError>;
    async fn get(&self, id: UserId) -> Result<Option<User>, RepoError>;
    async fn find_by_email(&self, email: &Email) -> Result<Option<User>, RepoError>;
    /// Deletes the user and every record that belongs to them; `false` when there was no such user.
    async fn delete(&self, id: UserId) -> Result<bool, RepoError>;
    /// Every record of the user, read in one consistent snapshot; `None` when there is no such user.
    async fn export(&self, id: UserId) -> Result<Option<AccountData>, RepoError>;
    /// Counts over the user's records; `since` bounds `requests_since`.
    async fn stats(&self, id: UserId, since: OffsetDateTime) -> Result<UserStats, RepoError>;
    /// The stored IANA name of the person's time zone; `None` when there is no such user.
    async fn time_zone(&self, id: UserId) -> Result<Option<String>, RepoError>;
    /// Stores the person's time zone; `false` when there is no such user.
    async fn set_time_zone(&self, id: UserId, zone: &TimeZone) -> Result<bool, RepoError>;
}
