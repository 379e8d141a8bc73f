//! The profile and its numbered revisions, written with everything one change commits.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::error::RepoError;
use crate::ids::{ConversationId, ProfileId, UserId};
use crate::notifications::OutboxEvent;
use crate::pagination::PageLimit;
use crate::profile::{NewRevision, Profile, Revision};
use crate::reflection::ReflectionMessage;

/// Everything one profile change writes, committed together or not at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileWrite {
    pub profile: Profile,
    /// The version the change was computed from; `None` inserts a new profile.
    pub expected_version: Option<i64>,
    pub revision: Option<NewRevision>,
    /// Reflection turns stored with the change.
    pub reflection: Vec<ReflectionMessage>,
    /// Completes this conversation in the same transaction (extraction).
    pub completes: Option<(ConversationId, OffsetDateTime)>,
    /// Written to the outbox in the same transaction ([`crate::notifications::profile_events`]).
    pub events: Vec<OutboxEvent>,
}

/// Profiles and their revisions.
/// # Errors
/// `Conflict` from [`ProfileRepository::write`] when the stored version is not `expected_version`,
/// when inserting a second profile for a user, or when the conversation to complete is completed.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ProfileRepository: Send + Sync {
    async fn get(&self, user: UserId) -> Result<Option<Profile>, RepoError>;
    /// Applies a change atomically; returns the recorded revision, numbered.
    async fn write(&self, write: ProfileWrite) -> Result<Option<Revision>, RepoError>;
    /// The profile's revisions, oldest first.
    async fn revisions(&self, profile: ProfileId) -> Result<Vec<Revision>, RepoError>;
    /// The profile's revision of that number, if there is one.
    async fn revision(
        &self,
        profile: ProfileId,
        number: u32,
    ) -> Result<Option<Revision>, RepoError>;
    /// Users whose profile is locked, in id order after `after` (keyset paging for the batch run).
    async fn locked_users(
        &self,
        after: Option<UserId>,
        limit: PageLimit,
    ) -> Result<Vec<UserId>, RepoError>;
}
