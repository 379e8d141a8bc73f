//! `coaching_preferences` rows.

use diesel::prelude::*;
use domain::coaching::{CoachingPreferences, PreferenceSettings, Threshold};
use time::PrimitiveDateTime;

use crate::convert::{from_db, invalid, parse, to_db};
use crate::schema::coaching_preferences;

#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = coaching_preferences)]
#[diesel(primary_key(user_id))]
pub(crate) struct PreferencesRow {
    pub user_id: String,
    pub coaching_frequency: String,
    pub coaching_style: String,
    pub misalignment_threshold: f64,
    pub friction_tolerance: String,
    pub prefer_questions_over_directives: bool,
    pub time_of_day_preference: String,
    pub source: String,
    pub updated_at: PrimitiveDateTime,
}

impl From<&CoachingPreferences> for PreferencesRow {
    fn from(p: &CoachingPreferences) -> Self {
        let s = &p.settings;
        Self {
            user_id: p.user_id.to_string(),
            coaching_frequency: s.coaching_frequency.key().to_owned(),
            coaching_style: s.coaching_style.key().to_owned(),
            misalignment_threshold: s.misalignment_threshold.get(),
            friction_tolerance: s.friction_tolerance.key().to_owned(),
            prefer_questions_over_directives: s.prefer_questions_over_directives,
            time_of_day_preference: s.time_of_day_preference.key().to_owned(),
            source: p.source.key().to_owned(),
            updated_at: to_db(p.updated_at),
        }
    }
}

impl TryFrom<PreferencesRow> for CoachingPreferences {
    type Error = anyhow::Error;

    fn try_from(row: PreferencesRow) -> Result<Self, Self::Error> {
        Ok(Self {
            user_id: parse(&row.user_id, "coaching_preferences.user_id")?,
            settings: PreferenceSettings {
                coaching_frequency: parse(
                    &row.coaching_frequency,
                    "coaching_preferences.coaching_frequency",
                )?,
                coaching_style: parse(&row.coaching_style, "coaching_preferences.coaching_style")?,
                misalignment_threshold: Threshold::new(row.misalignment_threshold)
                    .map_err(|_| invalid("coaching_preferences.misalignment_threshold"))?,
                friction_tolerance: parse(
                    &row.friction_tolerance,
                    "coaching_preferences.friction_tolerance",
                )?,
                prefer_questions_over_directives: row.prefer_questions_over_directives,
                time_of_day_preference: parse(
                    &row.time_of_day_preference,
                    "coaching_preferences.time_of_day_preference",
                )?,
            },
            source: parse(&row.source, "coaching_preferences.source")?,
            updated_at: from_db(row.updated_at),
        })
    }
}
