//! The deliveries as workers claim and finish them.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::error::RepoError;
use crate::ids::UserId;
use crate::notifications::{Delivery, WebhookSecret, WebhookUrl};

/// What a claimed delivery goes to, as it stands when claimed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeliveryTarget {
    /// An endpoint; `None` when it has been disabled since (nothing is sent).
    Webhook(Option<(WebhookUrl, WebhookSecret)>),
    /// The account's address, and whether the person still wants check-ins by e-mail.
    Email { to: String, enabled: bool },
}

/// A delivery a worker has claimed (under a lease), with what sending it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimedDelivery {
    pub delivery: Delivery,
    pub user_id: UserId,
    /// The event's body, byte for byte.
    pub payload: String,
    pub target: DeliveryTarget,
}

/// How much is waiting (the metrics and `discovery-batch deliver`'s summary).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QueueStats {
    pub pending: u64,
    /// When the oldest pending delivery's event happened.
    pub oldest_pending_at: Option<OffsetDateTime>,
}

/// The deliveries as workers see them. Several workers (processes or hosts) may claim at once:
/// each due delivery goes to one of them until its lease ends.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait DeliveryQueue: Send + Sync {
    /// Claims at most `limit` due deliveries (pending, due by `now`, not leased or the lease
    /// over), oldest due first, leased until `now + lease`.
    async fn claim(
        &self,
        now: OffsetDateTime,
        limit: u32,
        lease: std::time::Duration,
    ) -> Result<Vec<ClaimedDelivery>, RepoError>;
    /// Stores claimed deliveries after their attempts, in one transaction (and ends their
    /// leases). For a webhook, a delivered one clears the endpoint's run of failures, and one
    /// that failed for good adds to it, disabling the endpoint at
    /// [`DISABLE_AFTER_FAILURES`](crate::notifications::DISABLE_AFTER_FAILURES).
    async fn finish(&self, deliveries: &[Delivery], at: OffsetDateTime) -> Result<(), RepoError>;
    async fn stats(&self) -> Result<QueueStats, RepoError>;
}
