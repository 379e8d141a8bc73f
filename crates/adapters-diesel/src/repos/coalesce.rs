//! Coalescing a person's burst of `profile.revised` events in the outbox: past a per-minute
//! budget, a new revision replaces the person's latest revision event of that minute still
//! waiting (none of its deliveries attempted or claimed yet), so a hundred edits queue a
//! handful of events, each receiver gets the latest state, and the outbox stays short for
//! everyone else.

use std::collections::HashSet;

use diesel::dsl::count_star;
use diesel::prelude::*;
use domain::notifications::{DeliveryStatus, EventType, OutboxEvent};
use time::{Duration, PrimitiveDateTime};

use crate::connection::DbConnection;
use crate::convert::to_db;
use crate::error::StoreResult;
use crate::schema::{deliveries, outbox_events};

/// `profile.revised` events of one person a minute that are queued as they come; past it, the
/// latest replaces the one still waiting.
pub(crate) const REVISED_PER_MINUTE: i64 = 10;

/// Drops the person's latest waiting `profile.revised` event (and its deliveries) when
/// `event` is one and the person is past [`REVISED_PER_MINUTE`]; `event` then stands for it.
pub(super) fn make_room(conn: &mut DbConnection, event: &OutboxEvent) -> StoreResult<()> {
    use deliveries as d;
    use outbox_events as e;
    if event.event_type != EventType::ProfileRevised {
        return Ok(());
    }
    let (user, kind) = (event.user_id.to_string(), EventType::ProfileRevised.key());
    let since = to_db(event.created_at - Duration::minutes(1));
    let recent: i64 = e::table
        .filter(e::user_id.eq(&user))
        .filter(e::event_type.eq(kind))
        .filter(e::created_at.gt(since))
        .select(count_star())
        .first(conn)?;
    if recent < REVISED_PER_MINUTE {
        return Ok(());
    }
    let pending = DeliveryStatus::Pending.key();
    // Waiting: it has deliveries, and every one is pending, never attempted and not claimed.
    let untouched: Vec<(String, PrimitiveDateTime)> = d::table
        .inner_join(e::table)
        .filter(e::user_id.eq(&user))
        .filter(e::event_type.eq(kind))
        .filter(e::created_at.gt(since))
        .filter(d::status.eq(pending))
        .filter(d::attempt.eq(0))
        .filter(d::lease_until.is_null())
        .select((d::event_id, e::created_at))
        .distinct()
        .load(conn)?;
    let ids: Vec<&String> = untouched.iter().map(|(id, _)| id).collect();
    let touched: HashSet<String> = d::table
        .filter(d::event_id.eq_any(ids))
        .filter(
            d::status
                .ne(pending)
                .or(d::attempt.gt(0))
                .or(d::lease_until.is_not_null()),
        )
        .select(d::event_id)
        .load::<String>(conn)?
        .into_iter()
        .collect();
    let latest = untouched
        .into_iter()
        .filter(|(id, _)| !touched.contains(id))
        .max_by_key(|(id, at)| (*at, id.clone()));
    if let Some((id, _)) = latest {
        diesel::delete(d::table.filter(d::event_id.eq(&id))).execute(conn)?;
        diesel::delete(e::table.filter(e::id.eq(&id))).execute(conn)?;
    }
    Ok(())
}
