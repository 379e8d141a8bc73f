//! [`ActivityRepository`] over diesel: the request log, its listing, counts and pruning.

use std::collections::{BTreeSet, HashSet};

use async_trait::async_trait;
use diesel::dsl::count_star;
use diesel::prelude::*;
use diesel::sqlite::SqliteConnection;
use domain::RepoError;
use domain::account::{ActivityEntry, ActivityQuery, ActivitySummary};
use domain::ids::UserId;
use domain::pagination::{Cursor, Page};
use domain::ports::ActivityRepository;
use time::OffsetDateTime;

use super::keyset::{cursor_key, overfetch};
use crate::connection::DbConnection;
use crate::convert::to_db;
use crate::error::StoreResult;
use crate::expressions::UtcDate;
use crate::models::activity::ActivityRow;
use crate::schema::{activity_log, users};

super::declare::repository!(
    /// The activity log.
    DieselActivityRepository
);

/// Inserts rows on SQLite in statements of 64, 32, 16, 8, 4, 2 and 1 rows. A statement of a
/// fixed number of rows is prepared once per connection and then only re-bound (diesel caches
/// statements whose shape its type fixes, and an array's does); one built for a batch's own
/// length was parsed anew every time, which cost about as much as storing the rows. So a batch
/// of any length is written by at most seven shapes, each prepared once: 100 rows go as 64 +
/// 32 + 4. 64 rows of 12 binds each stay far below SQLite's limit of 32,766 bound parameters.
fn insert_on_sqlite(conn: &mut SqliteConnection, mut rows: &[ActivityRow]) -> QueryResult<()> {
    insert_while::<64>(conn, &mut rows)?;
    insert_while::<32>(conn, &mut rows)?;
    insert_while::<16>(conn, &mut rows)?;
    insert_while::<8>(conn, &mut rows)?;
    insert_while::<4>(conn, &mut rows)?;
    insert_while::<2>(conn, &mut rows)?;
    insert_while::<1>(conn, &mut rows)
}

/// Inserts `N` rows at a time from the front of `rows` while at least `N` are left.
fn insert_while<const N: usize>(
    conn: &mut SqliteConnection,
    rows: &mut &[ActivityRow],
) -> QueryResult<()> {
    while let Some((first, rest)) = rows.split_first_chunk::<N>() {
        diesel::insert_into(activity_log::table)
            .values(first)
            .execute(conn)?;
        *rows = rest;
    }
    Ok(())
}

#[async_trait]
impl ActivityRepository for DieselActivityRepository {
    async fn record(&self, entries: &[ActivityEntry]) -> Result<usize, RepoError> {
        let rows: Vec<ActivityRow> = entries.iter().map(ActivityRow::from).collect();
        self.db
            .write("recording activity", move |conn| {
                let rows = of_existing_people(conn, rows)?;
                match conn {
                    // Binary COPY: one stream instead of statements with thousands of binds to
                    // parse and plan — about a third of PostgreSQL's cost per logged request.
                    DbConnection::Postgresql(pg) => {
                        diesel::copy_from(activity_log::table)
                            .from_insertable(&rows)
                            .execute(pg)?;
                    }
                    // Multi-row VALUES exist only on the inner connections.
                    DbConnection::Sqlite(sqlite) => insert_on_sqlite(sqlite, &rows)?,
                }
                Ok(rows.len())
            })
            .await
    }

    async fn list(&self, query: &ActivityQuery) -> Result<Page<ActivityEntry>, RepoError> {
        let query = query.clone();
        self.db
            .run("listing activity", move |conn| {
                use activity_log as al;
                let mut q = al::table
                    .order((al::at.desc(), al::id.desc()))
                    .limit(overfetch(query.limit))
                    .select(ActivityRow::as_select())
                    .into_boxed();
                if let Some(user) = query.user_id {
                    q = q.filter(al::user_id.eq(user.to_string()));
                }
                if let Some(cursor) = query.before {
                    let (at, id) = cursor_key(&cursor);
                    q = q.filter(al::at.le(at).and(al::at.lt(at).or(al::id.lt(id))));
                }
                let rows = q
                    .load(conn)?
                    .into_iter()
                    .map(ActivityEntry::try_from)
                    .collect::<anyhow::Result<Vec<_>>>()?;
                Ok(Page::from_overfetch(rows, query.limit, |e| Cursor {
                    at: e.at,
                    id: e.id.as_uuid(),
                }))
            })
            .await
    }

    async fn summary(
        &self,
        user: UserId,
        since: OffsetDateTime,
    ) -> Result<ActivitySummary, RepoError> {
        let (user, since) = (user.to_string(), to_db(since));
        self.db
            .run("summarising activity", move |conn| {
                use activity_log as al;
                let scope = al::table
                    .filter(al::user_id.eq(user))
                    .filter(al::at.ge(since));
                let by_action: Vec<(String, i64)> = scope
                    .clone()
                    .group_by(al::action)
                    .select((al::action, count_star()))
                    .load(conn)?;
                // Anonymous requests carry no source; they are not the person's.
                let by_source: Vec<(Option<String>, i64)> = scope
                    .clone()
                    .filter(al::source.is_not_null())
                    .group_by(al::source)
                    .select((al::source, count_star()))
                    .load(conn)?;
                let day = UtcDate(al::at);
                let by_day: Vec<(time::Date, i64)> = scope
                    .group_by(day)
                    .select((day, count_star()))
                    .order(day)
                    .load(conn)?;
                Ok(ActivitySummary {
                    by_action: by_action.into_iter().collect(),
                    by_source: by_source
                        .into_iter()
                        .filter_map(|(source, n)| source.map(|s| (s, n)))
                        .collect(),
                    by_day,
                })
            })
            .await
    }

    async fn prune(&self, before: OffsetDateTime) -> Result<u64, RepoError> {
        let before = to_db(before);
        self.db
            .write("pruning activity", move |conn| {
                let old = diesel::delete(activity_log::table.filter(activity_log::at.lt(before)))
                    .execute(conn)?;
                // Entries of people who no longer exist. The writer and the account deletion
                // leave none, but an instance older than migration 009 deletes people through
                // the cascade 009 removed, while a rolling upgrade runs both.
                let orphaned = diesel::delete(activity_log::table.filter(
                    activity_log::user_id.is_not_null().and(diesel::dsl::not(
                        activity_log::user_id.eq_any(users::table.select(users::id.nullable())),
                    )),
                ))
                .execute(conn)?;
                Ok(u64::try_from(old + orphaned).unwrap_or(u64::MAX))
            })
            .await
    }
}

/// The rows whose person still exists, and those of nobody: the check a foreign key would make
/// for every row (migration 009 dropped it), made once for the batch. On PostgreSQL the people
/// stay locked `FOR KEY SHARE` until the batch commits, as that check would keep them, so a
/// deletion either waits for the batch (and then deletes its entries, see
/// `DieselUserRepository::delete`) or has committed first (and its person is not found here).
/// On SQLite the write transaction has the database to itself.
fn of_existing_people(
    conn: &mut DbConnection,
    rows: Vec<ActivityRow>,
) -> StoreResult<Vec<ActivityRow>> {
    let people: BTreeSet<&str> = rows.iter().filter_map(|r| r.user_id.as_deref()).collect();
    if people.is_empty() {
        return Ok(rows);
    }
    let existing = users::table
        .filter(users::id.eq_any(&people))
        .select(users::id);
    let existing: HashSet<String> = match conn {
        DbConnection::Postgresql(pg) => existing.for_key_share().load(pg)?,
        DbConnection::Sqlite(sqlite) => existing.load(sqlite)?,
    }
    .into_iter()
    .collect();
    if existing.len() == people.len() {
        return Ok(rows);
    }
    Ok(rows
        .into_iter()
        .filter(|r| r.user_id.as_ref().is_none_or(|u| existing.contains(u)))
        .collect())
}
