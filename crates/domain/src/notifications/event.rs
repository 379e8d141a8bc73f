//! The events of the outbox: what happened, to whom, and the payload every delivery of it sends
//! (`{"id", "type", "created_at", "data"}`), fixed when the event is written.

use time::OffsetDateTime;

use super::payload::{CheckInData, EventPayload, EventType, PingData, ProfileData, rfc3339};
use crate::coaching::CheckIn;
use crate::ids::{EventId, UserId};
use crate::profile::{NewRevision, Profile};

/// One event, its payload already composed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxEvent {
    pub id: EventId,
    pub user_id: UserId,
    pub event_type: EventType,
    pub created_at: OffsetDateTime,
    /// The whole body every delivery sends, byte for byte (signatures cover these bytes).
    pub payload: String,
}

impl OutboxEvent {
    fn new<D: serde::Serialize>(
        user_id: UserId,
        event_type: EventType,
        created_at: OffsetDateTime,
        data: D,
    ) -> Self {
        let id = EventId::new();
        let payload = EventPayload {
            id,
            event_type,
            created_at: rfc3339(created_at),
            data,
        };
        Self {
            id,
            user_id,
            event_type,
            created_at,
            payload: payload.to_body(),
        }
    }

    /// A new check-in: the check-in as `GET /coaching/checkins` shows it.
    #[must_use]
    pub fn checkin_created(checkin: &CheckIn) -> Self {
        Self::new(
            checkin.user_id,
            EventType::CheckinCreated,
            checkin.created_at,
            CheckInData::from(checkin),
        )
    }

    /// The person affirmed (locked) their profile.
    #[must_use]
    pub fn profile_affirmed(profile: &Profile, at: OffsetDateTime) -> Self {
        Self::new(
            profile.user_id,
            EventType::ProfileAffirmed,
            at,
            ProfileData::new(profile, None),
        )
    }

    /// A revision was recorded (`origin`: extraction, reflection or manual_edit).
    #[must_use]
    pub fn profile_revised(profile: &Profile, origin: &str, at: OffsetDateTime) -> Self {
        Self::new(
            profile.user_id,
            EventType::ProfileRevised,
            at,
            ProfileData::new(profile, Some(origin)),
        )
    }

    /// The test event of `POST /api/me/webhooks/{id}/test`.
    #[must_use]
    pub fn ping(user_id: UserId, at: OffsetDateTime) -> Self {
        Self::new(user_id, EventType::Ping, at, PingData {})
    }
}

/// The events of one profile change: `profile.revised` when it records a revision,
/// `profile.affirmed` when it locks a profile that was not locked.
#[must_use]
pub fn profile_events(
    was_locked: bool,
    profile: &Profile,
    revision: Option<&NewRevision>,
    at: OffsetDateTime,
) -> Vec<OutboxEvent> {
    let mut events = Vec::new();
    if let Some(revision) = revision {
        events.push(OutboxEvent::profile_revised(
            profile,
            revision.origin.key(),
            at,
        ));
    }
    if profile.locked && !was_locked {
        events.push(OutboxEvent::profile_affirmed(profile, at));
    }
    events
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::coaching::CheckInOrigin;
    use crate::ids::CheckInId;

    #[test]
    fn types_read_back_from_their_contract_names() {
        for t in EventType::ALL {
            assert_eq!(EventType::from_key(t.key()), Some(t));
            assert_eq!(serde_json::to_value(t).unwrap(), t.key());
        }
        assert_eq!(EventType::from_key("checkin.deleted"), None);
    }

    #[test]
    fn a_checkin_event_carries_the_checkin_with_the_goals_verbatim() {
        let at = time::macros::datetime!(2026-11-26 10:00 UTC);
        let checkin = CheckIn {
            id: CheckInId::new(),
            user_id: UserId::new(),
            message: "Does this still hold?".to_owned(),
            quoted_goals: vec!["Ride to work <b>daily</b>".to_owned()],
            observation: None,
            origin: CheckInOrigin::Batch,
            created_at: at,
            response: None,
        };
        let event = OutboxEvent::checkin_created(&checkin);
        let payload: Value = serde_json::from_str(&event.payload).unwrap();
        assert_eq!(payload["id"], event.id.to_string());
        assert_eq!(payload["type"], "checkin.created");
        assert_eq!(payload["created_at"], "2026-11-26T10:00:00Z");
        assert_eq!(payload["data"]["id"], checkin.id.to_string());
        assert_eq!(
            payload["data"]["quoted_goals"][0],
            "Ride to work <b>daily</b>"
        );
        assert_eq!(payload["data"]["origin"], "batch");
        assert_eq!(event.user_id, checkin.user_id);
    }

    #[test]
    fn a_ping_has_empty_data() {
        let at = time::macros::datetime!(2026-11-26 10:00 UTC);
        let event = OutboxEvent::ping(UserId::new(), at);
        let payload: Value = serde_json::from_str(&event.payload).unwrap();
        assert_eq!(payload["type"], "ping");
        assert_eq!(payload["data"], Value::Object(serde_json::Map::new()));
    }
}
