//! Personal API keys: shown once on creation, stored only as a SHA-256 hash with a short prefix,
//! good only for their scopes and, when their owner chose so, only until they expire.

use time::{Duration, OffsetDateTime};

use super::TokenHash;
use super::scope::KeyScopes;
use crate::ids::{ApiKeyId, UserId};
use crate::number::WholeNumber;
use crate::text::Text;

/// A key's name: 1-100 characters.
pub type ApiKeyName = Text<100>;

/// A personal API key as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKey {
    pub id: ApiKeyId,
    pub user_id: UserId,
    pub name: String,
    /// The first characters of the key, shown so a person can tell keys apart.
    pub prefix: String,
    pub key_hash: TokenHash,
    pub scopes: KeyScopes,
    /// `None`: the key works until it is revoked.
    pub expires_at: Option<OffsetDateTime>,
    pub created_at: OffsetDateTime,
    pub last_used_at: Option<OffsetDateTime>,
}

impl ApiKey {
    /// Whether the key may still be used at `now`.
    #[must_use]
    pub fn is_live(&self, now: OffsetDateTime) -> bool {
        self.expires_at.is_none_or(|at| now < at)
    }
}

/// How long a new key lives: 1 to 365 days.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyLifetime(u16);

/// Read as a [`WholeNumber`] of days (`30.0` is 30).
impl<'de> serde::Deserialize<'de> for KeyLifetime {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let WholeNumber(days) = serde::Deserialize::deserialize(deserializer)?;
        Self::days(days).map_err(serde::de::Error::custom)
    }
}

/// A lifetime outside 1-365 days.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("expires_in_days must be between 1 and 365 (got {0})")]
pub struct InvalidLifetime(pub i64);

impl KeyLifetime {
    pub const MIN_DAYS: u16 = 1;
    pub const MAX_DAYS: u16 = 365;

    /// # Errors
    /// [`InvalidLifetime`] outside 1-365.
    pub fn days(days: i64) -> Result<Self, InvalidLifetime> {
        u16::try_from(days)
            .ok()
            .filter(|d| (Self::MIN_DAYS..=Self::MAX_DAYS).contains(d))
            .map(Self)
            .ok_or(InvalidLifetime(days))
    }

    /// When a key made at `now` expires.
    #[must_use]
    pub fn expiry(self, now: OffsetDateTime) -> OffsetDateTime {
        now + Duration::days(i64::from(self.0))
    }
}
