//! `coaching_checkin` rows; the quoted goals are stored as a JSON array.

use diesel::prelude::*;
use domain::coaching::{CheckIn, CheckInOrigin, CheckInResponse};
use domain::text::Note;
use time::PrimitiveDateTime;

use crate::convert::{from_db, invalid, parse, to_db, to_db_opt};
use crate::schema::coaching_checkin;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = coaching_checkin)]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct CheckInRow {
    pub id: String,
    pub user_id: String,
    pub message: String,
    pub quoted_goals: String,
    pub observation: Option<String>,
    pub origin: String,
    pub created_at: PrimitiveDateTime,
    pub responded_at: Option<PrimitiveDateTime>,
    pub still_valid: Option<bool>,
    pub response_note: Option<String>,
}

impl CheckInRow {
    pub(crate) fn new(c: &CheckIn) -> anyhow::Result<Self> {
        let response = c.response.as_ref();
        Ok(Self {
            id: c.id.to_string(),
            user_id: c.user_id.to_string(),
            message: c.message.clone(),
            quoted_goals: serde_json::to_string(&c.quoted_goals)?,
            observation: c.observation.clone(),
            origin: c.origin.key().to_owned(),
            created_at: to_db(c.created_at),
            responded_at: to_db_opt(response.map(|r| r.responded_at)),
            still_valid: response.map(|r| r.still_valid),
            response_note: response
                .and_then(|r| r.note.as_ref())
                .map(|n| n.as_str().to_owned()),
        })
    }
}

impl TryFrom<CheckInRow> for CheckIn {
    type Error = anyhow::Error;

    fn try_from(row: CheckInRow) -> Result<Self, Self::Error> {
        let origin = [CheckInOrigin::Manual, CheckInOrigin::Batch]
            .into_iter()
            .find(|o| o.key() == row.origin)
            .ok_or_else(|| invalid("coaching_checkin.origin"))?;
        let response = match (row.responded_at, row.still_valid) {
            (Some(at), Some(still_valid)) => Some(CheckInResponse {
                responded_at: from_db(at),
                still_valid,
                note: row
                    .response_note
                    .map(|n| Note::new(n).map_err(|_| invalid("coaching_checkin.response_note")))
                    .transpose()?,
            }),
            (None, None) => None,
            _ => return Err(invalid("coaching_checkin response")),
        };
        Ok(Self {
            id: parse(&row.id, "coaching_checkin.id")?,
            user_id: parse(&row.user_id, "coaching_checkin.user_id")?,
            message: row.message,
            quoted_goals: serde_json::from_str(&row.quoted_goals)
                .map_err(|_| invalid("coaching_checkin.quoted_goals"))?,
            observation: row.observation,
            origin,
            created_at: from_db(row.created_at),
            response,
        })
    }
}
