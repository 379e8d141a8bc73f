//! The notification views: the e-mail setting, webhook endpoints (the secret only when one is
//! created) and their delivery log.

use domain::ids::{DeliveryId, EventId, WebhookId};
use domain::notifications::{Delivery, NotificationSettings, Webhook};
use domain::pagination::Page;
use secrecy::ExposeSecret;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::enum_schemas;
use super::page::next_cursor;

/// The e-mail setting (`GET`/`PUT /api/me/notifications`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = NotificationSettings)]
pub struct NotificationSettingsView {
    /// Whether each new check-in is sent by e-mail.
    email_checkins: bool,
    /// Where it goes: the account's e-mail address.
    email: String,
    /// Whether this server sends e-mail at all (`SMTP_URL`); when not, it cannot be turned on.
    email_available: bool,
}

impl NotificationSettingsView {
    #[must_use]
    pub fn new(settings: &NotificationSettings, email: &str, email_available: bool) -> Self {
        Self {
            email_checkins: settings.email_checkins,
            email: email.to_owned(),
            email_available,
        }
    }
}

fn event_keys(webhook: &Webhook) -> Vec<&'static str> {
    webhook.events.iter().map(|t| t.key()).collect()
}

/// A webhook endpoint, without its secret.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Webhook)]
pub struct WebhookView {
    #[schema(value_type = uuid::Uuid)]
    id: WebhookId,
    url: String,
    #[schema(value_type = Vec<enum_schemas::EventType>)]
    events: Vec<&'static str>,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    /// Set when the last 20 deliveries all failed; nothing is sent to it any more.
    #[serde(with = "time::serde::rfc3339::option")]
    disabled_at: Option<OffsetDateTime>,
}

impl From<&Webhook> for WebhookView {
    fn from(w: &Webhook) -> Self {
        Self {
            id: w.id,
            url: w.url.as_str().to_owned(),
            events: event_keys(w),
            created_at: w.created_at,
            disabled_at: w.disabled_at,
        }
    }
}

/// A new endpoint: `secret` (`whsec_` + base64 of 32 random bytes) is shown this once.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = WebhookCreated)]
pub struct WebhookCreatedView {
    #[schema(value_type = uuid::Uuid)]
    id: WebhookId,
    url: String,
    #[schema(value_type = Vec<enum_schemas::EventType>)]
    events: Vec<&'static str>,
    /// Verifies the `webhook-signature` of every delivery (Standard Webhooks).
    secret: String,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    disabled_at: Option<OffsetDateTime>,
}

impl From<&Webhook> for WebhookCreatedView {
    fn from(w: &Webhook) -> Self {
        Self {
            id: w.id,
            url: w.url.as_str().to_owned(),
            events: event_keys(w),
            secret: w.secret.expose_secret().to_owned(),
            created_at: w.created_at,
            disabled_at: w.disabled_at,
        }
    }
}

/// One event's delivery to an endpoint.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Delivery)]
pub struct DeliveryView {
    #[schema(value_type = uuid::Uuid)]
    id: DeliveryId,
    /// The `webhook-id` of every attempt.
    #[schema(value_type = uuid::Uuid)]
    event_id: EventId,
    #[schema(value_type = enum_schemas::EventType)]
    event_type: &'static str,
    /// Attempts made so far.
    attempt: u32,
    #[schema(value_type = enum_schemas::DeliveryStatus)]
    status: &'static str,
    /// The HTTP status of the last attempt's answer.
    response_status: Option<u16>,
    /// Why the last attempt failed.
    error: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    last_attempt_at: Option<OffsetDateTime>,
    /// When the next attempt is due; null once delivered or failed.
    #[serde(with = "time::serde::rfc3339::option")]
    next_attempt_at: Option<OffsetDateTime>,
}

impl From<&Delivery> for DeliveryView {
    fn from(d: &Delivery) -> Self {
        Self {
            id: d.id,
            event_id: d.event_id,
            event_type: d.event_type.key(),
            attempt: d.attempt,
            status: d.status.key(),
            response_status: d.response_status,
            error: d.error.clone(),
            created_at: d.created_at,
            last_attempt_at: d.last_attempt_at,
            next_attempt_at: d.next_attempt_at,
        }
    }
}

/// A page of the delivery log, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryPage {
    items: Vec<DeliveryView>,
    /// Pass as `before` for the next page; null on the last.
    next_cursor: Option<String>,
}

impl From<&Page<Delivery>> for DeliveryPage {
    fn from(page: &Page<Delivery>) -> Self {
        Self {
            items: page.items.iter().map(DeliveryView::from).collect(),
            next_cursor: next_cursor(page),
        }
    }
}

/// The answer of the one-click unsubscribe: check-in e-mails are off.
#[derive(Debug, Default, Serialize, ToSchema)]
#[schema(as = Unsubscribed)]
pub struct UnsubscribedView {
    /// Always `false`.
    email_checkins: bool,
}
