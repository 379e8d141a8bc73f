//! `discovery_conversation` and `discovery_answer` rows.

use diesel::prelude::*;
use domain::discovery::{Answer, Conversation, Step};
use domain::text::AnswerText;
use time::PrimitiveDateTime;

use crate::convert::{from_db, from_db_opt, invalid, parse, to_db, to_db_opt};
use crate::schema::{discovery_answer, discovery_conversation};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = discovery_conversation)]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct ConversationRow {
    pub id: String,
    pub user_id: String,
    pub created_at: PrimitiveDateTime,
    pub completed_at: Option<PrimitiveDateTime>,
    pub near_term_goal_raw: Option<String>,
    pub long_term_goal_raw: Option<String>,
}

impl From<&Conversation> for ConversationRow {
    fn from(c: &Conversation) -> Self {
        Self {
            id: c.id.to_string(),
            user_id: c.user_id.to_string(),
            created_at: to_db(c.created_at),
            completed_at: to_db_opt(c.completed_at),
            near_term_goal_raw: c.near_term_goal_raw().map(str::to_owned),
            long_term_goal_raw: c.long_term_goal_raw().map(str::to_owned),
        }
    }
}

impl ConversationRow {
    /// The conversation with its answers. The raw goal columns repeat answers 6 and 7, which
    /// stay the source of truth.
    pub(crate) fn into_domain(self, answers: Vec<AnswerRow>) -> anyhow::Result<Conversation> {
        let answers = answers
            .into_iter()
            .map(Answer::try_from)
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(Conversation::restore(
            parse(&self.id, "discovery_conversation.id")?,
            parse(&self.user_id, "discovery_conversation.user_id")?,
            answers,
            from_db(self.created_at),
            from_db_opt(self.completed_at),
        ))
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = discovery_answer)]
pub(crate) struct AnswerRow {
    pub conversation_id: String,
    pub step: i32,
    pub text: String,
    pub answered_at: PrimitiveDateTime,
}

impl AnswerRow {
    pub(crate) fn new(conversation_id: String, answer: &Answer) -> Self {
        Self {
            conversation_id,
            step: i32::from(answer.step.get()),
            text: answer.text.as_str().to_owned(),
            answered_at: to_db(answer.answered_at),
        }
    }
}

impl TryFrom<AnswerRow> for Answer {
    type Error = anyhow::Error;

    fn try_from(row: AnswerRow) -> Result<Self, Self::Error> {
        Ok(Self {
            step: Step::new(i64::from(row.step)).map_err(|_| invalid("discovery_answer.step"))?,
            text: AnswerText::new(row.text).map_err(|_| invalid("discovery_answer.text"))?,
            answered_at: from_db(row.answered_at),
        })
    }
}
