//! `notification_settings`, `webhooks`, `outbox_events` and `deliveries` rows.

use diesel::prelude::*;
use domain::notifications::{
    Channel, Delivery, DeliveryStatus, EventType, OutboxEvent, Webhook, WebhookSecret, WebhookUrl,
};
use secrecy::ExposeSecret;
use time::PrimitiveDateTime;

use crate::convert::{from_db, from_db_opt, invalid, parse, to_db, to_db_opt};
use crate::schema::{deliveries, outbox_events, webhooks};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = webhooks)]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct WebhookRow {
    pub id: String,
    pub user_id: String,
    pub url: String,
    /// The event types, space-separated: `"checkin.created profile.affirmed"`.
    pub events: String,
    pub secret: String,
    pub created_at: PrimitiveDateTime,
    pub disabled_at: Option<PrimitiveDateTime>,
    pub failures_in_a_row: i32,
}

impl From<&Webhook> for WebhookRow {
    fn from(w: &Webhook) -> Self {
        Self {
            id: w.id.to_string(),
            user_id: w.user_id.to_string(),
            url: w.url.as_str().to_owned(),
            events: stored_events(&w.events),
            secret: w.secret.expose_secret().to_owned(),
            created_at: to_db(w.created_at),
            disabled_at: to_db_opt(w.disabled_at),
            failures_in_a_row: i32::try_from(w.failures_in_a_row).unwrap_or(i32::MAX),
        }
    }
}

impl TryFrom<WebhookRow> for Webhook {
    type Error = anyhow::Error;

    fn try_from(row: WebhookRow) -> Result<Self, Self::Error> {
        Ok(Self {
            id: parse(&row.id, "webhooks.id")?,
            user_id: parse(&row.user_id, "webhooks.user_id")?,
            // Stored URLs passed the rules when registered; private ones were allowed then, and
            // whether they still are is decided again on every connection.
            url: WebhookUrl::parse(&row.url, true).map_err(|_| invalid("webhooks.url"))?,
            events: events_of(&row.events)?,
            secret: WebhookSecret::new(row.secret),
            created_at: from_db(row.created_at),
            disabled_at: from_db_opt(row.disabled_at),
            failures_in_a_row: u32::try_from(row.failures_in_a_row)
                .map_err(|_| invalid("webhooks.failures_in_a_row"))?,
        })
    }
}

/// `"checkin.created ping"` for the listed types.
pub(crate) fn stored_events(events: &[EventType]) -> String {
    events.iter().map(|t| t.key()).collect::<Vec<_>>().join(" ")
}

/// The event types of a `webhooks.events` value.
pub(crate) fn events_of(stored: &str) -> anyhow::Result<Vec<EventType>> {
    stored
        .split_whitespace()
        .map(|key| EventType::from_key(key).ok_or_else(|| invalid("webhooks.events")))
        .collect()
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = outbox_events)]
pub(crate) struct OutboxEventRow {
    pub id: String,
    pub user_id: String,
    pub event_type: String,
    pub payload: String,
    pub created_at: PrimitiveDateTime,
}

impl From<&OutboxEvent> for OutboxEventRow {
    fn from(e: &OutboxEvent) -> Self {
        Self {
            id: e.id.to_string(),
            user_id: e.user_id.to_string(),
            event_type: e.event_type.key().to_owned(),
            payload: e.payload.clone(),
            created_at: to_db(e.created_at),
        }
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = deliveries)]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct DeliveryRow {
    pub id: String,
    pub event_id: String,
    pub user_id: String,
    pub channel: String,
    pub webhook_id: Option<String>,
    pub status: String,
    pub attempt: i32,
    pub response_status: Option<i32>,
    pub error: Option<String>,
    pub created_at: PrimitiveDateTime,
    pub last_attempt_at: Option<PrimitiveDateTime>,
    pub next_attempt_at: Option<PrimitiveDateTime>,
    pub lease_until: Option<PrimitiveDateTime>,
}

impl DeliveryRow {
    /// A delivery of `event` over `channel`, due at once.
    pub(crate) fn due(event: &OutboxEvent, channel: Channel) -> Self {
        let (channel, webhook_id) = match channel {
            Channel::Webhook(id) => ("webhook", Some(id.to_string())),
            Channel::Email => ("email", None),
        };
        Self {
            id: domain::ids::DeliveryId::new().to_string(),
            event_id: event.id.to_string(),
            user_id: event.user_id.to_string(),
            channel: channel.to_owned(),
            webhook_id,
            status: DeliveryStatus::Pending.key().to_owned(),
            attempt: 0,
            response_status: None,
            error: None,
            created_at: to_db(event.created_at),
            last_attempt_at: None,
            next_attempt_at: Some(to_db(event.created_at)),
            lease_until: None,
        }
    }

    /// The delivery as the log shows it; `event_type` comes from its event's row.
    pub(crate) fn into_delivery(self, event_type: &str) -> anyhow::Result<Delivery> {
        let channel = match (self.channel.as_str(), &self.webhook_id) {
            ("webhook", Some(id)) => Channel::Webhook(parse(id, "deliveries.webhook_id")?),
            ("email", None) => Channel::Email,
            _ => return Err(invalid("deliveries.channel")),
        };
        Ok(Delivery {
            id: parse(&self.id, "deliveries.id")?,
            event_id: parse(&self.event_id, "deliveries.event_id")?,
            event_type: EventType::from_key(event_type)
                .ok_or_else(|| invalid("outbox_events.event_type"))?,
            channel,
            attempt: u32::try_from(self.attempt).map_err(|_| invalid("deliveries.attempt"))?,
            status: DeliveryStatus::from_key(&self.status)
                .ok_or_else(|| invalid("deliveries.status"))?,
            response_status: self
                .response_status
                .map(u16::try_from)
                .transpose()
                .map_err(|_| invalid("deliveries.response_status"))?,
            error: self.error,
            created_at: from_db(self.created_at),
            last_attempt_at: from_db_opt(self.last_attempt_at),
            next_attempt_at: from_db_opt(self.next_attempt_at),
        })
    }
}
