//! Task mappings and the rollup over them.

use std::collections::BTreeMap;

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::account::TimeZone;
use crate::error::RepoError;
use crate::ids::UserId;
use crate::integration::{
    BatchOutcome, DailyMinutes, Sweep, TaskMapping, TaskMappingInput, TaskMappingQuery,
    UnmappedGroup, UnmappedQuery, UpsertOutcome, Weeks, Window,
};
use crate::pagination::Page;

/// Task mappings and the rollup over them.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait TaskMappingRepository: Send + Sync {
    /// Inserts, or updates the row with the same `(user, external_task_id)`. An input without a
    /// foundation gets the one of the person's first matching rule, read in the same
    /// transaction, or none.
    async fn upsert(
        &self,
        user: UserId,
        input: &TaskMappingInput,
        now: OffsetDateTime,
    ) -> Result<(TaskMapping, UpsertOutcome), RepoError>;
    /// Upserts every item in one transaction; returns how many it created and updated. Takes the items
    /// whole: the storage works on them on its own thread.
    async fn upsert_batch(
        &self,
        user: UserId,
        inputs: Vec<TaskMappingInput>,
        now: OffsetDateTime,
    ) -> Result<BatchOutcome, RepoError>;
    /// Newest `occurred_at` first.
    async fn list(
        &self,
        user: UserId,
        query: &TaskMappingQuery,
    ) -> Result<Page<TaskMapping>, RepoError>;
    /// `false` when the user has no such mapping.
    async fn delete(&self, user: UserId, external_task_id: &str) -> Result<bool, RepoError>;
    /// Deletes, in one transaction, the user's entries that `sweep` takes ([`Sweep::takes`]):
    /// its prefix (compared exactly, case included), its range, sent before its
    /// `not_sent_since`. An entry sent while the sweep runs is kept. Returns how many went.
    async fn sweep(&self, user: UserId, sweep: &Sweep) -> Result<u64, RepoError>;
    /// The unmapped entries of the window grouped by label and tags, most minutes first.
    async fn unmapped(
        &self,
        user: UserId,
        query: &UnmappedQuery,
    ) -> Result<Vec<UnmappedGroup>, RepoError>;
    /// Minutes per local date of `zone` and foundation inside the window, and the unmapped
    /// minutes per date, summed by the database (dates without entries are absent).
    async fn daily_minutes(
        &self,
        user: UserId,
        window: &Window,
        zone: &TimeZone,
    ) -> Result<Vec<DailyMinutes>, RepoError>;
    /// Minutes per local week of `zone` (keyed by its Monday in `date`) and foundation inside
    /// the weeks, and the unmapped minutes per week, summed by the database (weeks without
    /// entries are absent).
    async fn weekly_minutes(
        &self,
        user: UserId,
        weeks: &Weeks,
        zone: &TimeZone,
    ) -> Result<Vec<DailyMinutes>, RepoError>;
    /// Minutes per local date of `zone` for several people of that zone, in one aggregate per
    /// offset span of the window (what the check-in run observes); people who logged nothing in
    /// the window are absent.
    async fn daily_minutes_of(
        &self,
        users: &[UserId],
        window: &Window,
        zone: &TimeZone,
    ) -> Result<BTreeMap<UserId, Vec<DailyMinutes>>, RepoError>;
}
