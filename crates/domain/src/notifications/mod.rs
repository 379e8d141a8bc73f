//! Notifications: the events a change writes to the outbox in its own transaction, the person's
//! webhook endpoints and e-mail setting (and which addresses a webhook may go to), and the
//! deliveries of each event with their retries.

pub mod address;
pub mod delivery;
pub mod event;
pub mod payload;
pub mod settings;
pub mod webhook;

pub use delivery::{Channel, Delivery, DeliveryOutcome, DeliveryStatus, RETRY_SCHEDULE};
pub use event::{OutboxEvent, profile_events};
pub use payload::{CheckInData, EventPayload, EventType, ProfileData};
pub use settings::NotificationSettings;
pub use webhook::{
    DISABLE_AFTER_FAILURES, MAX_WEBHOOKS_PER_USER, Webhook, WebhookSecret, WebhookUrl,
    WebhookUrlError,
};
