//! [`CheckInRepository`] over diesel, including the insert that several batch hosts may run at
//! once without creating duplicates.

use async_trait::async_trait;
use diesel::dsl::exists;
use diesel::prelude::*;
use diesel::sql_types::Integer;
use domain::RepoError;
use domain::coaching::CheckIn;
use domain::ids::{CheckInId, UserId};
use domain::pagination::{Cursor, Page, PageLimit};
use domain::ports::CheckInRepository;
use time::OffsetDateTime;
use uuid::Uuid;

use super::keyset::{cursor_key, overfetch};
use crate::connection::DbConnection;
use crate::convert::{from_db, to_db};
use crate::error::{StoreError, StoreResult};
use crate::models::checkin::CheckInRow;
use crate::schema::coaching_checkin;

super::repository!(
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
        self.db
            .write("storing a check-in", move |conn| {
                diesel::insert_into(coaching_checkin::table)
                    .values(&row)
                    .execute(conn)?;
                Ok(())
            })
            .await
    }

    async fn insert_unless_recent(
        &self,
        checkin: &CheckIn,
        since: OffsetDateTime,
    ) -> Result<bool, RepoError> {
        let row = CheckInRow::new(checkin).map_err(RepoError::Unexpected)?;
        let lock_key = lock_key(checkin.user_id.as_uuid());
        let since = to_db(since);
        // write() begins IMMEDIATE on SQLite, which already admits one writer at a time; on
        // PostgreSQL two READ COMMITTED transactions would both see "no recent check-in", so
        // the check runs under a per-user advisory lock held until commit.
        self.db
            .write("storing a due check-in", move |conn| {
                if let DbConnection::Postgresql(pg) = conn {
                    diesel::sql_query("SELECT pg_advisory_xact_lock($1, $2)")
                        .bind::<Integer, _>(CHECKIN_LOCK_SPACE)
                        .bind::<Integer, _>(lock_key)
                        .execute(pg)?;
                }
                let recent = coaching_checkin::table
                    .filter(coaching_checkin::user_id.eq(&row.user_id))
                    .filter(coaching_checkin::created_at.gt(since));
                if diesel::select(exists(recent)).get_result::<bool>(conn)? {
                    return Ok(false);
                }
                diesel::insert_into(coaching_checkin::table)
                    .values(&row)
                    .execute(conn)?;
                Ok(true)
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
}

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
