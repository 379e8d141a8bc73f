//! The coaching requests: the six preference settings, and the answer to a check-in.

use domain::coaching::{
    CoachingFrequency, CoachingStyle, FrictionTolerance, PreferenceSettings, Threshold, TimeOfDay,
};
use domain::text::Note;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa::openapi::Object;

use super::rules;
use crate::views::enum_schemas;

/// All six settings; stored with `source: "override"`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PreferencesRequest {
    #[schema(value_type = enum_schemas::Frequency)]
    pub coaching_frequency: CoachingFrequency,
    #[schema(value_type = enum_schemas::Style)]
    pub coaching_style: CoachingStyle,
    #[schema(schema_with = threshold)]
    pub misalignment_threshold: Threshold,
    #[schema(value_type = enum_schemas::Friction)]
    pub friction_tolerance: FrictionTolerance,
    pub prefer_questions_over_directives: bool,
    #[schema(value_type = enum_schemas::TimeOfDay)]
    pub time_of_day_preference: TimeOfDay,
}

fn threshold() -> Object {
    rules::number(Threshold::MIN, Threshold::MAX)
}

impl From<PreferencesRequest> for PreferenceSettings {
    fn from(r: PreferencesRequest) -> Self {
        Self {
            coaching_frequency: r.coaching_frequency,
            coaching_style: r.coaching_style,
            misalignment_threshold: r.misalignment_threshold,
            friction_tolerance: r.friction_tolerance,
            prefer_questions_over_directives: r.prefer_questions_over_directives,
            time_of_day_preference: r.time_of_day_preference,
        }
    }
}

/// The person's answer to a check-in: does the direction still hold?
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckInResponseRequest {
    pub still_valid: bool,
    #[serde(default)]
    #[schema(schema_with = note)]
    pub note: Option<Note>,
}

fn note() -> Object {
    rules::text_or_null(Note::MAX)
}
