//! Coaching preferences: their value sets, and the derivation from the triad (a pure table).

use serde::{Deserialize, Serialize};
use time::{Duration, OffsetDateTime};

use crate::ids::UserId;
use crate::profile::Triad;

macro_rules! keyed_enum {
    ($(#[$doc:meta])* $name:ident { $($variant:ident => $key:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum $name { $($variant),+ }

        impl $name {
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];

            #[must_use]
            pub const fn key(self) -> &'static str {
                match self { $(Self::$variant => $key),+ }
            }
        }

        impl std::str::FromStr for $name {
            type Err = crate::coaching::preferences::UnknownValue;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($key => Ok(Self::$variant),)+
                    other => Err(crate::coaching::preferences::UnknownValue(other.to_owned())),
                }
            }
        }
    };
}

/// A stored string that names no known value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown value {0:?}")]
pub struct UnknownValue(pub String);

keyed_enum!(
    /// How often check-ins come.
    CoachingFrequency { Weekly => "weekly", Biweekly => "biweekly", Monthly => "monthly" }
);
keyed_enum!(
    /// The tone of the coach.
    CoachingStyle { Direct => "direct", Warm => "warm", Reflective => "reflective" }
);
keyed_enum!(
    /// How much friction the person welcomes in a check-in.
    FrictionTolerance { Low => "low", Medium => "medium", High => "high" }
);
keyed_enum!(
    /// When the person prefers to hear from the coach.
    TimeOfDay { Morning => "morning", Afternoon => "afternoon", Evening => "evening", Any => "any" }
);
keyed_enum!(
    /// Whether the settings are the derived defaults or the person's own.
    PreferenceSource { Derived => "derived", Override => "override" }
);

impl CoachingFrequency {
    /// The cadence: a check-in is due when none exists within this span.
    #[must_use]
    pub const fn cadence(self) -> Duration {
        match self {
            Self::Weekly => Duration::days(7),
            Self::Biweekly => Duration::days(14),
            Self::Monthly => Duration::days(30),
        }
    }
}

/// A misalignment threshold between 0.0 and 1.0.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize)]
#[serde(transparent)]
pub struct Threshold(f64);

/// A threshold outside 0.0-1.0 (or not a number).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("must be between 0.0 and 1.0")]
pub struct InvalidThreshold;

impl Threshold {
    /// The bounds, inclusive.
    pub const MIN: f64 = 0.0;
    pub const MAX: f64 = 1.0;

    /// # Errors
    /// [`InvalidThreshold`] outside 0.0-1.0 or for NaN.
    pub fn new(value: f64) -> Result<Self, InvalidThreshold> {
        if (Self::MIN..=Self::MAX).contains(&value) {
            Ok(Self(value))
        } else {
            Err(InvalidThreshold)
        }
    }

    #[must_use]
    pub const fn get(self) -> f64 {
        self.0
    }
}

impl<'de> Deserialize<'de> for Threshold {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Self::new(f64::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

/// The six settings a person can set.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreferenceSettings {
    pub coaching_frequency: CoachingFrequency,
    pub coaching_style: CoachingStyle,
    pub misalignment_threshold: Threshold,
    pub friction_tolerance: FrictionTolerance,
    pub prefer_questions_over_directives: bool,
    pub time_of_day_preference: TimeOfDay,
}

/// A person's stored preferences.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CoachingPreferences {
    pub user_id: UserId,
    pub settings: PreferenceSettings,
    pub source: PreferenceSource,
    pub updated_at: OffsetDateTime,
}

/// The derived defaults for a triad (docs/api.md's table).
#[must_use]
pub fn derive_preferences(triad: Triad) -> PreferenceSettings {
    use CoachingFrequency::{Biweekly, Weekly};
    use CoachingStyle::{Direct, Reflective, Warm};
    use FrictionTolerance::{High, Low, Medium};
    let (coaching_frequency, coaching_style, threshold, friction_tolerance, questions) = match triad
    {
        Triad::Gut => (Weekly, Direct, 0.30, High, false),
        Triad::Heart => (Weekly, Warm, 0.15, Low, false),
        Triad::Head => (Biweekly, Reflective, 0.25, Medium, true),
    };
    PreferenceSettings {
        coaching_frequency,
        coaching_style,
        misalignment_threshold: Threshold(threshold),
        friction_tolerance,
        prefer_questions_over_directives: questions,
        time_of_day_preference: TimeOfDay::Any,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derivation_follows_the_contract_table() {
        let table = [
            (Triad::Gut, "weekly", "direct", 0.30, "high", false, "any"),
            (Triad::Heart, "weekly", "warm", 0.15, "low", false, "any"),
            (
                Triad::Head,
                "biweekly",
                "reflective",
                0.25,
                "medium",
                true,
                "any",
            ),
        ];
        for (triad, freq, style, threshold, friction, questions, time) in table {
            let p = derive_preferences(triad);
            assert_eq!(p.coaching_frequency.key(), freq, "{triad}");
            assert_eq!(p.coaching_style.key(), style, "{triad}");
            assert!(
                (p.misalignment_threshold.get() - threshold).abs() < f64::EPSILON,
                "{triad}"
            );
            assert_eq!(p.friction_tolerance.key(), friction, "{triad}");
            assert_eq!(p.prefer_questions_over_directives, questions, "{triad}");
            assert_eq!(p.time_of_day_preference.key(), time, "{triad}");
        }
    }

    #[test]
    fn cadences_are_seven_fourteen_and_thirty_days() {
        assert_eq!(CoachingFrequency::Weekly.cadence(), Duration::days(7));
        assert_eq!(CoachingFrequency::Biweekly.cadence(), Duration::days(14));
        assert_eq!(CoachingFrequency::Monthly.cadence(), Duration::days(30));
    }

    #[test]
    fn thresholds_outside_zero_to_one_are_refused() {
        for bad in [-0.01, 1.01, f64::NAN, f64::INFINITY] {
            assert!(Threshold::new(bad).is_err(), "{bad}");
        }
        assert!(Threshold::new(0.0).is_ok() && Threshold::new(1.0).is_ok());
    }

    #[test]
    fn settings_parse_strictly_from_json() {
        let ok = r#"{"coaching_frequency":"monthly","coaching_style":"warm","misalignment_threshold":0.5,
            "friction_tolerance":"low","prefer_questions_over_directives":true,"time_of_day_preference":"evening"}"#;
        assert!(serde_json::from_str::<PreferenceSettings>(ok).is_ok());
        let bad_enum = ok.replace("monthly", "daily");
        assert!(serde_json::from_str::<PreferenceSettings>(&bad_enum).is_err());
        let unknown = ok.replace("\"evening\"", "\"evening\", \"extra\": 1");
        assert!(serde_json::from_str::<PreferenceSettings>(&unknown).is_err());
        assert_eq!("afternoon".parse::<TimeOfDay>(), Ok(TimeOfDay::Afternoon));
    }
}
