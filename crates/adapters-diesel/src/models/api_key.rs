//! `api_keys` rows.

use diesel::prelude::*;
use domain::account::{ApiKey, KeyScopes, TokenHash};
use time::PrimitiveDateTime;

use crate::convert::{from_db, from_db_opt, invalid, parse, to_db, to_db_opt};
use crate::schema::api_keys;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = api_keys)]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct ApiKeyRow {
    pub id: String,
    pub user_id: String,
    pub name: String,
    pub prefix: String,
    pub key_hash: String,
    pub created_at: PrimitiveDateTime,
    pub last_used_at: Option<PrimitiveDateTime>,
    pub revoked_at: Option<PrimitiveDateTime>,
    /// [`KeyScopes::to_stored`]: `"integration coaching"`.
    pub scopes: String,
    pub expires_at: Option<PrimitiveDateTime>,
}

impl From<&ApiKey> for ApiKeyRow {
    fn from(k: &ApiKey) -> Self {
        Self {
            id: k.id.to_string(),
            user_id: k.user_id.to_string(),
            name: k.name.clone(),
            prefix: k.prefix.clone(),
            key_hash: k.key_hash.as_hex().to_owned(),
            created_at: to_db(k.created_at),
            last_used_at: to_db_opt(k.last_used_at),
            revoked_at: None,
            scopes: k.scopes.to_stored(),
            expires_at: to_db_opt(k.expires_at),
        }
    }
}

impl TryFrom<ApiKeyRow> for ApiKey {
    type Error = anyhow::Error;

    fn try_from(row: ApiKeyRow) -> Result<Self, Self::Error> {
        Ok(Self {
            id: parse(&row.id, "api_keys.id")?,
            user_id: parse(&row.user_id, "api_keys.user_id")?,
            name: row.name,
            prefix: row.prefix,
            key_hash: TokenHash::from_hex(&row.key_hash)
                .map_err(|_| invalid("api_keys.key_hash"))?,
            scopes: KeyScopes::from_stored(&row.scopes).map_err(|_| invalid("api_keys.scopes"))?,
            expires_at: from_db_opt(row.expires_at),
            created_at: from_db(row.created_at),
            last_used_at: from_db_opt(row.last_used_at),
        })
    }
}
