//! The outbox, written inside the transaction of the change that caused each event: the event
//! rows and one delivery per channel, so a change and its notifications commit or fail together.

use std::collections::{HashMap, HashSet};

use diesel::prelude::*;
use domain::ids::WebhookId;
use domain::notifications::{Channel, EventType, OutboxEvent};

use crate::connection::DbConnection;
use crate::error::StoreResult;
use crate::models::notification::{DeliveryRow, OutboxEventRow, events_of};
use crate::schema::{deliveries, notification_settings, outbox_events, webhooks};
use crate::tx::on_backend;

/// Rows per multi-row INSERT: at most 13 parameters each, inside both backends' limits.
const INSERT_CHUNK: usize = 1_000;

/// Writes `events` (never `ping`s: see [`record_ping`]) with their deliveries: to each enabled
/// webhook of the person subscribed to the event's type, and, for a check-in, by e-mail when
/// the person turned it on. A `profile.revised` past the person's budget replaces their waiting
/// one (see [`super::coalesce`]).
pub(super) fn record(conn: &mut DbConnection, events: &[OutboxEvent]) -> StoreResult<()> {
    if events.is_empty() {
        return Ok(());
    }
    for event in events {
        super::coalesce::make_room(conn, event)?;
    }
    let users: Vec<String> = events
        .iter()
        .map(|e| e.user_id.to_string())
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    let mut subscribed: HashMap<String, Vec<(WebhookId, Vec<EventType>)>> = HashMap::new();
    for (id, user, events) in webhooks::table
        .filter(webhooks::user_id.eq_any(&users))
        .filter(webhooks::disabled_at.is_null())
        .select((webhooks::id, webhooks::user_id, webhooks::events))
        .load::<(String, String, String)>(conn)?
    {
        let id: WebhookId = crate::convert::parse(&id, "webhooks.id")?;
        subscribed
            .entry(user)
            .or_default()
            .push((id, events_of(&events)?));
    }
    let emailed: HashSet<String> = notification_settings::table
        .filter(notification_settings::user_id.eq_any(&users))
        .filter(notification_settings::email_checkins)
        .select(notification_settings::user_id)
        .load(conn)?
        .into_iter()
        .collect();

    let mut deliveries = Vec::new();
    for event in events {
        let user = event.user_id.to_string();
        for (id, types) in subscribed.get(&user).into_iter().flatten() {
            if types.contains(&event.event_type) {
                deliveries.push(DeliveryRow::due(event, Channel::Webhook(*id)));
            }
        }
        if event.event_type == EventType::CheckinCreated && emailed.contains(&user) {
            deliveries.push(DeliveryRow::due(event, Channel::Email));
        }
    }
    let rows: Vec<OutboxEventRow> = events.iter().map(OutboxEventRow::from).collect();
    insert(conn, &rows, &deliveries)
}

/// Writes a `ping` and its one delivery, to `webhook` whatever its subscriptions.
pub(super) fn record_ping(
    conn: &mut DbConnection,
    ping: &OutboxEvent,
    webhook: WebhookId,
) -> StoreResult<()> {
    insert(
        conn,
        &[OutboxEventRow::from(ping)],
        &[DeliveryRow::due(ping, Channel::Webhook(webhook))],
    )
}

fn insert(
    conn: &mut DbConnection,
    events: &[OutboxEventRow],
    deliveries: &[DeliveryRow],
) -> StoreResult<()> {
    for chunk in events.chunks(INSERT_CHUNK) {
        on_backend!(conn, c => diesel::insert_into(outbox_events::table)
            .values(chunk)
            .execute(c))?;
    }
    for chunk in deliveries.chunks(INSERT_CHUNK) {
        on_backend!(conn, c => diesel::insert_into(deliveries::table)
            .values(chunk)
            .execute(c))?;
    }
    Ok(())
}
