//! [`CheckInRepository`] over diesel, including the insert that several batch hosts may run at
//! once without creating duplicates.

use std::collections::{HashMap, HashSet};

use async_trait::async_trait;
use diesel::dsl::{exists, max};
use diesel::prelude::*;
use diesel::sql_types::{Array, Integer};
use domain::RepoError;
use domain::account::TimeZone;
use domain::coaching::{CheckIn, CoachingPreferences};
use domain::ids::{CheckInId, UserId};
use domain::notifications::OutboxEvent;
use domain::pagination::{Cursor, Page, PageLimit};
use domain::ports::{CheckInCandidate, CheckInRepository, GuardedCheckIn};
use domain::profile::Profile;
use time::{OffsetDateTime, PrimitiveDateTime};
use uuid::Uuid;

use super::keyset::{cursor_key, overfetch};
use super::outbox;
use crate::connection::DbConnection;
use crate::convert::{from_db, to_db};
use crate::error::{StoreError, StoreResult};
use crate::models::checkin::CheckInRow;
use crate::models::preferences::PreferencesRow;
use crate::models::profile::ProfileRow;
use crate::schema::{coaching_checkin, coaching_preferences, discovery_profile, users};
use crate::tx::on_backend;

super::declare::repository!(
    /// Coaching check-ins.
    DieselCheckInRepository
);

/// The first key of the two-key advisory lock: keeps these locks apart from any other use.
const CHECKIN_LOCK_SPACE: i32 = 0x4348_4b49; // "CHKI"

#[async_trait]
impl CheckInRepository for DieselCheckInRepository {
    async fn list(
        &self,
        user: UserId,
        limit: PageLimit,
        before: Option<Cursor>,
    ) -> Result<Page<CheckIn>, RepoError> {
        let user = user.to_string();
        self.db
            .run("listing check-ins", move |conn| {
                use coaching_checkin as cc;
                let mut query = cc::table
                    .filter(cc::user_id.eq(user))
                    .order((cc::created_at.desc(), cc::id.desc()))
                    .limit(overfetch(limit))
                    .select(CheckInRow::as_select())
                    .into_boxed();
                if let Some(cursor) = before {
                    let (at, id) = cursor_key(&cursor);
                    query = query.filter(
                        cc::created_at
                            .le(at)
                            .and(cc::created_at.lt(at).or(cc::id.lt(id))),
                    );
                }
                let rows = query
                    .load(conn)?
                    .into_iter()
                    .map(CheckIn::try_from)
                    .collect::<anyhow::Result<Vec<_>>>()?;
                Ok(Page::from_overfetch(rows, limit, |c| Cursor {
                    at: c.created_at,
                    id: c.id.as_uuid(),
                }))
            })
            .await
    }

    async fn get(&self, user: UserId, id: CheckInId) -> Result<Option<CheckIn>, RepoError> {
        let (user, id) = (user.to_string(), id.to_string());
        self.db
            .run("loading a check-in", move |conn| {
                let row = coaching_checkin::table
                    .filter(coaching_checkin::id.eq(id))
                    .filter(coaching_checkin::user_id.eq(user))
                    .select(CheckInRow::as_select())
                    .first(conn)
                    .optional()?;
                Ok(row.map(CheckIn::try_from).transpose()?)
            })
            .await
    }

    async fn insert(&self, checkin: &CheckIn) -> Result<(), RepoError> {
        let row = CheckInRow::new(checkin).map_err(RepoError::Unexpected)?;
        let event = OutboxEvent::checkin_created(checkin);
        self.db
            .write("storing a check-in", move |conn| {
                diesel::insert_into(coaching_checkin::table)
                    .values(&row)
                    .execute(conn)?;
                outbox::record(conn, std::slice::from_ref(&event))
            })
            .await
    }

    async fn insert_unless_recent(
        &self,
        checkin: &CheckIn,
        since: OffsetDateTime,
    ) -> Result<bool, RepoError> {
        let rows = vec![Guarded {
            row: CheckInRow::new(checkin).map_err(RepoError::Unexpected)?,
            since: to_db(since),
            event: OutboxEvent::checkin_created(checkin),
        }];
        self.db
            .write("storing a due check-in", move |conn| {
                Ok(insert_unless_recent(conn, rows)? == 1)
            })
            .await
    }

    async fn insert_unless_recent_batch(&self, batch: &[GuardedCheckIn]) -> Result<u64, RepoError> {
        if batch.is_empty() {
            return Ok(0);
        }
        let rows = batch
            .iter()
            .map(|g| {
                Ok(Guarded {
                    row: CheckInRow::new(&g.checkin)?,
                    since: to_db(g.since),
                    event: OutboxEvent::checkin_created(&g.checkin),
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()
            .map_err(RepoError::Unexpected)?;
        self.db
            .write("storing due check-ins", move |conn| {
                insert_unless_recent(conn, rows)
            })
            .await
    }

    async fn save_response(&self, checkin: &CheckIn) -> Result<(), RepoError> {
        let row = CheckInRow::new(checkin).map_err(RepoError::Unexpected)?;
        if row.responded_at.is_none() {
            return Err(RepoError::Unexpected(anyhow::anyhow!(
                "the check-in carries no response to save"
            )));
        }
        self.db
            .write("storing a check-in response", move |conn| {
                save_response(conn, &row)
            })
            .await
    }

    async fn latest_created_at(&self, user: UserId) -> Result<Option<OffsetDateTime>, RepoError> {
        let user = user.to_string();
        self.db
            .run("finding the latest check-in", move |conn| {
                let at = coaching_checkin::table
                    .filter(coaching_checkin::user_id.eq(user))
                    .order(coaching_checkin::created_at.desc())
                    .select(coaching_checkin::created_at)
                    .first(conn)
                    .optional()?;
                Ok(at.map(from_db))
            })
            .await
    }

    async fn candidates(
        &self,
        after: Option<UserId>,
        limit: PageLimit,
    ) -> Result<Vec<CheckInCandidate>, RepoError> {
        let after = after.map(|u| u.to_string());
        self.db
            .run("listing check-in candidates", move |conn| {
                candidates(conn, after, limit)
            })
            .await
    }
}

/// One keyset page of affirmed profiles with their preferences (one join), then the latest
/// check-in of each (one aggregate over the `(user_id, created_at)` index).
fn candidates(
    conn: &mut DbConnection,
    after: Option<String>,
    limit: PageLimit,
) -> StoreResult<Vec<CheckInCandidate>> {
    use coaching_checkin as cc;
    use coaching_preferences as cp;
    use discovery_profile as dp;
    // A bare boolean filter, so the partial index `WHERE locked` applies.
    let mut query = dp::table
        .left_join(cp::table.on(cp::user_id.eq(dp::user_id)))
        .filter(dp::locked)
        .order(dp::user_id.asc())
        .limit(i64::from(limit.get()))
        .select((
            ProfileRow::as_select(),
            Option::<PreferencesRow>::as_select(),
        ))
        .into_boxed();
    if let Some(after) = after {
        query = query.filter(dp::user_id.gt(after));
    }
    let page: Vec<(ProfileRow, Option<PreferencesRow>)> = query.load(conn)?;
    let users: Vec<&str> = page.iter().map(|(p, _)| p.user_id.as_str()).collect();
    let latest: HashMap<String, PrimitiveDateTime> = if users.is_empty() {
        HashMap::new()
    } else {
        cc::table
            .filter(cc::user_id.eq_any(&users))
            .group_by(cc::user_id)
            .select((cc::user_id, max(cc::created_at)))
            .load::<(String, Option<PrimitiveDateTime>)>(conn)?
            .into_iter()
            .filter_map(|(user, at)| at.map(|at| (user, at)))
            .collect()
    };
    // Each person's time zone (whose days the check-in observes), by primary key.
    let zones: HashMap<String, String> = if users.is_empty() {
        HashMap::new()
    } else {
        users::table
            .filter(users::id.eq_any(&users))
            .select((users::id, users::time_zone))
            .load::<(String, String)>(conn)?
            .into_iter()
            .collect()
    };
    page.into_iter()
        .map(|(profile, preferences)| {
            let last_checkin_at = latest.get(&profile.user_id).copied().map(from_db);
            let time_zone = zones
                .get(&profile.user_id)
                .map_or_else(TimeZone::utc, |name| TimeZone::stored(name));
            Ok(CheckInCandidate {
                profile: Profile::try_from(profile)?,
                preferences: preferences.map(CoachingPreferences::try_from).transpose()?,
                last_checkin_at,
                time_zone,
            })
        })
        .collect::<anyhow::Result<_>>()
        .map_err(StoreError::from)
}

/// The guarded insert behind both `insert_unless_recent` methods, inside the caller's write
/// transaction: inserts each row unless its person has a check-in created after the row's
/// `since` (or an earlier row of the same call is theirs), with its `checkin.created` event;
/// returns how many it inserted.
///
/// SQLite: the transaction began `IMMEDIATE`, so writers already run one at a time. PostgreSQL:
/// two READ COMMITTED transactions would both see "no recent check-in", so the transaction
/// first takes a transaction-scoped advisory lock per person, all in one statement and in
/// ascending key order (two runs over overlapping pages then queue instead of deadlocking), and
/// only then re-reads the latest check-ins. A competing writer that held a lock has committed
/// when we get it, and READ COMMITTED shows its rows to every later statement.
fn insert_unless_recent(conn: &mut DbConnection, rows: Vec<Guarded>) -> StoreResult<u64> {
    use coaching_checkin as cc;
    let mut seen = HashSet::new();
    let rows: Vec<Guarded> = rows
        .into_iter()
        .filter(|g| seen.insert(g.row.user_id.clone()))
        .collect();
    let Some(oldest_since) = rows.iter().map(|g| g.since).min() else {
        return Ok(0);
    };
    if let DbConnection::Postgresql(pg) = conn {
        let mut keys = rows
            .iter()
            .map(|g| Ok(lock_key(Uuid::parse_str(&g.row.user_id)?)))
            .collect::<Result<Vec<i32>, uuid::Error>>()
            .map_err(anyhow::Error::from)?;
        keys.sort_unstable();
        keys.dedup();
        // The keys are sorted; ORDER BY n takes them in that order (PostgreSQL evaluates a
        // volatile select list after the sort), so every run locks in the same order.
        diesel::sql_query(
            "SELECT pg_advisory_xact_lock($1, k) \
             FROM unnest($2::int4[]) WITH ORDINALITY AS t(k, n) ORDER BY n",
        )
        .bind::<Integer, _>(CHECKIN_LOCK_SPACE)
        .bind::<Array<Integer>, _>(keys)
        .execute(pg)?;
    }
    let ids: Vec<&str> = rows.iter().map(|g| g.row.user_id.as_str()).collect();
    // A person deleted since the caller read them is skipped instead of failing the whole
    // batch on the foreign key; on PostgreSQL the share lock keeps the rest from vanishing
    // before the INSERT (SQLite's write lock already does).
    let present = users::table
        .filter(users::id.eq_any(&ids))
        .select(users::id);
    let present: HashSet<String> = match conn {
        DbConnection::Postgresql(pg) => present.for_key_share().load(pg)?,
        DbConnection::Sqlite(sqlite) => present.load(sqlite)?,
    }
    .into_iter()
    .collect();
    let latest: HashMap<String, Option<PrimitiveDateTime>> = cc::table
        .filter(cc::user_id.eq_any(&ids))
        .filter(cc::created_at.gt(oldest_since))
        .group_by(cc::user_id)
        .select((cc::user_id, max(cc::created_at)))
        .load::<(String, Option<PrimitiveDateTime>)>(conn)?
        .into_iter()
        .collect();
    let (fresh, events): (Vec<CheckInRow>, Vec<OutboxEvent>) = rows
        .into_iter()
        .filter(|g| {
            present.contains(&g.row.user_id)
                && latest
                    .get(&g.row.user_id)
                    .copied()
                    .flatten()
                    .is_none_or(|at| at <= g.since)
        })
        .map(|g| (g.row, g.event))
        .unzip();
    let mut inserted = 0;
    for chunk in fresh.chunks(INSERT_CHUNK) {
        inserted += on_backend!(conn, c => diesel::insert_into(cc::table)
            .values(chunk)
            .execute(c))?;
    }
    outbox::record(conn, &events)?;
    Ok(u64::try_from(inserted).unwrap_or(u64::MAX))
}

/// A check-in to insert unless its person has one created after `since`, with its event.
struct Guarded {
    row: CheckInRow,
    since: PrimitiveDateTime,
    event: OutboxEvent,
}

/// Rows per multi-row INSERT: 10 parameters each, well inside both backends' limits.
const INSERT_CHUNK: usize = 1_000;

/// Writes the response only where none is stored: a second response sees 0 rows.
fn save_response(conn: &mut DbConnection, row: &CheckInRow) -> StoreResult<()> {
    use coaching_checkin as cc;
    let owned = cc::table
        .filter(cc::id.eq(&row.id))
        .filter(cc::user_id.eq(&row.user_id));
    let n = diesel::update(owned.filter(cc::responded_at.is_null()))
        .set((
            cc::responded_at.eq(row.responded_at),
            cc::still_valid.eq(row.still_valid),
            cc::response_note.eq(&row.response_note),
        ))
        .execute(conn)?;
    if n == 0 {
        let known = diesel::select(exists(owned)).get_result::<bool>(conn)?;
        return Err(if known {
            StoreError::Conflict
        } else {
            StoreError::NotFound
        });
    }
    Ok(())
}

/// Folds the user's UUID into the lock's second key. Two users sharing a key only wait for
/// each other; they never skip a check-in.
fn lock_key(user: Uuid) -> i32 {
    let (high, low) = user.as_u64_pair();
    let folded = high ^ low;
    let [a, b, c, d, ..] = (folded ^ (folded >> 32)).to_le_bytes();
    i32::from_le_bytes([a, b, c, d])
}
