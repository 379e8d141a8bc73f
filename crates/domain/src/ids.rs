//! Typed identifiers: one newtype over a UUID (v7, time-ordered) per kind of record.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

macro_rules! id_type {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(Uuid);

        impl $name {
            /// A fresh, time-ordered id.
            #[must_use]
            pub fn new() -> Self {
                Self(Uuid::now_v7())
            }

            #[must_use]
            pub const fn from_uuid(uuid: Uuid) -> Self {
                Self(uuid)
            }

            #[must_use]
            pub const fn as_uuid(&self) -> Uuid {
                self.0
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl FromStr for $name {
            type Err = uuid::Error;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Uuid::parse_str(s).map(Self)
            }
        }
    )*};
}

id_type!(
    /// A person (or the synthetic operator user `api-key-admin`).
    UserId,
    /// A sign-in session; refresh tokens rotate within it.
    SessionId,
    /// One refresh token of a session.
    RefreshTokenId,
    /// A personal API key.
    ApiKeyId,
    /// A discovery conversation (the seven prompts).
    ConversationId,
    /// A discovery profile.
    ProfileId,
    /// One recorded revision of a profile.
    RevisionId,
    /// One turn of the reflection dialogue.
    ReflectionMessageId,
    /// A coaching check-in.
    CheckInId,
    /// A time entry mapped to a foundation.
    TaskMappingId,
    /// One activity-log row.
    ActivityId,
    /// One event of the outbox (`checkin.created`, ...): the `webhook-id` of every attempt.
    EventId,
    /// A person's webhook endpoint.
    WebhookId,
    /// The delivery of one event over one channel (a webhook or e-mail).
    DeliveryId,
    /// A person's mapping rule (a label, tag or id pattern to a foundation).
    RuleId,
);
