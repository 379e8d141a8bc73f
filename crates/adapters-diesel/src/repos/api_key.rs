//! [`ApiKeyRepository`] over diesel.

use async_trait::async_trait;
use diesel::prelude::*;
use domain::RepoError;
use domain::account::{ApiKey, TokenHash};
use domain::ids::{ApiKeyId, UserId};
use domain::ports::ApiKeyRepository;
use time::OffsetDateTime;

use crate::convert::to_db;
use crate::models::api_key::ApiKeyRow;
use crate::schema::api_keys;

super::declare::repository!(
    /// Personal API keys (hashes only).
    DieselApiKeyRepository
);

/// How stale a key's `last_used_at` may get before authenticating writes it again.
const LAST_USED_RESOLUTION: time::Duration = time::Duration::minutes(1);

#[async_trait]
impl ApiKeyRepository for DieselApiKeyRepository {
    async fn create(&self, key: &ApiKey) -> Result<(), RepoError> {
        let row = ApiKeyRow::from(key);
        self.db
            .write("creating an API key", move |conn| {
                diesel::insert_into(api_keys::table)
                    .values(&row)
                    .execute(conn)?;
                Ok(())
            })
            .await
    }

    async fn list(&self, user: UserId) -> Result<Vec<ApiKey>, RepoError> {
        let user = user.to_string();
        self.db
            .run("listing API keys", move |conn| {
                let rows = api_keys::table
                    .filter(api_keys::user_id.eq(user))
                    .filter(api_keys::revoked_at.is_null())
                    .order((api_keys::created_at.desc(), api_keys::id.desc()))
                    .select(ApiKeyRow::as_select())
                    .load(conn)?;
                Ok(rows
                    .into_iter()
                    .map(ApiKey::try_from)
                    .collect::<anyhow::Result<_>>()?)
            })
            .await
    }

    async fn revoke(
        &self,
        user: UserId,
        id: ApiKeyId,
        now: OffsetDateTime,
    ) -> Result<bool, RepoError> {
        let (user, id, now) = (user.to_string(), id.to_string(), to_db(now));
        self.db
            .write("revoking an API key", move |conn| {
                let n = diesel::update(
                    api_keys::table
                        .filter(api_keys::id.eq(id))
                        .filter(api_keys::user_id.eq(user))
                        .filter(api_keys::revoked_at.is_null()),
                )
                .set(api_keys::revoked_at.eq(now))
                .execute(conn)?;
                Ok(n > 0)
            })
            .await
    }

    async fn authenticate(
        &self,
        hash: &TokenHash,
        now: OffsetDateTime,
    ) -> Result<Option<ApiKey>, RepoError> {
        let hash = hash.as_hex().to_owned();
        let (now, stale_before) = (to_db(now), to_db(now - LAST_USED_RESOLUTION));
        self.db
            .run("authenticating an API key", move |conn| {
                use api_keys as k;
                // A read on the hot path: a key in use is stamped at most once a minute, so a
                // busy tracker does not turn every request into a write (on SQLite, into the
                // one writer lock).
                let Some(mut row) = k::table
                    .filter(k::key_hash.eq(hash))
                    .filter(k::revoked_at.is_null())
                    .select(ApiKeyRow::as_select())
                    .first(conn)
                    .optional()?
                else {
                    return Ok(None);
                };
                if row.last_used_at.is_none_or(|at| at < stale_before) {
                    // Conditional, so of several requests at once one stamps and the others
                    // write nothing, and a key revoked since the read is not stamped (the read
                    // decided: this one request still authenticates, as it would have a moment
                    // earlier).
                    let stamped = diesel::update(
                        k::table
                            .filter(k::id.eq(&row.id))
                            .filter(k::revoked_at.is_null())
                            .filter(
                                k::last_used_at
                                    .is_null()
                                    .or(k::last_used_at.lt(stale_before)),
                            ),
                    )
                    .set(k::last_used_at.eq(now))
                    .execute(conn)?;
                    if stamped == 1 {
                        row.last_used_at = Some(now);
                    }
                }
                Ok(Some(ApiKey::try_from(row)?))
            })
            .await
    }
}
