//! Integration with time trackers: task mappings (a logged entry tied to a foundation, or not
//! yet), the person's mapping rules, the unmapped view, the work-pattern rollup and the weekly
//! series.

pub mod folding;
pub mod matching;
pub mod reclassification;
pub mod rules;
pub mod sweep;
pub mod task_mapping;
pub mod unmapped;
pub mod weekly;
pub mod work_pattern;

pub use folding::fold;
pub use matching::{MatchKeys, RuleSet, TAG_SEPARATOR, tag_needle};
pub use reclassification::{Reclassification, ReclassifyStep, Scope};
pub use rules::{
    EntryFacts, MAX_RULES_PER_USER, MappedBy, MatchKind, NewRule, Pattern, Rule, RuleChangeError,
    RuleMatch, Tags, TagsError, first_match, placed_at,
};
pub use sweep::{InvalidSweep, MAX_SWEEP_DAYS, Sweep, SweepPrefix};
pub use task_mapping::{
    BatchOutcome, ExternalTaskId, FoundationFilter, MAX_BATCH, Minutes, TaskLabel, TaskMapping,
    TaskMappingInput, TaskMappingQuery, UpsertOutcome,
};
pub use unmapped::{UnmappedGroup, UnmappedQuery};
pub use weekly::{InvalidWeeks, WeeklyPattern, Weeks, monday_of, weekly};
pub use work_pattern::{
    COVERAGE_NOTED_BELOW, DailyMinutes, FoundationMinutes, FoundationShare, InvalidDays,
    NEGLECT_BELOW, Window, WorkPattern, coverage, rollup,
};
