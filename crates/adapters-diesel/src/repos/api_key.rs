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
use crate::tx::on_backend;

super::repository!(
    /// Personal API keys (hashes only).
    DieselApiKeyRepository
);

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
        let (hash, now) = (hash.as_hex().to_owned(), to_db(now));
        self.db
            .run("authenticating an API key", move |conn| {
                // One statement finds the key and stamps it, so a key revoked meanwhile is
                // never both refused and stamped, or accepted and not.
                let stamped = diesel::update(
                    api_keys::table
                        .filter(api_keys::key_hash.eq(hash))
                        .filter(api_keys::revoked_at.is_null()),
                )
                .set(api_keys::last_used_at.eq(now));
                // RETURNING a selectable row type needs the inner connection's backend.
                let row: Option<ApiKeyRow> =
                    on_backend!(conn, c => stamped.returning(ApiKeyRow::as_returning()).get_result(c).optional())?;
                Ok(row.map(ApiKey::try_from).transpose()?)
            })
            .await
    }
}
