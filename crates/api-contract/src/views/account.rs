//! The account responses: the person, their sessions and API keys, their counts, and which ways
//! to sign in the service offers.

use domain::account::{ApiKey, KeyScope, Session, Source, User, UserStats};
use domain::ids::{ApiKeyId, SessionId, UserId};
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::count::count;
use super::device::device_name;
use super::enum_schemas;

/// A person, as `GET /api/me` and sign-in answer with it.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Me)]
pub struct UserView {
    #[schema(value_type = uuid::Uuid)]
    id: UserId,
    email: String,
    name: Option<String>,
    is_admin: bool,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    last_login_at: Option<OffsetDateTime>,
}

impl UserView {
    /// `is_admin` is the caller's, which the user record alone does not say.
    #[must_use]
    pub fn new(u: &User, is_admin: bool) -> Self {
        Self {
            id: u.id,
            email: u.email.as_str().to_owned(),
            name: u.name.clone(),
            is_admin,
            created_at: u.created_at,
            last_login_at: u.last_login_at,
        }
    }
}

/// One of the caller's sessions.
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionView {
    #[schema(value_type = uuid::Uuid)]
    id: SessionId,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    last_used_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    expires_at: OffsetDateTime,
    user_agent: Option<String>,
    /// The browser and its system in words ("Firefox on Linux"), read from `user_agent`; `null`
    /// when there is none or it names no browser the parser knows.
    device: Option<String>,
    ip: Option<String>,
    /// The session this request was made with.
    current: bool,
    #[serde(with = "time::serde::rfc3339::option")]
    revoked_at: Option<OffsetDateTime>,
}

impl SessionView {
    /// `current`: whether the request at hand was made with this session.
    #[must_use]
    pub fn new(s: &Session, current: bool) -> Self {
        Self {
            id: s.id,
            created_at: s.created_at,
            last_used_at: s.last_used_at,
            expires_at: s.expires_at,
            user_agent: s.user_agent.clone(),
            device: s.user_agent.as_deref().and_then(device_name),
            ip: s.ip.clone(),
            current,
            revoked_at: s.revoked_at,
        }
    }
}

/// A personal API key as listed: never its secret or hash.
#[derive(Debug, Serialize, ToSchema)]
pub struct ApiKeyView {
    #[schema(value_type = uuid::Uuid)]
    id: ApiKeyId,
    name: String,
    prefix: String,
    /// What the key may be used for.
    #[schema(value_type = Vec<enum_schemas::KeyScope>)]
    scopes: Vec<&'static str>,
    /// When it stops working (`null`: when revoked).
    #[serde(with = "time::serde::rfc3339::option")]
    expires_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    last_used_at: Option<OffsetDateTime>,
}

fn scope_keys(k: &ApiKey) -> Vec<&'static str> {
    k.scopes.iter().map(KeyScope::key).collect()
}

impl From<&ApiKey> for ApiKeyView {
    fn from(k: &ApiKey) -> Self {
        Self {
            id: k.id,
            name: k.name.clone(),
            prefix: k.prefix.clone(),
            scopes: scope_keys(k),
            expires_at: k.expires_at,
            created_at: k.created_at,
            last_used_at: k.last_used_at,
        }
    }
}

/// A new key: `key` is shown this once and stored only as a hash.
#[derive(Debug, Serialize, ToSchema)]
pub struct ApiKeyCreated {
    #[schema(value_type = uuid::Uuid)]
    id: ApiKeyId,
    name: String,
    key: String,
    prefix: String,
    #[schema(value_type = Vec<enum_schemas::KeyScope>)]
    scopes: Vec<&'static str>,
    #[serde(with = "time::serde::rfc3339::option")]
    expires_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
}

impl ApiKeyCreated {
    /// `key` is the secret itself, which the stored record no longer holds.
    #[must_use]
    pub fn new(stored: &ApiKey, key: &str) -> Self {
        Self {
            id: stored.id,
            name: stored.name.clone(),
            key: key.to_owned(),
            prefix: stored.prefix.clone(),
            scopes: scope_keys(stored),
            expires_at: stored.expires_at,
            created_at: stored.created_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct BySource {
    web: u64,
    api: u64,
    mcp: u64,
}

/// Counts of the caller's requests and records (`GET /api/me/stats`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Stats)]
pub struct StatsView {
    total_requests: u64,
    requests_last_30_days: u64,
    by_source: BySource,
    task_mappings: u64,
    checkins: u64,
    reflection_turns: u64,
    #[serde(with = "time::serde::rfc3339::option")]
    first_activity_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    last_activity_at: Option<OffsetDateTime>,
}

impl From<&UserStats> for StatsView {
    fn from(s: &UserStats) -> Self {
        let of = |source| count(s.by_source.get(&source).copied().unwrap_or(0));
        Self {
            total_requests: count(s.total_requests),
            requests_last_30_days: count(s.requests_since),
            by_source: BySource {
                web: of(Source::Web),
                api: of(Source::Api),
                mcp: of(Source::Mcp),
            },
            task_mappings: count(s.task_mappings),
            checkins: count(s.checkins),
            reflection_turns: count(s.reflection_turns),
            first_activity_at: s.first_activity_at,
            last_activity_at: s.last_activity_at,
        }
    }
}

/// Which ways to sign in the service offers (`GET /api/auth/config`).
#[derive(Debug, Serialize, ToSchema)]
pub struct AuthConfig {
    /// `GET /api/auth/login` leads to an identity provider.
    pub sign_in: bool,
    /// `POST /api/auth/dev-login` is on (dev mode, loopback only).
    pub dev_login: bool,
}
