//! The integration responses: the six foundations, task mappings (one, a page, a batch's
//! report) and the work-pattern read-back (the rules' are in `mapping_rules`).

use domain::foundation::Foundation;
use domain::ids::{TaskMappingId, UserId};
use domain::integration::{
    BatchOutcome, FoundationMinutes, TaskMapping, WeeklyPattern, WorkPattern,
};
use domain::pagination::Page;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::count::count;
use super::enum_schemas;
use super::page::next_cursor;

/// One of the six foundations (`GET /integration/foundations`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Foundation)]
pub struct FoundationView {
    #[schema(value_type = enum_schemas::FoundationKey)]
    key: &'static str,
    title: &'static str,
    description: &'static str,
}

impl From<Foundation> for FoundationView {
    fn from(f: Foundation) -> Self {
        Self {
            key: f.key(),
            title: f.title(),
            description: f.description(),
        }
    }
}

/// One time entry.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = TaskMapping)]
pub struct TaskMappingView {
    #[schema(value_type = uuid::Uuid)]
    id: TaskMappingId,
    #[schema(value_type = uuid::Uuid)]
    user_id: UserId,
    external_task_id: String,
    task_label: Option<String>,
    /// `null` while no rule matches (unmapped).
    #[schema(value_type = Option<enum_schemas::FoundationKey>)]
    foundation: Option<&'static str>,
    tags: Vec<String>,
    /// Where the foundation came from; `null` exactly when it is unmapped.
    #[schema(value_type = Option<enum_schemas::MappedBy>)]
    mapped_by: Option<&'static str>,
    #[schema(minimum = 0, maximum = 1440)]
    minutes: u16,
    #[serde(with = "time::serde::rfc3339")]
    occurred_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    updated_at: OffsetDateTime,
}

impl From<&TaskMapping> for TaskMappingView {
    fn from(m: &TaskMapping) -> Self {
        Self {
            id: m.id,
            user_id: m.user_id,
            external_task_id: m.external_task_id.as_str().to_owned(),
            task_label: m.task_label.clone(),
            foundation: m.foundation.map(|f| f.key()),
            tags: m.tags.clone(),
            mapped_by: m.mapped_by.map(|by| by.key()),
            minutes: m.minutes,
            occurred_at: m.occurred_at,
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

/// A page of time entries, newest `occurred_at` first.
#[derive(Debug, Serialize, ToSchema)]
pub struct TaskMappingPage {
    items: Vec<TaskMappingView>,
    next_cursor: Option<String>,
}

impl From<&Page<TaskMapping>> for TaskMappingPage {
    fn from(page: &Page<TaskMapping>) -> Self {
        Self {
            items: page.items.iter().map(TaskMappingView::from).collect(),
            next_cursor: next_cursor(page),
        }
    }
}

/// How many entries a batch created and replaced.
#[derive(Debug, Serialize, ToSchema)]
pub struct BatchReport {
    created: u64,
    updated: u64,
}

impl From<BatchOutcome> for BatchReport {
    fn from(outcome: BatchOutcome) -> Self {
        Self {
            created: u64::try_from(outcome.created).unwrap_or(u64::MAX),
            updated: u64::try_from(outcome.updated).unwrap_or(u64::MAX),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct FoundationShare {
    #[schema(value_type = enum_schemas::FoundationKey)]
    foundation: &'static str,
    minutes: u64,
    #[schema(minimum = 0.0, maximum = 1.0)]
    share: f64,
    /// Share below 0.05.
    neglected: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DailyMinutes {
    /// A local calendar date of the person's time zone, `YYYY-MM-DD`.
    #[schema(format = Date)]
    date: String,
    /// Minutes per foundation key, all six.
    // A map keyed by foundation: the one truly dynamic shape here, serialized in contract order.
    #[schema(value_type = Object)]
    minutes: FoundationMinutes,
}

/// Where the logged time went (`GET /integration/work-patterns`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = WorkPattern)]
pub struct WorkPatternView {
    #[schema(minimum = 1, maximum = 365)]
    days: u16,
    #[serde(with = "time::serde::rfc3339")]
    from: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    to: OffsetDateTime,
    /// Mapped minutes; the shares are over these.
    total_minutes: u64,
    /// Minutes logged without a foundation.
    unmapped_minutes: u64,
    /// Mapped minutes over all minutes; 1.0 when nothing was logged.
    #[schema(minimum = 0.0, maximum = 1.0)]
    coverage: f64,
    /// All six, in order.
    foundations: Vec<FoundationShare>,
    #[schema(value_type = Vec<enum_schemas::FoundationKey>)]
    neglected: Vec<&'static str>,
    summary: String,
    /// One entry per local date (of `time_zone`) the window touches, oldest first (mapped
    /// minutes only).
    daily: Vec<DailyMinutes>,
    /// The IANA name of the person's time zone, whose calendar `daily` follows.
    time_zone: String,
    /// A re-classification after a rule change is under way: some entries may still carry
    /// the foundation of rules that have since changed.
    reclassifying: bool,
}

impl From<&WorkPattern> for WorkPatternView {
    fn from(p: &WorkPattern) -> Self {
        Self {
            days: p.window.days,
            from: p.window.from,
            to: p.window.to,
            total_minutes: count(p.total_minutes),
            unmapped_minutes: count(p.unmapped_minutes),
            coverage: p.coverage,
            foundations: p
                .foundations
                .iter()
                .map(|f| FoundationShare {
                    foundation: f.foundation.key(),
                    minutes: count(f.minutes),
                    share: f.share,
                    neglected: f.neglected,
                })
                .collect(),
            neglected: p.neglected.iter().map(|f| f.key()).collect(),
            summary: p.summary.clone(),
            daily: p
                .daily
                .iter()
                .map(|d| DailyMinutes {
                    date: d.date.to_string(),
                    minutes: d.minutes,
                })
                .collect(),
            reclassifying: p.reclassifying,
            time_zone: p.time_zone.clone(),
        }
    }
}

/// One local week (`GET /integration/work-patterns/weekly`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = WeekMinutes)]
pub struct WeekView {
    /// The week's Monday, a local date of the person's time zone, `YYYY-MM-DD`.
    #[schema(format = Date)]
    week_start: String,
    /// Mapped minutes per foundation key, all six.
    #[schema(value_type = Object)]
    minutes: FoundationMinutes,
    /// Minutes logged without a foundation.
    unmapped_minutes: u64,
    /// Mapped minutes (the sum of `minutes`).
    total_minutes: u64,
}

/// The last weeks, oldest first (`GET /integration/work-patterns/weekly`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = WeeklyWorkPattern)]
pub struct WeeklyView {
    /// The IANA name of the person's time zone, whose weeks these are.
    time_zone: String,
    /// Exactly the weeks asked for, ending with the current one; empty weeks included.
    weeks: Vec<WeekView>,
}

impl From<&WeeklyPattern> for WeeklyView {
    fn from(p: &WeeklyPattern) -> Self {
        Self {
            time_zone: p.time_zone.clone(),
            weeks: p
                .weeks
                .iter()
                .map(|w| WeekView {
                    week_start: w.date.to_string(),
                    minutes: w.minutes,
                    unmapped_minutes: count(w.unmapped),
                    total_minutes: count(w.minutes.total()),
                })
                .collect(),
        }
    }
}
