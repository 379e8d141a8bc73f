//! `activity_log` rows.

use diesel::prelude::*;
use domain::account::{ActivityEntry, Source};
use time::PrimitiveDateTime;

use crate::convert::{from_db, invalid, parse, to_db};
use crate::schema::activity_log;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = activity_log)]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct ActivityRow {
    pub id: String,
    pub user_id: Option<String>,
    pub at: PrimitiveDateTime,
    pub action: String,
    pub method: String,
    pub path: String,
    pub status: i32,
    pub source: Option<String>,
    pub duration_ms: i64,
    pub request_id: String,
    pub ip: Option<String>,
    pub user_agent: Option<String>,
}

impl From<&ActivityEntry> for ActivityRow {
    fn from(e: &ActivityEntry) -> Self {
        Self {
            id: e.id.to_string(),
            user_id: e.user_id.map(|u| u.to_string()),
            at: to_db(e.at),
            action: e.action.clone(),
            method: e.method.clone(),
            path: e.path.clone(),
            status: i32::from(e.status),
            source: e.source.map(|s| s.key().to_owned()),
            duration_ms: e.duration_ms,
            request_id: e.request_id.clone(),
            ip: e.ip.clone(),
            user_agent: e.user_agent.clone(),
        }
    }
}

impl TryFrom<ActivityRow> for ActivityEntry {
    type Error = anyhow::Error;

    fn try_from(row: ActivityRow) -> Result<Self, Self::Error> {
        Ok(Self {
            id: parse(&row.id, "activity_log.id")?,
            user_id: row
                .user_id
                .map(|u| parse(&u, "activity_log.user_id"))
                .transpose()?,
            at: from_db(row.at),
            action: row.action,
            method: row.method,
            path: row.path,
            status: u16::try_from(row.status).map_err(|_| invalid("activity_log.status"))?,
            source: row
                .source
                .map(|s| Source::parse(&s).ok_or_else(|| invalid("activity_log.source")))
                .transpose()?,
            duration_ms: row.duration_ms,
            request_id: row.request_id,
            ip: row.ip,
            user_agent: row.user_agent,
        })
    }
}
