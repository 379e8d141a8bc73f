//! Coaching: preferences derived from the triad (or overridden), and check-ins that quote the
//! person's goals back with an observation of where their time went.

pub mod checkin;
pub mod preferences;
pub mod vocabulary;

pub use checkin::{CheckIn, CheckInOrigin, CheckInResponse, compose_checkin, is_due};
pub use preferences::{
    CoachingFrequency, CoachingPreferences, CoachingStyle, FrictionTolerance, PreferenceSettings,
    PreferenceSource, Threshold, TimeOfDay, derive_preferences,
};
