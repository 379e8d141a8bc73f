//! [`SessionRepository`] over diesel: sessions and their rotating refresh tokens.

use async_trait::async_trait;
use diesel::dsl::exists;
use diesel::prelude::*;
use domain::RepoError;
use domain::account::{RefreshToken, Session, TokenHash};
use domain::ids::{RefreshTokenId, SessionId, UserId};
use domain::ports::SessionRepository;
use time::OffsetDateTime;

use crate::convert::to_db;
use crate::error::StoreError;
use crate::models::session::{RefreshTokenRow, SessionRow};
use crate::schema::{refresh_tokens, sessions};

super::declare::repository!(
    /// Sign-in sessions and their refresh tokens (hashes only).
    DieselSessionRepository
);

#[async_trait]
impl SessionRepository for DieselSessionRepository {
    async fn create(&self, session: &Session, token: &RefreshToken) -> Result<(), RepoError> {
        let session = SessionRow::from(session);
        let token = RefreshTokenRow::from(token);
        self.db
            .write("creating a session", move |conn| {
                diesel::insert_into(sessions::table)
                    .values(&session)
                    .execute(conn)?;
                diesel::insert_into(refresh_tokens::table)
                    .values(&token)
                    .execute(conn)?;
                Ok(())
            })
            .await
    }

    async fn get(&self, id: SessionId) -> Result<Option<Session>, RepoError> {
        self.db
            .run("loading a session", move |conn| {
                let row = sessions::table
                    .find(id.to_string())
                    .select(SessionRow::as_select())
                    .first(conn)
                    .optional()?;
                Ok(row.map(Session::try_from).transpose()?)
            })
            .await
    }

    async fn find_refresh(
        &self,
        hash: &TokenHash,
    ) -> Result<Option<(RefreshToken, Session)>, RepoError> {
        let hash = hash.as_hex().to_owned();
        self.db
            .run("finding a refresh token", move |conn| {
                let row = refresh_tokens::table
                    .inner_join(sessions::table)
                    .filter(refresh_tokens::token_hash.eq(hash))
                    .select((RefreshTokenRow::as_select(), SessionRow::as_select()))
                    .first::<(RefreshTokenRow, SessionRow)>(conn)
                    .optional()?;
                Ok(row
                    .map(|(t, s)| anyhow::Ok((RefreshToken::try_from(t)?, Session::try_from(s)?)))
                    .transpose()?)
            })
            .await
    }

    async fn rotate(
        &self,
        old: RefreshTokenId,
        new: &RefreshToken,
        now: OffsetDateTime,
    ) -> Result<(), RepoError> {
        let new = RefreshTokenRow::from(new);
        let old = old.to_string();
        let now = to_db(now);
        self.db
            .write("rotating a refresh token", move |conn| {
                // Guarded by `revoked_at IS NULL`: of two rotations of one token, only one
                // revokes it; the other sees 0 rows and reports the re-use.
                let revoked = diesel::update(
                    refresh_tokens::table
                        .filter(refresh_tokens::id.eq(&old))
                        .filter(refresh_tokens::session_id.eq(&new.session_id))
                        .filter(refresh_tokens::revoked_at.is_null()),
                )
                .set(refresh_tokens::revoked_at.eq(now))
                .execute(conn)?;
                if revoked == 0 {
                    let known = diesel::select(exists(refresh_tokens::table.find(&old)))
                        .get_result::<bool>(conn)?;
                    return Err(if known {
                        StoreError::Conflict
                    } else {
                        StoreError::NotFound
                    });
                }
                diesel::insert_into(refresh_tokens::table)
                    .values(&new)
                    .execute(conn)?;
                diesel::update(sessions::table.find(&new.session_id))
                    .set(sessions::last_used_at.eq(now))
                    .execute(conn)?;
                Ok(())
            })
            .await
    }

    async fn add_refresh(&self, new: &RefreshToken, now: OffsetDateTime) -> Result<(), RepoError> {
        let new = RefreshTokenRow::from(new);
        let now = to_db(now);
        self.db
            .write("adding a refresh token", move |conn| {
                // Guarded by `revoked_at IS NULL`: a session revoked meanwhile gets no token.
                let used = diesel::update(
                    sessions::table
                        .filter(sessions::id.eq(&new.session_id))
                        .filter(sessions::revoked_at.is_null()),
                )
                .set(sessions::last_used_at.eq(now))
                .execute(conn)?;
                if used == 0 {
                    return Err(StoreError::NotFound);
                }
                diesel::insert_into(refresh_tokens::table)
                    .values(&new)
                    .execute(conn)?;
                Ok(())
            })
            .await
    }

    async fn revoke(
        &self,
        user: UserId,
        id: SessionId,
        now: OffsetDateTime,
    ) -> Result<bool, RepoError> {
        let (user, id, now) = (user.to_string(), id.to_string(), to_db(now));
        self.db
            .write("revoking a session", move |conn| {
                let owned = sessions::table
                    .filter(sessions::id.eq(&id))
                    .filter(sessions::user_id.eq(&user));
                let revoked = diesel::update(owned.filter(sessions::revoked_at.is_null()))
                    .set(sessions::revoked_at.eq(now))
                    .execute(conn)?;
                // Revoking an already revoked session of the owner still succeeds.
                if revoked == 0 && !diesel::select(exists(owned)).get_result::<bool>(conn)? {
                    return Ok(false);
                }
                diesel::update(
                    refresh_tokens::table
                        .filter(refresh_tokens::session_id.eq(&id))
                        .filter(refresh_tokens::revoked_at.is_null()),
                )
                .set(refresh_tokens::revoked_at.eq(now))
                .execute(conn)?;
                Ok(true)
            })
            .await
    }

    async fn list_active(
        &self,
        user: UserId,
        now: OffsetDateTime,
    ) -> Result<Vec<Session>, RepoError> {
        let (user, now) = (user.to_string(), to_db(now));
        self.db
            .run("listing sessions", move |conn| {
                let rows = sessions::table
                    .filter(sessions::user_id.eq(user))
                    .filter(sessions::revoked_at.is_null())
                    .filter(sessions::expires_at.gt(now))
                    .order((sessions::created_at.desc(), sessions::id.desc()))
                    .select(SessionRow::as_select())
                    .load(conn)?;
                Ok(rows
                    .into_iter()
                    .map(Session::try_from)
                    .collect::<anyhow::Result<_>>()?)
            })
            .await
    }
}
