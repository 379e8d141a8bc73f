//! [`NotificationRepository`] over diesel: the e-mail setting, webhook endpoints (at most ten a
//! person, counted under a lock) and their delivery log.

use async_trait::async_trait;
use diesel::prelude::*;
use domain::RepoError;
use domain::ids::{UserId, WebhookId};
use domain::notifications::{
    Delivery, MAX_WEBHOOKS_PER_USER, NotificationSettings, OutboxEvent, Webhook,
};
use domain::pagination::{Cursor, Page, PageLimit};
use domain::ports::NotificationRepository;
use time::OffsetDateTime;

use super::keyset::{cursor_key, overfetch};
use super::outbox;
use crate::connection::DbConnection;
use crate::convert::to_db;
use crate::error::StoreResult;
use crate::models::notification::{DeliveryRow, WebhookRow};
use crate::schema::{deliveries, notification_settings, outbox_events, users, webhooks};
use crate::tx::on_backend;

super::declare::repository!(
    /// Notification settings, webhook endpoints and deliveries.
    DieselNotificationRepository
);

#[async_trait]
impl NotificationRepository for DieselNotificationRepository {
    async fn settings(&self, user: UserId) -> Result<NotificationSettings, RepoError> {
        let id = user.to_string();
        self.db
            .run("loading the notification setting", move |conn| {
                let email_checkins = notification_settings::table
                    .filter(notification_settings::user_id.eq(id))
                    .select(notification_settings::email_checkins)
                    .first::<bool>(conn)
                    .optional()?;
                Ok(NotificationSettings {
                    user_id: user,
                    email_checkins: email_checkins.unwrap_or(false),
                })
            })
            .await
    }

    async fn put_settings(
        &self,
        settings: NotificationSettings,
        at: OffsetDateTime,
    ) -> Result<(), RepoError> {
        let (user, at) = (settings.user_id.to_string(), to_db(at));
        self.db
            .write("storing the notification setting", move |conn| {
                use notification_settings as ns;
                let row = (
                    ns::user_id.eq(&user),
                    ns::email_checkins.eq(settings.email_checkins),
                    ns::updated_at.eq(at),
                );
                // ON CONFLICT is backend-specific SQL in diesel: compiled once per backend.
                on_backend!(conn, c => diesel::insert_into(ns::table)
                    .values(row)
                    .on_conflict(ns::user_id)
                    .do_update()
                    .set((
                        ns::email_checkins.eq(settings.email_checkins),
                        ns::updated_at.eq(at),
                    ))
                    .execute(c))?;
                Ok(())
            })
            .await
    }

    async fn create_webhook(&self, webhook: &Webhook) -> Result<bool, RepoError> {
        let row = WebhookRow::from(webhook);
        self.db
            .write("registering a webhook", move |conn| {
                lock_person(conn, &row.user_id)?;
                let count: i64 = webhooks::table
                    .filter(webhooks::user_id.eq(&row.user_id))
                    .count()
                    .get_result(conn)?;
                if usize::try_from(count).unwrap_or(usize::MAX) >= MAX_WEBHOOKS_PER_USER {
                    return Ok(false);
                }
                diesel::insert_into(webhooks::table)
                    .values(&row)
                    .execute(conn)?;
                Ok(true)
            })
            .await
    }

    async fn webhooks(&self, user: UserId) -> Result<Vec<Webhook>, RepoError> {
        let user = user.to_string();
        self.db
            .run("listing webhooks", move |conn| {
                let rows = webhooks::table
                    .filter(webhooks::user_id.eq(user))
                    .order((webhooks::created_at.desc(), webhooks::id.desc()))
                    .select(WebhookRow::as_select())
                    .load(conn)?;
                Ok(rows
                    .into_iter()
                    .map(Webhook::try_from)
                    .collect::<anyhow::Result<_>>()?)
            })
            .await
    }

    async fn delete_webhook(&self, user: UserId, id: WebhookId) -> Result<bool, RepoError> {
        let (user, id) = (user.to_string(), id.to_string());
        self.db
            .write("deleting a webhook", move |conn| {
                // Its deliveries go with it (ON DELETE CASCADE).
                let n = diesel::delete(
                    webhooks::table
                        .filter(webhooks::id.eq(id))
                        .filter(webhooks::user_id.eq(user)),
                )
                .execute(conn)?;
                Ok(n > 0)
            })
            .await
    }

    async fn ping(
        &self,
        user: UserId,
        id: WebhookId,
        ping: &OutboxEvent,
    ) -> Result<bool, RepoError> {
        let (owner, ping) = (user.to_string(), ping.clone());
        self.db
            .write("queuing a webhook test", move |conn| {
                if !owns(conn, &owner, id)? {
                    return Ok(false);
                }
                outbox::record_ping(conn, &ping, id)?;
                Ok(true)
            })
            .await
    }

    async fn deliveries(
        &self,
        user: UserId,
        id: WebhookId,
        limit: PageLimit,
        before: Option<Cursor>,
    ) -> Result<Option<Page<Delivery>>, RepoError> {
        let owner = user.to_string();
        self.db
            .run("listing deliveries", move |conn| {
                if !owns(conn, &owner, id)? {
                    return Ok(None);
                }
                Ok(Some(delivery_page(conn, id, limit, before)?))
            })
            .await
    }
}

/// Whether `owner` has the endpoint `id`.
fn owns(conn: &mut DbConnection, owner: &str, id: WebhookId) -> StoreResult<bool> {
    let found = webhooks::table
        .filter(webhooks::id.eq(id.to_string()))
        .filter(webhooks::user_id.eq(owner))
        .select(webhooks::id)
        .first::<String>(conn)
        .optional()?;
    Ok(found.is_some())
}

/// One page of an endpoint's deliveries with their event types, newest first.
fn delivery_page(
    conn: &mut DbConnection,
    id: WebhookId,
    limit: PageLimit,
    before: Option<Cursor>,
) -> StoreResult<Page<Delivery>> {
    use deliveries as d;
    let mut query = d::table
        .inner_join(outbox_events::table)
        .filter(d::webhook_id.eq(id.to_string()))
        .order((d::created_at.desc(), d::id.desc()))
        .limit(overfetch(limit))
        .select((DeliveryRow::as_select(), outbox_events::event_type))
        .into_boxed();
    if let Some(cursor) = before {
        let (at, id) = cursor_key(&cursor);
        query = query.filter(
            d::created_at
                .le(at)
                .and(d::created_at.lt(at).or(d::id.lt(id))),
        );
    }
    let rows = query
        .load::<(DeliveryRow, String)>(conn)?
        .into_iter()
        .map(|(row, event_type)| row.into_delivery(&event_type))
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(Page::from_overfetch(rows, limit, |d| Cursor {
        at: d.created_at,
        id: d.id.as_uuid(),
    }))
}

/// Serialises writers for one person: on PostgreSQL the person's row is locked until commit
/// (SQLite's `BEGIN IMMEDIATE` already lets one writer in at a time).
fn lock_person(conn: &mut DbConnection, user: &str) -> StoreResult<()> {
    if let DbConnection::Postgresql(pg) = conn {
        users::table
            .filter(users::id.eq(user))
            .select(users::id)
            .for_update()
            .load::<String>(pg)?;
    }
    Ok(())
}
