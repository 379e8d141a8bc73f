//! Check-ins, and what the scheduled run needs to write them.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::account::TimeZone;
use crate::coaching::{CheckIn, CoachingPreferences};
use crate::error::RepoError;
use crate::ids::{CheckInId, UserId};
use crate::pagination::{Cursor, Page, PageLimit};
use crate::profile::Profile;

/// What the scheduled run needs to decide whether one person's check-in is due and to write it.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckInCandidate {
    /// The person's profile (the run asks only for affirmed ones).
    pub profile: Profile,
    /// The stored preferences; `None` until the person (or the API's first read) stored some.
    pub preferences: Option<CoachingPreferences>,
    /// When the person's latest check-in was written, if any.
    pub last_checkin_at: Option<OffsetDateTime>,
    /// The person's time zone: whose calendar days the check-in observes.
    pub time_zone: TimeZone,
}

/// A check-in to insert unless its person already has one created after `since`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardedCheckIn {
    pub checkin: CheckIn,
    pub since: OffsetDateTime,
}

/// Check-ins.
/// # Errors
/// `Conflict` from [`CheckInRepository::save_response`] when a response is already stored.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait CheckInRepository: Send + Sync {
    /// Newest first.
    async fn list(
        &self,
        user: UserId,
        limit: PageLimit,
        before: Option<Cursor>,
    ) -> Result<Page<CheckIn>, RepoError>;
    async fn get(&self, user: UserId, id: CheckInId) -> Result<Option<CheckIn>, RepoError>;
    async fn insert(&self, checkin: &CheckIn) -> Result<(), RepoError>;
    /// Inserts unless the user already has a check-in created after `since`; safe when several
    /// hosts run it at once. Returns whether it inserted.
    async fn insert_unless_recent(
        &self,
        checkin: &CheckIn,
        since: OffsetDateTime,
    ) -> Result<bool, RepoError>;
    /// Inserts, in one transaction, every check-in whose person has none created after its
    /// `since` (checked inside the transaction, so several hosts may run it at once over the
    /// same people without creating duplicates). Returns how many it inserted.
    async fn insert_unless_recent_batch(&self, batch: &[GuardedCheckIn]) -> Result<u64, RepoError>;
    /// Stores `checkin.response` unless a response exists.
    async fn save_response(&self, checkin: &CheckIn) -> Result<(), RepoError>;
    async fn latest_created_at(&self, user: UserId) -> Result<Option<OffsetDateTime>, RepoError>;
    /// One keyset page of the people whose profile is affirmed, in user id order after `after`,
    /// each with their stored preferences and the time of their latest check-in (for the run).
    async fn candidates(
        &self,
        after: Option<UserId>,
        limit: PageLimit,
    ) -> Result<Vec<CheckInCandidate>, RepoError>;
}
