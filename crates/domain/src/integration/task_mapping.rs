//! Task mappings: one external time entry, its foundation (or none yet), tags and minutes,
//! unique per `(user, external_task_id)` so trackers can send the same entry again safely.

use serde::de::Error as _;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::foundation::Foundation;
use crate::ids::{TaskMappingId, UserId};
use crate::integration::matching::{MatchKeys, RuleSet};
use crate::integration::rules::{EntryFacts, MappedBy, Tags};
use crate::number::WholeNumber;
use crate::pagination::{Cursor, PageLimit};
use crate::text::Text;

/// The tracker's own id of the entry: 1-200 characters.
pub type ExternalTaskId = Text<200>;
/// An optional label: at most 500 characters.
pub type TaskLabel = Text<500>;

/// The most items one batch may carry.
pub const MAX_BATCH: usize = 1_000;

/// What one batch did: how many of its items created an entry and how many updated one (an
/// external id repeated in the batch updates what its first occurrence created).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BatchOutcome {
    pub created: usize,
    pub updated: usize,
}

/// Minutes of one entry, 0 to 1,440 (one day).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Minutes(u16);

/// Minutes outside 0-1,440.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be between 0 and 1440")]
pub struct InvalidMinutes;

impl Minutes {
    pub const MAX: u16 = 1_440;

    /// # Errors
    /// [`InvalidMinutes`] outside 0-1,440.
    pub fn new(value: i64) -> Result<Self, InvalidMinutes> {
        u16::try_from(value)
            .ok()
            .filter(|m| *m <= Self::MAX)
            .map(Self)
            .ok_or(InvalidMinutes)
    }

    #[must_use]
    pub const fn get(self) -> u16 {
        self.0
    }
}

/// Read as a [`WholeNumber`]: `90.0` is 90 minutes; `90.5` is refused.
impl<'de> Deserialize<'de> for Minutes {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let WholeNumber(n) = WholeNumber::deserialize(deserializer)
            .map_err(|_| D::Error::custom("must be a whole number of minutes"))?;
        Minutes::new(n).map_err(D::Error::custom)
    }
}

/// What a tracker sends for one entry. Without a foundation, the person's rules decide it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskMappingInput {
    pub external_task_id: ExternalTaskId,
    pub task_label: Option<TaskLabel>,
    pub foundation: Option<Foundation>,
    pub tags: Tags,
    pub minutes: Minutes,
    pub occurred_at: OffsetDateTime,
}

/// A blank external id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("external_task_id must not be blank")]
pub struct BlankExternalId;

impl TaskMappingInput {
    /// # Errors
    /// [`BlankExternalId`] for an empty or whitespace-only external id.
    pub fn new(
        external_task_id: ExternalTaskId,
        task_label: Option<TaskLabel>,
        foundation: Option<Foundation>,
        tags: Tags,
        minutes: Minutes,
        occurred_at: OffsetDateTime,
    ) -> Result<Self, BlankExternalId> {
        if external_task_id.is_blank() {
            return Err(BlankExternalId);
        }
        Ok(Self {
            external_task_id,
            task_label,
            foundation,
            tags,
            minutes,
            occurred_at: crate::clock::truncate_to_micros(occurred_at),
        })
    }

    /// The entry's foundation and where it came from: the tracker's when it sent one, else the
    /// first matching rule's, else none (unmapped). `keys` are this entry's
    /// ([`TaskMappingInput::match_keys`]).
    #[must_use]
    pub fn mapping(&self, rules: &RuleSet, keys: &MatchKeys) -> Option<(Foundation, MappedBy)> {
        match self.foundation {
            Some(foundation) => Some((foundation, MappedBy::Client)),
            None => rules
                .decide(keys, self.external_task_id.as_str())
                .map(|f| (f, MappedBy::Rule)),
        }
    }

    /// What the rules compare of this entry, folded: computed once, when it is written.
    #[must_use]
    pub fn match_keys(&self) -> MatchKeys {
        MatchKeys::of(
            self.external_task_id.as_str(),
            self.task_label.as_ref().map(TaskLabel::as_str),
            self.tags.as_slice(),
        )
    }

    /// What rules look at in this entry.
    #[must_use]
    pub fn facts(&self) -> EntryFacts<'_> {
        EntryFacts {
            external_task_id: self.external_task_id.as_str(),
            task_label: self.task_label.as_ref().map(TaskLabel::as_str),
            tags: self.tags.as_slice(),
        }
    }
}

/// A stored task mapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskMapping {
    pub id: TaskMappingId,
    pub user_id: UserId,
    pub external_task_id: String,
    pub task_label: Option<String>,
    /// `None` while no rule matches (unmapped).
    pub foundation: Option<Foundation>,
    pub tags: Vec<String>,
    /// Where the foundation came from; `None` exactly when it is unmapped.
    pub mapped_by: Option<MappedBy>,
    pub minutes: u16,
    pub occurred_at: OffsetDateTime,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

/// Whether an upsert inserted a row or updated the existing one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpsertOutcome {
    Created,
    Updated,
}

/// The listing's foundation filter: one foundation, or the entries without one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FoundationFilter {
    Is(Foundation),
    Unmapped,
}

/// Filters and page of a task-mapping listing (newest `occurred_at` first).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TaskMappingQuery {
    /// Inclusive lower bound on `occurred_at`.
    pub from: Option<OffsetDateTime>,
    /// Exclusive upper bound on `occurred_at`.
    pub to: Option<OffsetDateTime>,
    pub foundation: Option<FoundationFilter>,
    pub limit: PageLimit,
    pub before: Option<Cursor>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn minutes_read_whole_numbers_however_json_writes_them() {
        let read = |json: &str| serde_json::from_str::<Minutes>(json).map(Minutes::get);
        assert_eq!(read("90").unwrap(), 90);
        assert_eq!(read("90.0").unwrap(), 90);
        assert_eq!(read("1440.0").unwrap(), 1_440);
        assert_eq!(read("0.0").unwrap(), 0);
        for refused in [
            "90.5", "-1", "1441", "1441.0", "-0.5", "1e300", "\"90\"", "null",
        ] {
            assert!(read(refused).is_err(), "{refused}");
        }
    }

    #[test]
    fn minutes_run_from_zero_to_a_full_day() {
        assert!(Minutes::new(0).is_ok());
        assert!(Minutes::new(1_440).is_ok());
        assert_eq!(Minutes::new(1_441), Err(InvalidMinutes));
        assert_eq!(Minutes::new(-1), Err(InvalidMinutes));
    }

    #[test]
    fn external_ids_must_hold_text_and_occurred_at_is_cut_to_microseconds() {
        let make = |id: &str| {
            TaskMappingInput::new(
                ExternalTaskId::new(id).unwrap(),
                None,
                Some(Foundation::Love),
                Tags::default(),
                Minutes::new(5).unwrap(),
                datetime!(2026-11-22 10:00:00.123_456_789 UTC),
            )
        };
        assert_eq!(make(" "), Err(BlankExternalId));
        assert_eq!(
            make("toggl-1").unwrap().occurred_at,
            datetime!(2026-11-22 10:00:00.123_456 UTC)
        );
        assert!(ExternalTaskId::new("x".repeat(201)).is_err());
    }
}
