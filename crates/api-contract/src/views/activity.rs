//! The activity-log responses: entries (a page) and the summary by action, source and day.

use std::collections::BTreeMap;

use domain::account::{ActivityEntry, ActivitySummary};
use domain::ids::{ActivityId, UserId};
use domain::pagination::Page;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::count::count;
use super::enum_schemas;
use super::page::next_cursor;

/// One logged request.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ActivityEntry)]
pub struct ActivityEntryView {
    #[schema(value_type = uuid::Uuid)]
    id: ActivityId,
    #[schema(value_type = Option<uuid::Uuid>)]
    user_id: Option<UserId>,
    #[serde(with = "time::serde::rfc3339")]
    at: OffsetDateTime,
    action: String,
    method: String,
    path: String,
    status: u16,
    #[schema(value_type = Option<enum_schemas::ActivitySource>)]
    source: Option<&'static str>,
    duration_ms: u64,
    request_id: String,
    /// The client's address (the peer's, or a trusted proxy's last `X-Forwarded-For` entry).
    ip: Option<String>,
    /// The `User-Agent` header, cut to 500 characters.
    user_agent: Option<String>,
}

impl From<&ActivityEntry> for ActivityEntryView {
    fn from(a: &ActivityEntry) -> Self {
        Self {
            id: a.id,
            user_id: a.user_id,
            at: a.at,
            action: a.action.clone(),
            method: a.method.clone(),
            path: a.path.clone(),
            status: a.status,
            source: a.source.map(|s| s.key()),
            duration_ms: count(a.duration_ms),
            request_id: a.request_id.clone(),
            ip: a.ip.clone(),
            user_agent: a.user_agent.clone(),
        }
    }
}

/// A page of activity, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct ActivityPage {
    items: Vec<ActivityEntryView>,
    next_cursor: Option<String>,
}

impl From<&Page<ActivityEntry>> for ActivityPage {
    fn from(page: &Page<ActivityEntry>) -> Self {
        Self {
            items: page.items.iter().map(ActivityEntryView::from).collect(),
            next_cursor: next_cursor(page),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DayCount {
    #[schema(format = Date)]
    date: String,
    count: u64,
}

/// The caller's activity counted (`GET /api/activity/summary`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ActivitySummary)]
pub struct ActivitySummaryView {
    #[schema(minimum = 1, maximum = 365)]
    days: u16,
    /// Requests per action name.
    #[schema(value_type = Object)]
    by_action: BTreeMap<String, i64>,
    /// Requests per source.
    #[schema(value_type = Object)]
    by_source: BTreeMap<String, i64>,
    by_day: Vec<DayCount>,
}

impl ActivitySummaryView {
    /// `days`: the window the summary was counted over.
    #[must_use]
    pub fn new(days: u16, s: &ActivitySummary) -> Self {
        Self {
            days,
            by_action: s.by_action.clone(),
            by_source: s.by_source.clone(),
            by_day: s
                .by_day
                .iter()
                .map(|(date, n)| DayCount {
                    date: date.to_string(),
                    count: count(*n),
                })
                .collect(),
        }
    }
}
