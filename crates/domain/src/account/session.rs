//! Sign-in sessions and their refresh tokens (stored only as SHA-256 hashes, rotated on use).

use std::fmt;

use time::OffsetDateTime;

use crate::ids::{RefreshTokenId, SessionId, UserId};

/// The hex SHA-256 of a secret (refresh token or API key). Hashing happens at the edge that
/// receives the secret; the domain and storage never see the secret itself.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct TokenHash(String);

/// Not 64 lower-case hex digits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a SHA-256 hex digest")]
pub struct InvalidTokenHash;

impl TokenHash {
    /// # Errors
    /// [`InvalidTokenHash`] unless `hex` is 64 lower-case hex digits.
    pub fn from_hex(hex: &str) -> Result<Self, InvalidTokenHash> {
        let ok = hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if ok {
            Ok(Self(hex.to_owned()))
        } else {
            Err(InvalidTokenHash)
        }
    }

    #[must_use]
    pub fn as_hex(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for TokenHash {
    /// Even a hash is kept out of logs beyond a short prefix.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TokenHash({}…)", &self.0[..8.min(self.0.len())])
    }
}

/// A sign-in session (one browser or device).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub id: SessionId,
    pub user_id: UserId,
    pub created_at: OffsetDateTime,
    pub last_used_at: OffsetDateTime,
    pub expires_at: OffsetDateTime,
    pub user_agent: Option<String>,
    pub ip: Option<String>,
    pub revoked_at: Option<OffsetDateTime>,
}

impl Session {
    #[must_use]
    pub fn is_active(&self, now: OffsetDateTime) -> bool {
        self.revoked_at.is_none() && self.expires_at > now
    }
}

/// One refresh token of a session. Using it revokes it; using a revoked one revokes the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefreshToken {
    pub id: RefreshTokenId,
    pub session_id: SessionId,
    pub token_hash: TokenHash,
    pub created_at: OffsetDateTime,
    pub expires_at: OffsetDateTime,
    pub revoked_at: Option<OffsetDateTime>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_sha256_hex_digests_are_hashes_and_debug_hides_them() {
        let hex = "a".repeat(64);
        let h = TokenHash::from_hex(&hex).unwrap();
        assert_eq!(format!("{h:?}"), "TokenHash(aaaaaaaa…)");
        assert!(TokenHash::from_hex(&"A".repeat(64)).is_err());
        assert!(TokenHash::from_hex("abc").is_err());
    }
}
