//! Mapping rules and the re-classification of entries.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::error::RepoError;
use crate::ids::{RuleId, UserId};
use crate::integration::{NewRule, Reclassification, ReclassifyStep, Rule, RuleChangeError};

/// A person's mapping rules, and the re-classification of their entries. Every change commits
/// the rule at once and, in the same transaction, queues (or restarts) the person's job, which
/// then decides again, in short steps, the entries whose foundation is unmapped or came from a
/// rule and that the changed rule matched before or matches now (never one the tracker sent).
/// Its end state is that of one atomic pass with the rules as they then stand.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait RuleRepository: Send + Sync {
    /// By position.
    async fn list(&self, user: UserId) -> Result<Vec<Rule>, RepoError>;
    /// [`RuleChangeError::TooMany`] at [`crate::integration::MAX_RULES_PER_USER`].
    async fn create(
        &self,
        user: UserId,
        rule: &NewRule,
        now: OffsetDateTime,
    ) -> Result<Rule, RuleChangeError>;
    /// [`RuleChangeError::NotFound`] when the person has no such rule.
    async fn replace(
        &self,
        user: UserId,
        id: RuleId,
        rule: &NewRule,
        now: OffsetDateTime,
    ) -> Result<Rule, RuleChangeError>;
    /// [`RuleChangeError::NotFound`] when the person has no such rule.
    async fn delete(
        &self,
        user: UserId,
        id: RuleId,
        now: OffsetDateTime,
    ) -> Result<(), RuleChangeError>;
    /// How far the person's re-classification is; idle when none is queued.
    async fn reclassification(&self, user: UserId) -> Result<Reclassification, RepoError>;
    /// People whose re-classification is queued or running, at most `limit`.
    async fn reclassification_queue(&self, limit: u32) -> Result<Vec<UserId>, RepoError>;
    /// Decides the next stretch of the person's queued entries again, in short transactions
    /// that hold nothing others need for long; a crash between steps loses only the step.
    async fn reclassify_step(
        &self,
        user: UserId,
        now: OffsetDateTime,
    ) -> Result<ReclassifyStep, RepoError>;
}
