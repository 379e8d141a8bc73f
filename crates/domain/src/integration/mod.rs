//! Integration with time trackers: task mappings (a logged entry tied to a foundation), the
//! person's mapping rules, and the work-pattern rollup read back from them.

pub mod rules;
pub mod task_mapping;
pub mod work_pattern;

pub use task_mapping::{
    ExternalTaskId, MAX_BATCH, Minutes, TaskLabel, TaskMapping, TaskMappingInput, TaskMappingQuery,
    UpsertOutcome,
};
pub use work_pattern::{
    DailyMinutes, FoundationMinutes, FoundationShare, InvalidDays, NEGLECT_BELOW, Window,
    WorkPattern, rollup,
};
