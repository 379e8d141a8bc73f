//! `sessions` and `refresh_tokens` rows.

use diesel::prelude::*;
use domain::account::{RefreshToken, Session, TokenHash};
use time::PrimitiveDateTime;

use crate::convert::{from_db, from_db_opt, invalid, parse, to_db, to_db_opt};
use crate::schema::{refresh_tokens, sessions};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = sessions)]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct SessionRow {
    pub id: String,
    pub user_id: String,
    pub created_at: PrimitiveDateTime,
    pub last_used_at: PrimitiveDateTime,
    pub expires_at: PrimitiveDateTime,
    pub user_agent: Option<String>,
    pub ip: Option<String>,
    pub revoked_at: Option<PrimitiveDateTime>,
}

impl From<&Session> for SessionRow {
    fn from(s: &Session) -> Self {
        Self {
            id: s.id.to_string(),
            user_id: s.user_id.to_string(),
            created_at: to_db(s.created_at),
            last_used_at: to_db(s.last_used_at),
            expires_at: to_db(s.expires_at),
            user_agent: s.user_agent.clone(),
            ip: s.ip.clone(),
            revoked_at: to_db_opt(s.revoked_at),
        }
    }
}

impl TryFrom<SessionRow> for Session {
    type Error = anyhow::Error;

    fn try_from(row: SessionRow) -> Result<Self, Self::Error> {
        Ok(Self {
            id: parse(&row.id, "sessions.id")?,
            user_id: parse(&row.user_id, "sessions.user_id")?,
            created_at: from_db(row.created_at),
            last_used_at: from_db(row.last_used_at),
            expires_at: from_db(row.expires_at),
            user_agent: row.user_agent,
            ip: row.ip,
            revoked_at: from_db_opt(row.revoked_at),
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = refresh_tokens)]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct RefreshTokenRow {
    pub id: String,
    pub session_id: String,
    pub token_hash: String,
    pub created_at: PrimitiveDateTime,
    pub expires_at: PrimitiveDateTime,
    pub revoked_at: Option<PrimitiveDateTime>,
}

impl From<&RefreshToken> for RefreshTokenRow {
    fn from(t: &RefreshToken) -> Self {
        Self {
            id: t.id.to_string(),
            session_id: t.session_id.to_string(),
            token_hash: t.token_hash.as_hex().to_owned(),
            created_at: to_db(t.created_at),
            expires_at: to_db(t.expires_at),
            revoked_at: to_db_opt(t.revoked_at),
        }
    }
}

impl TryFrom<RefreshTokenRow> for RefreshToken {
    type Error = anyhow::Error;

    fn try_from(row: RefreshTokenRow) -> Result<Self, Self::Error> {
        Ok(Self {
            id: parse(&row.id, "refresh_tokens.id")?,
            session_id: parse(&row.session_id, "refresh_tokens.session_id")?,
            token_hash: TokenHash::from_hex(&row.token_hash)
                .map_err(|_| invalid("refresh_tokens.token_hash"))?,
            created_at: from_db(row.created_at),
            expires_at: from_db(row.expires_at),
            revoked_at: from_db_opt(row.revoked_at),
        })
    }
}
