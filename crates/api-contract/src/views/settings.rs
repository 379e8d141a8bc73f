//! The account settings' view: the person's time zone.

use domain::account::TimeZone;
use serde::Serialize;
use utoipa::ToSchema;

/// `GET` and `PUT /api/me/settings`.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Settings)]
pub struct SettingsView<'a> {
    /// The IANA name of the zone whose days and weeks the person sees (default `UTC`).
    #[schema(examples("Europe/Berlin"))]
    time_zone: &'a str,
}

impl<'a> From<&'a TimeZone> for SettingsView<'a> {
    fn from(zone: &'a TimeZone) -> Self {
        Self::named(zone.name())
    }
}

impl<'a> SettingsView<'a> {
    /// The settings of a zone stored under `name` (checked when it was set).
    #[must_use]
    pub const fn named(name: &'a str) -> Self {
        Self { time_zone: name }
    }
}
