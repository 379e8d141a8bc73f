//! The e-mail setting, webhook endpoints and the delivery log.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::error::RepoError;
use crate::ids::{UserId, WebhookId};
use crate::notifications::{Delivery, NotificationSettings, OutboxEvent, Webhook};
use crate::pagination::{Cursor, Page, PageLimit};

/// The e-mail setting, webhook endpoints and their delivery log.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait NotificationRepository: Send + Sync {
    /// The person's setting; e-mail is off when they never set it.
    async fn settings(&self, user: UserId) -> Result<NotificationSettings, RepoError>;
    async fn put_settings(
        &self,
        settings: NotificationSettings,
        at: OffsetDateTime,
    ) -> Result<(), RepoError>;
    /// Registers `webhook` unless its person already has
    /// [`MAX_WEBHOOKS_PER_USER`](crate::notifications::MAX_WEBHOOKS_PER_USER) (then `false`),
    /// counted in the same transaction.
    async fn create_webhook(&self, webhook: &Webhook) -> Result<bool, RepoError>;
    /// The person's endpoints, newest first.
    async fn webhooks(&self, user: UserId) -> Result<Vec<Webhook>, RepoError>;
    /// Deletes the endpoint and its delivery log; `false` when the person has no such endpoint.
    async fn delete_webhook(&self, user: UserId, id: WebhookId) -> Result<bool, RepoError>;
    /// Queues `ping` for that endpoint alone; `false` when the person has no such endpoint.
    async fn ping(
        &self,
        user: UserId,
        id: WebhookId,
        ping: &OutboxEvent,
    ) -> Result<bool, RepoError>;
    /// The endpoint's deliveries, newest first; `None` when the person has no such endpoint.
    async fn deliveries(
        &self,
        user: UserId,
        id: WebhookId,
        limit: PageLimit,
        before: Option<Cursor>,
    ) -> Result<Option<Page<Delivery>>, RepoError>;
}
