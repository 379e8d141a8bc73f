//! The kinds of event and the typed shapes of an event's payload (`{"id", "type",
//! "created_at", "data"}`) and of each event's `data`. Webhook receivers verify signatures over the exact bytes, so
//! [`EventPayload::to_body`] writes them in one fixed form: every object's keys sorted, at every
//! depth, as the service has always sent them.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::coaching::CheckIn;
use crate::ids::{CheckInId, EventId, ProfileId};
use crate::profile::{Profile, Snapshot};

/// The kinds of event, as the contract names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum EventType {
    #[serde(rename = "checkin.created")]
    CheckinCreated,
    #[serde(rename = "profile.affirmed")]
    ProfileAffirmed,
    #[serde(rename = "profile.revised")]
    ProfileRevised,
    #[serde(rename = "ping")]
    Ping,
}

impl EventType {
    pub const ALL: [Self; 4] = [
        Self::CheckinCreated,
        Self::ProfileAffirmed,
        Self::ProfileRevised,
        Self::Ping,
    ];

    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            Self::CheckinCreated => "checkin.created",
            Self::ProfileAffirmed => "profile.affirmed",
            Self::ProfileRevised => "profile.revised",
            Self::Ping => "ping",
        }
    }

    #[must_use]
    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.key() == key)
    }
}

/// The body every delivery of one event sends.
#[derive(Debug, Serialize)]
pub struct EventPayload<D> {
    pub id: EventId,
    #[serde(rename = "type")]
    pub event_type: EventType,
    /// RFC 3339.
    pub created_at: String,
    pub data: D,
}

impl<D: Serialize> EventPayload<D> {
    /// The body's bytes: keys sorted at every depth (serde_json's map orders them), so the
    /// bytes do not depend on the order fields are declared in.
    #[must_use]
    pub fn to_body(&self) -> String {
        serde_json::to_value(self)
            .map(|value| value.to_string())
            .unwrap_or_default()
    }
}

/// `checkin.created`: the check-in as `GET /coaching/checkins` shows it when it is new
/// (the view adds the response fields, which a new check-in does not have yet).
#[derive(Debug, Serialize)]
pub struct CheckInData<'a> {
    pub id: CheckInId,
    pub message: &'a str,
    pub quoted_goals: &'a [String],
    pub observation: Option<&'a str>,
    pub origin: &'static str,
    /// RFC 3339.
    pub created_at: String,
}

impl<'a> From<&'a CheckIn> for CheckInData<'a> {
    fn from(checkin: &'a CheckIn) -> Self {
        Self {
            id: checkin.id,
            message: &checkin.message,
            quoted_goals: &checkin.quoted_goals,
            observation: checkin.observation.as_deref(),
            origin: checkin.origin.key(),
            created_at: rfc3339(checkin.created_at),
        }
    }
}

/// `profile.affirmed` and `profile.revised`: the profile as it stands after the change, its
/// fields, sources, lock and version.
#[derive(Debug, Serialize)]
pub struct ProfileData<'a> {
    #[serde(flatten)]
    pub snapshot: Snapshot,
    pub profile_id: ProfileId,
    pub version: i64,
    pub locked: bool,
    /// RFC 3339; null while the profile is not affirmed.
    pub affirmed_at: Option<String>,
    /// What recorded the revision (extraction, reflection or manual_edit); only on
    /// `profile.revised`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<&'a str>,
}

impl<'a> ProfileData<'a> {
    #[must_use]
    pub fn new(profile: &Profile, origin: Option<&'a str>) -> Self {
        Self {
            snapshot: profile.snapshot(),
            profile_id: profile.id,
            version: profile.version,
            locked: profile.locked,
            affirmed_at: profile.affirmed_at.map(rfc3339),
            origin,
        }
    }
}

/// `ping`: no data (`{}`).
#[derive(Debug, Serialize)]
pub struct PingData {}

/// RFC 3339, as every time in a payload is written.
pub(crate) fn rfc3339(at: OffsetDateTime) -> String {
    at.format(&Rfc3339).unwrap_or_default()
}
