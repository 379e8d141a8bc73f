//! `task_mapping` rows.

use diesel::prelude::*;
use domain::ids::{TaskMappingId, UserId};
use domain::integration::{TaskMapping, TaskMappingInput};
use time::{OffsetDateTime, PrimitiveDateTime};

use crate::convert::{from_db, invalid, parse, to_db};
use crate::schema::task_mapping;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = task_mapping)]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct TaskMappingRow {
    pub id: String,
    pub user_id: String,
    pub external_task_id: String,
    pub task_label: Option<String>,
    pub foundation: String,
    pub minutes: i32,
    pub occurred_at: PrimitiveDateTime,
    pub created_at: PrimitiveDateTime,
    pub updated_at: PrimitiveDateTime,
}

impl TaskMappingRow {
    /// A row for a fresh insert; an upsert that finds the external id keeps the stored id and
    /// `created_at`.
    pub(crate) fn new(user: UserId, input: &TaskMappingInput, now: OffsetDateTime) -> Self {
        let now = to_db(now);
        Self {
            id: TaskMappingId::new().to_string(),
            user_id: user.to_string(),
            external_task_id: input.external_task_id.as_str().to_owned(),
            task_label: input.task_label.as_ref().map(|l| l.as_str().to_owned()),
            foundation: input.foundation.key().to_owned(),
            minutes: i32::from(input.minutes.get()),
            occurred_at: to_db(input.occurred_at),
            created_at: now,
            updated_at: now,
        }
    }
}

impl TryFrom<TaskMappingRow> for TaskMapping {
    type Error = anyhow::Error;

    fn try_from(row: TaskMappingRow) -> Result<Self, Self::Error> {
        Ok(Self {
            id: parse(&row.id, "task_mapping.id")?,
            user_id: parse(&row.user_id, "task_mapping.user_id")?,
            external_task_id: row.external_task_id,
            task_label: row.task_label,
            foundation: parse(&row.foundation, "task_mapping.foundation")?,
            minutes: u16::try_from(row.minutes).map_err(|_| invalid("task_mapping.minutes"))?,
            occurred_at: from_db(row.occurred_at),
            created_at: from_db(row.created_at),
            updated_at: from_db(row.updated_at),
        })
    }
}
