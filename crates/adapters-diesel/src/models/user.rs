//! `users` rows. The OpenID Connect issuer and subject stay in storage: the domain's `User`
//! does not carry them.

use diesel::prelude::*;
use domain::account::{Email, User};
use time::PrimitiveDateTime;

use crate::convert::{from_db, from_db_opt, invalid, parse};
use crate::schema::users;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = users)]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct UserRow {
    pub id: String,
    pub email: String,
    pub name: Option<String>,
    pub created_at: PrimitiveDateTime,
    pub last_login_at: Option<PrimitiveDateTime>,
    /// With `oidc_subject`, who the person is for good (unique together).
    pub oidc_issuer: String,
    pub oidc_subject: String,
}

impl TryFrom<UserRow> for User {
    type Error = anyhow::Error;

    fn try_from(row: UserRow) -> Result<Self, Self::Error> {
        Ok(Self {
            id: parse(&row.id, "users.id")?,
            // Read as stored: a row written before mailbox syntax was refused stays readable.
            email: Email::stored(&row.email).map_err(|_| invalid("users.email"))?,
            issuer: row.oidc_issuer,
            name: row.name,
            created_at: from_db(row.created_at),
            last_login_at: from_db_opt(row.last_login_at),
        })
    }
}
