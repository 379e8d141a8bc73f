//! The activity log.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::account::{ActivityEntry, ActivityQuery, ActivitySummary};
use crate::error::RepoError;
use crate::ids::UserId;
use crate::pagination::Page;

/// The activity log.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ActivityRepository: Send + Sync {
    /// Stores a batch in one transaction and returns how many entries it kept: those of a
    /// person deleted meanwhile are skipped (they would have been deleted with them).
    async fn record(&self, entries: &[ActivityEntry]) -> Result<usize, RepoError>;
    /// Newest first.
    async fn list(&self, query: &ActivityQuery) -> Result<Page<ActivityEntry>, RepoError>;
    async fn summary(
        &self,
        user: UserId,
        since: OffsetDateTime,
    ) -> Result<ActivitySummary, RepoError>;
    /// Deletes entries older than `before`, and any of a person who no longer exists; returns
    /// how many.
    async fn prune(&self, before: OffsetDateTime) -> Result<u64, RepoError>;
}
