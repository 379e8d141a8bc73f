//! Accounts: users and their time zone, sign-in sessions with rotating refresh tokens, personal API keys and the
//! activity log. Secrets appear here only as SHA-256 hashes.

pub mod activity;
pub mod api_key;
pub mod export;
pub mod redirect;
pub mod scope;
pub mod session;
pub mod time_zone;
pub mod user;

pub use activity::{ActivityEntry, ActivityQuery, ActivitySummary, Source};
pub use api_key::{ApiKey, KeyLifetime};
pub use export::{AccountData, UserStats};
pub use scope::{KeyScope, KeyScopes};
pub use session::{RefreshToken, Session, TokenHash};
pub use time_zone::{OffsetSpan, TimeZone, UnknownTimeZone};
pub use user::{Email, LoginIdentity, User};
