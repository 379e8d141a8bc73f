//! `reflection_message` rows.

use diesel::prelude::*;
use domain::reflection::{Author, ReflectionMessage, ReplyEngine};
use time::PrimitiveDateTime;

use crate::convert::{from_db, invalid, parse, to_db};
use crate::schema::reflection_message;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = reflection_message)]
pub(crate) struct ReflectionRow {
    pub id: String,
    pub user_id: String,
    pub author: String,
    pub text: String,
    pub created_at: PrimitiveDateTime,
    pub engine: Option<String>,
}

impl From<&ReflectionMessage> for ReflectionRow {
    fn from(m: &ReflectionMessage) -> Self {
        Self {
            id: m.id.to_string(),
            user_id: m.user_id.to_string(),
            author: m.author.key().to_owned(),
            text: m.text.clone(),
            created_at: to_db(m.created_at),
            engine: m.engine.map(|e| e.key().to_owned()),
        }
    }
}

impl TryFrom<ReflectionRow> for ReflectionMessage {
    type Error = anyhow::Error;

    fn try_from(row: ReflectionRow) -> Result<Self, Self::Error> {
        let author = [Author::Coach, Author::Person]
            .into_iter()
            .find(|a| a.key() == row.author)
            .ok_or_else(|| invalid("reflection_message.author"))?;
        let engine = match row.engine.as_deref() {
            None => None,
            Some(key) => Some(
                ReplyEngine::ALL
                    .into_iter()
                    .find(|e| e.key() == key)
                    .ok_or_else(|| invalid("reflection_message.engine"))?,
            ),
        };
        Ok(Self {
            id: parse(&row.id, "reflection_message.id")?,
            user_id: parse(&row.user_id, "reflection_message.user_id")?,
            author,
            text: row.text,
            created_at: from_db(row.created_at),
            engine,
        })
    }
}
