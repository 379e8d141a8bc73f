//! The coaching responses: preferences, check-ins (one and a page) and the due run's report.

use domain::coaching::{CheckIn, CoachingPreferences};
use domain::ids::CheckInId;
use domain::services::coaching::RunReport;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::enum_schemas;
use super::page::next_cursor;

/// The coaching preferences (`/coaching/preferences`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Preferences)]
pub struct PreferencesView {
    #[schema(value_type = enum_schemas::Frequency)]
    coaching_frequency: &'static str,
    #[schema(value_type = enum_schemas::Style)]
    coaching_style: &'static str,
    #[schema(minimum = 0.0, maximum = 1.0)]
    misalignment_threshold: f64,
    #[schema(value_type = enum_schemas::Friction)]
    friction_tolerance: &'static str,
    prefer_questions_over_directives: bool,
    #[schema(value_type = enum_schemas::TimeOfDay)]
    time_of_day_preference: &'static str,
    #[schema(value_type = enum_schemas::PreferencesSource)]
    source: &'static str,
    #[serde(with = "time::serde::rfc3339")]
    updated_at: OffsetDateTime,
}

impl From<&CoachingPreferences> for PreferencesView {
    fn from(p: &CoachingPreferences) -> Self {
        let s = &p.settings;
        Self {
            coaching_frequency: s.coaching_frequency.key(),
            coaching_style: s.coaching_style.key(),
            misalignment_threshold: s.misalignment_threshold.get(),
            friction_tolerance: s.friction_tolerance.key(),
            prefer_questions_over_directives: s.prefer_questions_over_directives,
            time_of_day_preference: s.time_of_day_preference.key(),
            source: p.source.key(),
            updated_at: p.updated_at,
        }
    }
}

/// One check-in.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = CheckIn)]
pub struct CheckInView {
    #[schema(value_type = uuid::Uuid)]
    id: CheckInId,
    message: String,
    /// The person's goal summaries, verbatim (the mission summary when no goal was stated).
    quoted_goals: Vec<String>,
    /// Where logged time went in the last 14 days; null when none was logged.
    observation: Option<String>,
    #[schema(value_type = enum_schemas::CheckInOrigin)]
    origin: &'static str,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    responded_at: Option<OffsetDateTime>,
    still_valid: Option<bool>,
    response_note: Option<String>,
    /// True once the person answered that the direction no longer holds: an invitation to
    /// reopen the profile and reflect on what changed.
    revisit: bool,
}

impl From<&CheckIn> for CheckInView {
    fn from(c: &CheckIn) -> Self {
        let response = c.response.as_ref();
        Self {
            id: c.id,
            message: c.message.clone(),
            quoted_goals: c.quoted_goals.clone(),
            observation: c.observation.clone(),
            origin: c.origin.key(),
            created_at: c.created_at,
            responded_at: response.map(|r| r.responded_at),
            still_valid: response.map(|r| r.still_valid),
            response_note: response
                .and_then(|r| r.note.as_ref())
                .map(|n| n.as_str().to_owned()),
            revisit: c.revisit(),
        }
    }
}

/// A page of check-ins, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct CheckInPage {
    items: Vec<CheckInView>,
    /// Pass as `before` for the next page; null on the last.
    next_cursor: Option<String>,
}

impl From<&domain::pagination::Page<CheckIn>> for CheckInPage {
    fn from(page: &domain::pagination::Page<CheckIn>) -> Self {
        Self {
            items: page.items.iter().map(CheckInView::from).collect(),
            next_cursor: next_cursor(page),
        }
    }
}

/// What a run of the due check-ins did (`POST /coaching/run`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = RunReport)]
pub struct RunReportView {
    considered: u64,
    created: u64,
}

impl From<&RunReport> for RunReportView {
    fn from(r: &RunReport) -> Self {
        Self {
            considered: r.considered,
            created: r.created,
        }
    }
}

#[cfg(test)]
mod tests {
    use domain::coaching::CheckInOrigin;
    use domain::ids::UserId;
    use domain::notifications::CheckInData;
    use serde_json::Value;

    use super::*;

    /// The `checkin.created` webhook sends a new check-in as this view shows it: each field of
    /// the payload's data is the view's field of the same name, with the same value.
    #[test]
    fn the_checkin_event_data_is_the_view_of_a_new_checkin() {
        let checkin = CheckIn {
            id: CheckInId::new(),
            user_id: UserId::new(),
            message: "Does this still hold?".to_owned(),
            quoted_goals: vec!["Ride to work daily".to_owned()],
            observation: Some("Most logged time went to Vocation.".to_owned()),
            origin: CheckInOrigin::Batch,
            created_at: time::macros::datetime!(2026-11-26 10:00:00.123456 UTC),
            response: None,
        };
        let view = serde_json::to_value(CheckInView::from(&checkin)).unwrap();
        let Value::Object(data) = serde_json::to_value(CheckInData::from(&checkin)).unwrap() else {
            panic!("the data is an object");
        };
        assert_eq!(data.len(), 6);
        for (field, value) in data {
            assert_eq!(view[&field], value, "{field}");
        }
    }
}
