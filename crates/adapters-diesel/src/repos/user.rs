//! [`UserRepository`] over diesel.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::upsert::excluded;
use domain::RepoError;
use domain::account::{Email, User};
use domain::ids::UserId;
use domain::ports::UserRepository;
use time::OffsetDateTime;

use crate::convert::to_db;
use crate::models::user::UserRow;
use crate::schema::users;
use crate::tx::on_backend;

diesel::define_sql_function! {
    /// The first non-NULL argument.
    fn coalesce(x: diesel::sql_types::Nullable<diesel::sql_types::Text>, y: diesel::sql_types::Nullable<diesel::sql_types::Text>) -> diesel::sql_types::Nullable<diesel::sql_types::Text>;
}

super::repository!(
    /// People, keyed by their verified e-mail.
    DieselUserRepository
);

#[async_trait]
impl UserRepository for DieselUserRepository {
    async fn upsert_on_login(
        &self,
        email: &Email,
        name: Option<String>,
        now: OffsetDateTime,
    ) -> Result<User, RepoError> {
        let row = UserRow {
            id: UserId::new().to_string(),
            email: email.as_str().to_owned(),
            name,
            created_at: to_db(now),
            last_login_at: Some(to_db(now)),
        };
        self.db
            .run("signing a user in", move |conn| {
                // One statement, so two first sign-ins at once cannot both insert. A provider
                // that sends no name keeps the one already stored.
                let stored: UserRow = on_backend!(conn, c => diesel::insert_into(users::table)
                    .values(&row)
                    .on_conflict(users::email)
                    .do_update()
                    .set((
                        users::name.eq(coalesce(excluded(users::name), users::name)),
                        users::last_login_at.eq(excluded(users::last_login_at)),
                    ))
                    .returning(UserRow::as_returning())
                    .get_result(c))?;
                Ok(User::try_from(stored)?)
            })
            .await
    }

    async fn get(&self, id: UserId) -> Result<Option<User>, RepoError> {
        self.db
            .run("loading a user", move |conn| {
                let row = users::table
                    .find(id.to_string())
                    .select(UserRow::as_select())
                    .first(conn)
                    .optional()?;
                Ok(row.map(User::try_from).transpose()?)
            })
            .await
    }

    async fn find_by_email(&self, email: &Email) -> Result<Option<User>, RepoError> {
        let email = email.as_str().to_owned();
        self.db
            .run("finding a user by e-mail", move |conn| {
                let row = users::table
                    .filter(users::email.eq(email))
                    .select(UserRow::as_select())
                    .first(conn)
                    .optional()?;
                Ok(row.map(User::try_from).transpose()?)
            })
            .await
    }

    async fn delete(&self, id: UserId) -> Result<bool, RepoError> {
        self.db
            .write("deleting a user", move |conn| {
                // Every owned row goes with it through ON DELETE CASCADE.
                let n = diesel::delete(users::table.find(id.to_string())).execute(conn)?;
                Ok(n > 0)
            })
            .await
    }
}
