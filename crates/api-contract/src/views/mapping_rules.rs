//! The mapping-rule responses: a rule, the re-classification's progress, and the unmapped
//! view's label-and-tags groups.

use std::collections::BTreeMap;

use domain::ids::RuleId;
use domain::integration::{Reclassification, Rule, UnmappedGroup};
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::count::count;
use super::enum_schemas;

/// A person's rule (`/integration/rules`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = MappingRule)]
pub struct RuleView {
    #[schema(value_type = uuid::Uuid)]
    id: RuleId,
    /// 1 is first; the first rule that matches decides.
    #[schema(minimum = 1)]
    position: u32,
    /// Exactly one key.
    #[serde(rename = "match")]
    #[schema(schema_with = crate::requests::mapping_rules::rule_match)]
    matcher: BTreeMap<&'static str, String>,
    #[schema(value_type = enum_schemas::FoundationKey)]
    foundation: &'static str,
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
}

impl From<&Rule> for RuleView {
    fn from(rule: &Rule) -> Self {
        Self {
            id: rule.id,
            position: rule.position,
            matcher: BTreeMap::from([(
                rule.matcher.kind().key(),
                rule.matcher.pattern().to_owned(),
            )]),
            foundation: rule.foundation.key(),
            created_at: rule.created_at,
        }
    }
}

/// Unmapped entries sharing a label and tags (`GET /integration/unmapped`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = UnmappedGroup)]
pub struct UnmappedGroupView {
    task_label: Option<String>,
    tags: Vec<String>,
    minutes: u64,
    /// How many entries.
    entries: u64,
    #[serde(with = "time::serde::rfc3339")]
    last_occurred_at: OffsetDateTime,
}

impl From<&UnmappedGroup> for UnmappedGroupView {
    fn from(group: &UnmappedGroup) -> Self {
        Self {
            task_label: group.task_label.clone(),
            tags: group.tags.clone(),
            minutes: count(group.minutes),
            entries: count(group.entries),
            last_occurred_at: group.last_occurred_at,
        }
    }
}

/// How far the re-classification of the caller's entries is (`GET /integration/reclassification`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Reclassification)]
pub struct ReclassificationView {
    state: ReclassificationState,
    /// Entries decided again so far.
    done: u64,
    /// Entries the running job covers: 0 until it has counted them, and when idle.
    total: u64,
}

/// `running` from a rule change until every entry it can affect has been decided again.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReclassificationState {
    Idle,
    Running,
}

impl From<Reclassification> for ReclassificationView {
    fn from(r: Reclassification) -> Self {
        Self {
            state: if r.running {
                ReclassificationState::Running
            } else {
                ReclassificationState::Idle
            },
            done: r.done,
            total: r.total,
        }
    }
}
