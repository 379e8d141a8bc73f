//! [`DeliveryQueue`] over diesel: workers claim due deliveries under a lease, fairly across
//! people (round-robin by owner, so one person's backlog never delays another's). On PostgreSQL a
//! claim locks the rows it takes with `FOR UPDATE SKIP LOCKED`, so workers claiming at the same
//! moment take different rows; on SQLite one writer at a time claims. The lease then keeps the
//! rows away from other workers until the attempt is stored, or, if the worker died, until it ends.

use std::collections::{HashMap, HashSet};

use async_trait::async_trait;
use diesel::dsl::{count_star, min};
use diesel::prelude::*;
use domain::RepoError;
use domain::notifications::{
    Channel, DISABLE_AFTER_FAILURES, Delivery, DeliveryStatus, WebhookSecret, WebhookUrl,
};
use domain::ports::{ClaimedDelivery, DeliveryQueue, DeliveryTarget, QueueStats};
use time::{OffsetDateTime, PrimitiveDateTime};

use crate::connection::DbConnection;
use crate::convert::{from_db, invalid, parse, to_db, to_db_opt};
use crate::error::StoreResult;
use crate::models::notification::DeliveryRow;
use crate::schema::{deliveries, notification_settings, outbox_events, users, webhooks};

super::declare::repository!(
    /// The deliveries as workers claim and finish them.
    DieselDeliveryQueue
);

#[async_trait]
impl DeliveryQueue for DieselDeliveryQueue {
    async fn claim(
        &self,
        now: OffsetDateTime,
        limit: u32,
        lease: std::time::Duration,
    ) -> Result<Vec<ClaimedDelivery>, RepoError> {
        let (now, until) = (to_db(now), to_db(now + lease));
        // A read first: an idle worker polls often, and on SQLite a claim's transaction would
        // take the one writer's turn every time.
        let any_due = self
            .db
            .run("looking for due deliveries", move |conn| {
                Ok(diesel::select(diesel::dsl::exists(due(now))).get_result::<bool>(conn)?)
            })
            .await?;
        if !any_due {
            return Ok(Vec::new());
        }
        self.db
            .write("claiming due deliveries", move |conn| {
                let ids = claim_ids(conn, now, until, limit)?;
                claimed(conn, &ids)
            })
            .await
    }

    async fn finish(&self, deliveries: &[Delivery], at: OffsetDateTime) -> Result<(), RepoError> {
        let deliveries = deliveries.to_vec();
        let at = to_db(at);
        self.db
            .write("storing delivery attempts", move |conn| {
                deliveries.iter().try_for_each(|d| finish(conn, d, at))
            })
            .await
    }

    async fn stats(&self) -> Result<QueueStats, RepoError> {
        self.db
            .run("counting pending deliveries", move |conn| {
                let (pending, oldest): (i64, Option<PrimitiveDateTime>) = deliveries::table
                    .filter(deliveries::status.eq(DeliveryStatus::Pending.key()))
                    .select((count_star(), min(deliveries::created_at)))
                    .first(conn)?;
                Ok(QueueStats {
                    pending: u64::try_from(pending).unwrap_or(0),
                    oldest_pending_at: oldest.map(from_db),
                })
            })
            .await
    }
}

/// The ids of the deliveries due by `now` and not leased (the lease over counts as none).
#[diesel::dsl::auto_type]
fn due(now: PrimitiveDateTime) -> _ {
    let pending: &'static str = DeliveryStatus::Pending.key();
    deliveries::table
        .filter(deliveries::status.eq(pending))
        .filter(deliveries::next_attempt_at.le(now))
        .filter(
            deliveries::lease_until
                .is_null()
                .or(deliveries::lease_until.lt(now)),
        )
        .select(deliveries::id)
}

/// Takes at most `limit` due, unleased deliveries, fairly across people, and leases them: each
/// person's oldest due delivery first (people by their oldest), then each one's second, and so
/// on. One person's backlog of 1,500 deliveries, queued before another's ping, then holds the
/// ping back for one pass at most, not for the whole backlog.
fn claim_ids(
    conn: &mut DbConnection,
    now: PrimitiveDateTime,
    until: PrimitiveDateTime,
    limit: u32,
) -> StoreResult<Vec<String>> {
    use deliveries as d;
    let owners: Vec<String> = due(now)
        .group_by(d::user_id)
        .select(d::user_id)
        .order(min(d::next_attempt_at).asc())
        .limit(i64::from(limit))
        .load(conn)?;
    let mut queues = Vec::with_capacity(owners.len());
    for owner in &owners {
        let ids: Vec<String> = due(now)
            .filter(d::user_id.eq(owner))
            .order((d::next_attempt_at.asc(), d::id.asc()))
            .limit(i64::from(limit))
            .load(conn)?;
        queues.push(ids.into_iter());
    }
    let picked = round_robin(queues, usize::try_from(limit).unwrap_or(usize::MAX));
    let ids: Vec<String> = match conn {
        // Rows another worker is claiming right now are skipped, not waited for; rows it
        // claimed since they were picked are no longer due (the filter is checked again on the
        // locked row).
        DbConnection::Postgresql(pg) => due(now)
            .filter(d::id.eq_any(&picked))
            .for_update()
            .skip_locked()
            .load(pg)?,
        DbConnection::Sqlite(_) => picked,
    };
    if !ids.is_empty() {
        diesel::update(d::table.filter(d::id.eq_any(&ids)))
            .set(d::lease_until.eq(Some(until)))
            .execute(conn)?;
    }
    Ok(ids)
}

/// The first of each queue in turn, then the second of each, ..., at most `limit` in all.
fn round_robin<T>(mut queues: Vec<std::vec::IntoIter<T>>, limit: usize) -> Vec<T> {
    let mut taken = Vec::new();
    while taken.len() < limit && !queues.is_empty() {
        queues.retain_mut(|queue| match queue.next() {
            Some(item) if taken.len() < limit => {
                taken.push(item);
                true
            }
            _ => false,
        });
    }
    taken
}

/// The claimed deliveries with their payloads and targets as they stand now.
fn claimed(conn: &mut DbConnection, ids: &[String]) -> StoreResult<Vec<ClaimedDelivery>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<(DeliveryRow, String, String)> = deliveries::table
        .inner_join(outbox_events::table)
        .filter(deliveries::id.eq_any(ids))
        .order(deliveries::next_attempt_at.asc())
        .select((
            DeliveryRow::as_select(),
            outbox_events::event_type,
            outbox_events::payload,
        ))
        .load(conn)?;
    let endpoints = endpoints(conn, &rows)?;
    let addresses = addresses(conn, &rows)?;
    let mut claimed = Vec::with_capacity(rows.len());
    for (row, event_type, payload) in rows {
        let user_id = parse(&row.user_id, "deliveries.user_id")?;
        let target = match &row.webhook_id {
            Some(id) => {
                let (url, secret, disabled) = endpoints
                    .get(id)
                    .ok_or_else(|| invalid("deliveries.webhook_id"))?;
                DeliveryTarget::Webhook(match disabled {
                    Some(_) => None,
                    None => Some((
                        WebhookUrl::parse(url, true).map_err(|_| invalid("webhooks.url"))?,
                        WebhookSecret::new(secret.clone()),
                    )),
                })
            }
            None => {
                let (to, on) = addresses
                    .get(&row.user_id)
                    .ok_or_else(|| invalid("deliveries.user_id"))?;
                DeliveryTarget::Email {
                    to: to.clone(),
                    enabled: on.unwrap_or(false),
                }
            }
        };
        claimed.push(ClaimedDelivery {
            delivery: row.into_delivery(&event_type)?,
            user_id,
            payload,
            target,
        });
    }
    Ok(claimed)
}

/// A webhook's URL, secret and when it was disabled (if it was).
type Endpoint = (String, String, Option<PrimitiveDateTime>);

/// The endpoints of the webhooks the claimed deliveries go to, by webhook id.
fn endpoints(
    conn: &mut DbConnection,
    rows: &[(DeliveryRow, String, String)],
) -> StoreResult<HashMap<String, Endpoint>> {
    let hooks: HashSet<&str> = rows
        .iter()
        .filter_map(|(row, _, _)| row.webhook_id.as_deref())
        .collect();
    Ok(webhooks::table
        .filter(webhooks::id.eq_any(&hooks))
        .select((
            webhooks::id,
            webhooks::url,
            webhooks::secret,
            webhooks::disabled_at,
        ))
        .load::<(String, String, String, Option<PrimitiveDateTime>)>(conn)?
        .into_iter()
        .map(|(id, url, secret, disabled)| (id, (url, secret, disabled)))
        .collect())
}

/// The email address, and whether check-ins are emailed (`None` when never set), of the people
/// the claimed email deliveries go to, by user id.
fn addresses(
    conn: &mut DbConnection,
    rows: &[(DeliveryRow, String, String)],
) -> StoreResult<HashMap<String, (String, Option<bool>)>> {
    let mailed: HashSet<&str> = rows
        .iter()
        .filter(|(row, _, _)| row.webhook_id.is_none())
        .map(|(row, _, _)| row.user_id.as_str())
        .collect();
    Ok(users::table
        .left_join(notification_settings::table)
        .filter(users::id.eq_any(&mailed))
        .select((
            users::id,
            users::email,
            notification_settings::email_checkins.nullable(),
        ))
        .load::<(String, String, Option<bool>)>(conn)?
        .into_iter()
        .map(|(id, email, on)| (id, (email, on)))
        .collect())
}

/// Stores the attempt (only over a pending row: a row another worker already finished after a
/// lease ran out stays as that worker left it), and the endpoint's run of failures.
fn finish(conn: &mut DbConnection, delivery: &Delivery, at: PrimitiveDateTime) -> StoreResult<()> {
    use deliveries as d;
    let id = delivery.id.to_string();
    let stored = diesel::update(
        d::table
            .filter(d::id.eq(&id))
            .filter(d::status.eq(DeliveryStatus::Pending.key())),
    )
    .set((
        d::status.eq(delivery.status.key()),
        d::attempt.eq(i32::try_from(delivery.attempt).unwrap_or(i32::MAX)),
        d::response_status.eq(delivery.response_status.map(i32::from)),
        d::error.eq(&delivery.error),
        d::last_attempt_at.eq(to_db_opt(delivery.last_attempt_at)),
        d::next_attempt_at.eq(to_db_opt(delivery.next_attempt_at)),
        d::lease_until.eq(None::<PrimitiveDateTime>),
    ))
    .execute(conn)?;
    let Channel::Webhook(webhook) = delivery.channel else {
        return Ok(());
    };
    if stored == 0 {
        return Ok(());
    }
    let webhook = webhook.to_string();
    match delivery.status {
        DeliveryStatus::Delivered => {
            diesel::update(webhooks::table.filter(webhooks::id.eq(&webhook)))
                .set(webhooks::failures_in_a_row.eq(0))
                .execute(conn)?;
        }
        DeliveryStatus::Failed => {
            diesel::update(webhooks::table.filter(webhooks::id.eq(&webhook)))
                .set(webhooks::failures_in_a_row.eq(webhooks::failures_in_a_row + 1))
                .execute(conn)?;
            let threshold = i32::try_from(DISABLE_AFTER_FAILURES).unwrap_or(i32::MAX);
            diesel::update(
                webhooks::table
                    .filter(webhooks::id.eq(&webhook))
                    .filter(webhooks::failures_in_a_row.ge(threshold))
                    .filter(webhooks::disabled_at.is_null()),
            )
            .set(webhooks::disabled_at.eq(Some(at)))
            .execute(conn)?;
        }
        DeliveryStatus::Pending => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::round_robin;

    #[test]
    fn round_robin_takes_each_queues_next_in_turn_up_to_the_limit() {
        let queues = vec![
            vec![1, 2, 3, 4].into_iter(),
            vec![10].into_iter(),
            vec![20, 21].into_iter(),
        ];
        assert_eq!(round_robin(queues.clone(), 10), [1, 10, 20, 2, 21, 3, 4]);
        assert_eq!(round_robin(queues, 4), [1, 10, 20, 2]);
        assert!(round_robin(Vec::<std::vec::IntoIter<u8>>::new(), 5).is_empty());
    }
}
