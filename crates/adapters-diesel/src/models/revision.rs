//! `profile_revision` rows; the snapshot is stored as JSON text.

use diesel::prelude::*;
use domain::profile::{NewRevision, Revision, Snapshot};
use domain::text::Note;
use time::PrimitiveDateTime;

use crate::convert::{from_db, invalid, parse, to_db};
use crate::schema::profile_revision;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = profile_revision)]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct RevisionRow {
    pub id: String,
    pub profile_id: String,
    pub number: i32,
    pub origin: String,
    pub snapshot: String,
    pub note: Option<String>,
    pub created_at: PrimitiveDateTime,
}

impl RevisionRow {
    pub(crate) fn new(revision: &NewRevision, number: i32) -> anyhow::Result<Self> {
        Ok(Self {
            id: revision.id.to_string(),
            profile_id: revision.profile_id.to_string(),
            number,
            origin: revision.origin.key().to_owned(),
            snapshot: serde_json::to_string(&revision.snapshot)?,
            note: revision.note.as_ref().map(|n| n.as_str().to_owned()),
            created_at: to_db(revision.created_at),
        })
    }
}

impl TryFrom<RevisionRow> for Revision {
    type Error = anyhow::Error;

    fn try_from(row: RevisionRow) -> Result<Self, Self::Error> {
        let snapshot: Snapshot = serde_json::from_str(&row.snapshot)
            .map_err(|_| invalid("profile_revision.snapshot"))?;
        Ok(Self {
            id: parse(&row.id, "profile_revision.id")?,
            profile_id: parse(&row.profile_id, "profile_revision.profile_id")?,
            number: u32::try_from(row.number).map_err(|_| invalid("profile_revision.number"))?,
            origin: parse(&row.origin, "profile_revision.origin")?,
            snapshot,
            note: row
                .note
                .map(|n| Note::new(n).map_err(|_| invalid("profile_revision.note")))
                .transpose()?,
            created_at: from_db(row.created_at),
        })
    }
}
