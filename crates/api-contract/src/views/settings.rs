//! The account settings' view: the person's time zone.

use domain::account::TimeZone;
use serde::Serialize;
use utoipa::ToSchema;

/// `GET` and `PUT /api/me/settings`.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Settings)]
pub struct SettingsView {
    /// The IANA name of the zone whose days and weeks the person sees (default `UTC`).
    #[schema(examples("Europe/Berlin"))]
    time_zone: String,
}

impl From<&TimeZone> for SettingsView {
    fn from(zone: &TimeZone) -> Self {
        Self::named(zone.name())
    }
}

impl SettingsView {
    /// The settings of a zone stored under `name` (checked when it was set).
    #[must_use]
    pub fn named(name: &str) -> Self {
        Self {
            time_zone: name.to_owned(),
        }
    }
}
