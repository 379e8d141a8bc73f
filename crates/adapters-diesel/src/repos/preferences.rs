//! [`PreferencesRepository`] over diesel.

use async_trait::async_trait;
use diesel::prelude::*;
use domain::RepoError;
use domain::coaching::CoachingPreferences;
use domain::ids::UserId;
use domain::ports::PreferencesRepository;

use crate::models::preferences::PreferencesRow;
use crate::schema::coaching_preferences;
use crate::tx::on_backend;

super::declare::repository!(
    /// Coaching preferences, one row per person.
    DieselPreferencesRepository
);

#[async_trait]
impl PreferencesRepository for DieselPreferencesRepository {
    async fn get(&self, user: UserId) -> Result<Option<CoachingPreferences>, RepoError> {
        let user = user.to_string();
        self.db
            .run("loading coaching preferences", move |conn| {
                let row = coaching_preferences::table
                    .find(user)
                    .select(PreferencesRow::as_select())
                    .first(conn)
                    .optional()?;
                Ok(row.map(CoachingPreferences::try_from).transpose()?)
            })
            .await
    }

    async fn put(&self, preferences: &CoachingPreferences) -> Result<(), RepoError> {
        let row = PreferencesRow::from(preferences);
        self.db
            .write("storing coaching preferences", move |conn| {
                // One statement: the first read of two requests at once must not collide.
                on_backend!(conn, c => diesel::insert_into(coaching_preferences::table)
                    .values(&row)
                    .on_conflict(coaching_preferences::user_id)
                    .do_update()
                    .set(&row)
                    .execute(c))?;
                Ok(())
            })
            .await
    }
}
