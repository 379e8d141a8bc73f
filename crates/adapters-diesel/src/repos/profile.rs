//! [`ProfileRepository`] over diesel: profiles, their numbered revisions, and the atomic write
//! that also stores reflection turns and completes the conversation. Reads of a profile by its
//! user that arrive together share one statement (see `Database::read_grouped`).

use std::sync::Arc;

use async_trait::async_trait;
use diesel::dsl::max;
use diesel::prelude::*;
use domain::RepoError;
use domain::ids::{ProfileId, UserId};
use domain::pagination::PageLimit;
use domain::ports::{ProfileRepository, ProfileWrite};
use domain::profile::{NewRevision, Profile, Revision};
use time::PrimitiveDateTime;

use super::outbox;

use crate::connection::DbConnection;
use crate::convert::{parse, to_db};
use crate::database::Database;
use crate::error::{StoreError, StoreResult};
use crate::models::profile::{ProfileChanges, ProfileRow};
use crate::models::reflection::ReflectionRow;
use crate::models::revision::RevisionRow;
use crate::read_group::ReadGroup;
use crate::schema::{
    discovery_conversation, discovery_profile, profile_revision, reflection_message,
};

/// Profiles and their revisions. Cheap to clone; the clones share one queue of reads.
#[derive(Debug, Clone)]
pub struct DieselProfileRepository {
    db: Database,
    /// Reads of a profile by its user that wait at the same time share one statement.
    by_user: Arc<ReadGroup<String, ProfileRow>>,
}

impl DieselProfileRepository {
    #[must_use]
    pub fn new(db: Database) -> Self {
        let by_user = db.read_group();
        Self { db, by_user }
    }
}

/// The profiles of the given users, each with its user (a user has at most one: `user_id` is
/// unique). One statement: `user_id = ANY($1)` on PostgreSQL, `user_id IN (?, …)` on SQLite,
/// both through the unique index.
fn profiles_of(
    conn: &mut DbConnection,
    users: &[String],
) -> StoreResult<Vec<(String, ProfileRow)>> {
    let rows = discovery_profile::table
        .filter(discovery_profile::user_id.eq_any(users))
        .select(ProfileRow::as_select())
        .load::<ProfileRow>(conn)?;
    Ok(rows
        .into_iter()
        .map(|row| (row.user_id.clone(), row))
        .collect())
}

#[async_trait]
impl ProfileRepository for DieselProfileRepository {
    async fn get(&self, user: UserId) -> Result<Option<Profile>, RepoError> {
        const CONTEXT: &str = "loading a profile";
        let row = self
            .db
            .read_grouped(CONTEXT, &self.by_user, user.to_string(), profiles_of)
            .await?;
        // Converted here, by each caller, as a lone read converted its row before.
        row.map(Profile::try_from)
            .transpose()
            .map_err(|e| RepoError::Unexpected(e.context(CONTEXT)))
    }

    async fn write(&self, write: ProfileWrite) -> Result<Option<Revision>, RepoError> {
        self.db
            .write("writing a profile", move |conn| {
                let row = ProfileRow::from(&write.profile);
                let (profile_id, user_id) = (row.id.clone(), row.user_id.clone());
                match write.expected_version {
                    // A second profile for the user breaks the unique user_id: Conflict.
                    None => {
                        diesel::insert_into(discovery_profile::table)
                            .values(&row)
                            .execute(conn)?;
                    }
                    Some(expected) => {
                        let n = diesel::update(
                            discovery_profile::table
                                .filter(discovery_profile::id.eq(&profile_id))
                                .filter(discovery_profile::user_id.eq(&user_id))
                                .filter(discovery_profile::version.eq(expected)),
                        )
                        .set(ProfileChanges::from(row))
                        .execute(conn)?;
                        if n == 0 {
                            return Err(StoreError::Conflict);
                        }
                    }
                }
                let revision = write
                    .revision
                    .map(|r| record_revision(conn, r))
                    .transpose()?;
                for message in &write.reflection {
                    diesel::insert_into(reflection_message::table)
                        .values(ReflectionRow::from(message))
                        .execute(conn)?;
                }
                if let Some((conversation, at)) = write.completes {
                    complete_conversation(conn, &conversation.to_string(), &user_id, to_db(at))?;
                }
                outbox::record(conn, &write.events)?;
                Ok(revision)
            })
            .await
    }

    async fn revisions(&self, profile: ProfileId) -> Result<Vec<Revision>, RepoError> {
        let profile = profile.to_string();
        self.db
            .run("listing revisions", move |conn| {
                let rows = profile_revision::table
                    .filter(profile_revision::profile_id.eq(profile))
                    .order(profile_revision::number.asc())
                    .select(RevisionRow::as_select())
                    .load(conn)?;
                Ok(rows
                    .into_iter()
                    .map(Revision::try_from)
                    .collect::<anyhow::Result<_>>()?)
            })
            .await
    }

    async fn revision(
        &self,
        profile: ProfileId,
        number: u32,
    ) -> Result<Option<Revision>, RepoError> {
        let profile = profile.to_string();
        // A number beyond what the column holds names no revision.
        let Ok(number) = i32::try_from(number) else {
            return Ok(None);
        };
        self.db
            .run("reading a revision", move |conn| {
                let row = profile_revision::table
                    .filter(profile_revision::profile_id.eq(profile))
                    .filter(profile_revision::number.eq(number))
                    .select(RevisionRow::as_select())
                    .first(conn)
                    .optional()?;
                Ok(row.map(Revision::try_from).transpose()?)
            })
            .await
    }

    async fn locked_users(
        &self,
        after: Option<UserId>,
        limit: PageLimit,
    ) -> Result<Vec<UserId>, RepoError> {
        let after = after.map(|u| u.to_string());
        self.db
            .run("listing affirmed profiles", move |conn| {
                // A bare boolean filter, so the partial index `WHERE locked` applies.
                let mut query = discovery_profile::table
                    .filter(discovery_profile::locked)
                    .select(discovery_profile::user_id)
                    .order(discovery_profile::user_id.asc())
                    .limit(i64::from(limit.get()))
                    .into_boxed();
                if let Some(after) = after {
                    query = query.filter(discovery_profile::user_id.gt(after));
                }
                let ids: Vec<String> = query.load(conn)?;
                Ok(ids
                    .iter()
                    .map(|id| parse(id, "discovery_profile.user_id"))
                    .collect::<anyhow::Result<_>>()?)
            })
            .await
    }
}

/// Numbers the revision after the profile's latest. The profile row is already written (and so
/// locked) in this transaction, which keeps concurrent writers from taking the same number; the
/// unique (profile_id, number) would turn a slip into a Conflict anyway.
fn record_revision(conn: &mut DbConnection, revision: NewRevision) -> StoreResult<Revision> {
    let latest: Option<i32> = profile_revision::table
        .filter(profile_revision::profile_id.eq(revision.profile_id.to_string()))
        .select(max(profile_revision::number))
        .first(conn)?;
    let number = latest.unwrap_or(0) + 1;
    let row = RevisionRow::new(&revision, number)?;
    diesel::insert_into(profile_revision::table)
        .values(&row)
        .execute(conn)?;
    Ok(Revision {
        id: revision.id,
        profile_id: revision.profile_id,
        number: u32::try_from(number)
            .map_err(|_| anyhow::anyhow!("revision number out of range"))?,
        origin: revision.origin,
        snapshot: revision.snapshot,
        note: revision.note,
        created_at: domain::clock::truncate_to_micros(revision.created_at),
    })
}

/// Completes the user's conversation if it is still in progress; otherwise Conflict, which
/// rolls back the whole profile write.
fn complete_conversation(
    conn: &mut DbConnection,
    id: &str,
    user: &str,
    at: PrimitiveDateTime,
) -> StoreResult<()> {
    use discovery_conversation as dc;
    let n = diesel::update(
        dc::table
            .filter(dc::id.eq(id))
            .filter(dc::user_id.eq(user))
            .filter(dc::completed_at.is_null()),
    )
    .set(dc::completed_at.eq(Some(at)))
    .execute(conn)?;
    if n == 0 {
        return Err(StoreError::Conflict);
    }
    Ok(())
}
