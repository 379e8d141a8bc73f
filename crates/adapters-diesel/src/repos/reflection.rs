//! [`ReflectionRepository`] over diesel.

use async_trait::async_trait;
use diesel::prelude::*;
use domain::RepoError;
use domain::ids::UserId;
use domain::ports::ReflectionRepository;
use domain::reflection::ReflectionMessage;

use crate::models::reflection::ReflectionRow;
use crate::schema::reflection_message;

super::declare::repository!(
    /// The reflection dialogue.
    DieselReflectionRepository
);

#[async_trait]
impl ReflectionRepository for DieselReflectionRepository {
    async fn append(&self, messages: &[ReflectionMessage]) -> Result<(), RepoError> {
        let rows: Vec<ReflectionRow> = messages.iter().map(ReflectionRow::from).collect();
        self.db
            .write("storing reflection turns", move |conn| {
                for row in &rows {
                    diesel::insert_into(reflection_message::table)
                        .values(row)
                        .execute(conn)?;
                }
                Ok(())
            })
            .await
    }

    async fn list(&self, user: UserId) -> Result<Vec<ReflectionMessage>, RepoError> {
        let user = user.to_string();
        self.db
            .run("listing reflection turns", move |conn| {
                let rows = reflection_message::table
                    .filter(reflection_message::user_id.eq(user))
                    .order((
                        reflection_message::created_at.asc(),
                        reflection_message::id.asc(),
                    ))
                    .select(ReflectionRow::as_select())
                    .load(conn)?;
                Ok(rows
                    .into_iter()
                    .map(ReflectionMessage::try_from)
                    .collect::<anyhow::Result<_>>()?)
            })
            .await
    }
}
