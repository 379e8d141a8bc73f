//! The activity log: one entry per request, kept `ACTIVITY_RETENTION_DAYS` (90 by default).

use std::collections::BTreeMap;

use time::{Date, OffsetDateTime};

use crate::ids::{ActivityId, UserId};
use crate::pagination::{Cursor, PageLimit};

/// How a request was authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Source {
    /// Session cookie (the browser).
    Web,
    /// Bearer JWT.
    Api,
    /// Any API key (assistants, trackers, the MCP server).
    Mcp,
}

impl Source {
    pub const ALL: [Self; 3] = [Self::Web, Self::Api, Self::Mcp];

    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            Self::Web => "web",
            Self::Api => "api",
            Self::Mcp => "mcp",
        }
    }

    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.key() == s)
    }
}

/// One logged request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActivityEntry {
    pub id: ActivityId,
    /// `None` for anonymous requests (sign-in, health checks).
    pub user_id: Option<UserId>,
    pub at: OffsetDateTime,
    /// A stable name for what was done, e.g. `profile.edit`.
    pub action: String,
    pub method: String,
    pub path: String,
    pub status: u16,
    pub source: Option<Source>,
    pub duration_ms: i64,
    pub request_id: String,
    pub ip: Option<String>,
    pub user_agent: Option<String>,
}

/// Which entries to list (newest first).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ActivityQuery {
    /// `None` lists everyone's (admin only).
    pub user_id: Option<UserId>,
    pub limit: PageLimit,
    pub before: Option<Cursor>,
}

/// Counts over a span of days.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ActivitySummary {
    pub by_action: BTreeMap<String, i64>,
    pub by_source: BTreeMap<String, i64>,
    pub by_day: Vec<(Date, i64)>,
}
