//! `task_mapping` rows.

use diesel::prelude::*;
use domain::foundation::Foundation;
use domain::ids::TaskMappingId;
use domain::integration::{MappedBy, RuleSet, TaskLabel, TaskMapping, TaskMappingInput};
use time::PrimitiveDateTime;

use crate::convert::{from_db, invalid, parse, to_db};
use crate::schema::task_mapping;

#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = task_mapping)]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct TaskMappingRow {
    pub id: String,
    pub user_id: String,
    pub external_task_id: String,
    pub task_label: Option<String>,
    pub foundation: Option<String>,
    pub minutes: i32,
    pub occurred_at: PrimitiveDateTime,
    pub created_at: PrimitiveDateTime,
    pub updated_at: PrimitiveDateTime,
    /// A JSON array of strings, see [`tags_json`].
    pub tags: String,
    pub mapped_by: Option<String>,
}

/// A row about to be written, borrowing from the request: a batch of 1,000 builds one per entry,
/// and only its fresh id is allocated.
#[derive(Debug, Insertable)]
#[diesel(table_name = task_mapping)]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct NewTaskMapping<'a> {
    pub id: String,
    pub user_id: &'a str,
    pub external_task_id: &'a str,
    pub task_label: Option<&'a str>,
    pub foundation: Option<&'static str>,
    pub minutes: i32,
    pub occurred_at: PrimitiveDateTime,
    pub created_at: PrimitiveDateTime,
    pub updated_at: PrimitiveDateTime,
    /// A JSON array of strings, see [`tags_json`].
    pub tags: String,
    pub mapped_by: Option<&'static str>,
    /// What the rules compare, folded once here (`domain::integration::MatchKeys`).
    pub match_label: Option<String>,
    pub match_tags: Option<String>,
    pub match_id: Option<String>,
}

impl<'a> NewTaskMapping<'a> {
    /// A row for a fresh insert, its foundation decided by `rules` when the tracker sent none
    /// ([`TaskMappingInput::mapping`]); an upsert that finds the external id keeps the stored id
    /// and `created_at`.
    pub(crate) fn new(
        user: &'a str,
        input: &'a TaskMappingInput,
        rules: &RuleSet,
        now: PrimitiveDateTime,
    ) -> Self {
        let keys = input.match_keys();
        let (foundation, mapped_by) = mapping_columns(input.mapping(rules, &keys));
        Self {
            id: TaskMappingId::new().to_string(),
            user_id: user,
            external_task_id: input.external_task_id.as_str(),
            task_label: input.task_label.as_ref().map(TaskLabel::as_str),
            foundation,
            minutes: i32::from(input.minutes.get()),
            occurred_at: to_db(input.occurred_at),
            created_at: now,
            updated_at: now,
            tags: tags_json(input.tags.as_slice()),
            mapped_by,
            match_label: keys.label,
            match_tags: Some(keys.tags),
            match_id: keys.id,
        }
    }

    /// The row as it reads back once inserted.
    pub(crate) fn stored(&self) -> TaskMappingRow {
        TaskMappingRow {
            id: self.id.clone(),
            user_id: self.user_id.to_owned(),
            external_task_id: self.external_task_id.to_owned(),
            task_label: self.task_label.map(str::to_owned),
            foundation: self.foundation.map(str::to_owned),
            minutes: self.minutes,
            occurred_at: self.occurred_at,
            created_at: self.created_at,
            updated_at: self.updated_at,
            tags: self.tags.clone(),
            mapped_by: self.mapped_by.map(str::to_owned),
        }
    }
}

/// The `foundation` and `mapped_by` columns of a decided mapping: both set, or both NULL.
pub(crate) fn mapping_columns(
    mapping: Option<(Foundation, MappedBy)>,
) -> (Option<&'static str>, Option<&'static str>) {
    mapping.map_or((None, None), |(foundation, by)| {
        (Some(foundation.key()), Some(by.key()))
    })
}

/// Tags as stored: one canonical JSON text, so equal lists are equal text and can be grouped.
pub(crate) fn tags_json(tags: &[String]) -> String {
    serde_json::to_string(tags).unwrap_or_else(|_| "[]".to_owned())
}

/// The stored tags back as a list.
pub(crate) fn tags_from_json(raw: &str) -> anyhow::Result<Vec<String>> {
    serde_json::from_str(raw).map_err(|_| invalid("task_mapping.tags"))
}

impl TryFrom<TaskMappingRow> for TaskMapping {
    type Error = anyhow::Error;

    fn try_from(row: TaskMappingRow) -> Result<Self, Self::Error> {
        let foundation = row
            .foundation
            .as_deref()
            .map(|f| parse(f, "task_mapping.foundation"))
            .transpose()?;
        let mapped_by = row
            .mapped_by
            .as_deref()
            .map(|m| MappedBy::from_key(m).ok_or_else(|| invalid("task_mapping.mapped_by")))
            .transpose()?;
        if foundation.is_some() != mapped_by.is_some() {
            return Err(invalid("task_mapping.mapped_by"));
        }
        Ok(Self {
            id: parse(&row.id, "task_mapping.id")?,
            user_id: parse(&row.user_id, "task_mapping.user_id")?,
            external_task_id: row.external_task_id,
            task_label: row.task_label,
            foundation,
            tags: tags_from_json(&row.tags)?,
            mapped_by,
            minutes: u16::try_from(row.minutes).map_err(|_| invalid("task_mapping.minutes"))?,
            occurred_at: from_db(row.occurred_at),
            created_at: from_db(row.created_at),
            updated_at: from_db(row.updated_at),
        })
    }
}
