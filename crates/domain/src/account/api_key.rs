//! Personal API keys: shown once on creation, stored only as a SHA-256 hash with a short prefix.

use time::OffsetDateTime;

use super::TokenHash;
use crate::ids::{ApiKeyId, UserId};
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
    pub created_at: OffsetDateTime,
    pub last_used_at: Option<OffsetDateTime>,
}
