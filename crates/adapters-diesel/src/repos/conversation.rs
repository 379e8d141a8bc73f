//! [`ConversationRepository`] over diesel: conversations and their answers.

use async_trait::async_trait;
use diesel::dsl::exists;
use diesel::prelude::*;
use diesel::upsert::excluded;
use domain::RepoError;
use domain::discovery::{Answer, Conversation};
use domain::ids::{ConversationId, UserId};
use domain::ports::ConversationRepository;
use time::PrimitiveDateTime;

use crate::connection::DbConnection;
use crate::error::{StoreError, StoreResult};
use crate::models::conversation::{AnswerRow, ConversationRow};
use crate::schema::{discovery_answer, discovery_conversation};
use crate::tx::on_backend;

super::declare::repository!(
    /// Discovery conversations with their answers.
    DieselConversationRepository
);

#[async_trait]
impl ConversationRepository for DieselConversationRepository {
    async fn latest(&self, user: UserId) -> Result<Option<Conversation>, RepoError> {
        let user = user.to_string();
        self.db
            .run("loading the latest conversation", move |conn| {
                let Some(row) = discovery_conversation::table
                    .filter(discovery_conversation::user_id.eq(user))
                    .order((
                        discovery_conversation::created_at.desc(),
                        discovery_conversation::id.desc(),
                    ))
                    .select(ConversationRow::as_select())
                    .first(conn)
                    .optional()?
                else {
                    return Ok(None);
                };
                let answers = discovery_answer::table
                    .filter(discovery_answer::conversation_id.eq(&row.id))
                    .order(discovery_answer::step)
                    .select(AnswerRow::as_select())
                    .load(conn)?;
                Ok(Some(row.into_domain(answers)?))
            })
            .await
    }

    async fn create(&self, conversation: &Conversation) -> Result<(), RepoError> {
        let row = ConversationRow::from(conversation);
        let answers: Vec<AnswerRow> = conversation
            .answers()
            .map(|a| AnswerRow::new(row.id.clone(), a))
            .collect();
        self.db
            .write("starting a conversation", move |conn| {
                // A second one in progress hits the partial unique index: Conflict.
                diesel::insert_into(discovery_conversation::table)
                    .values(&row)
                    .execute(conn)?;
                for answer in &answers {
                    diesel::insert_into(discovery_answer::table)
                        .values(answer)
                        .execute(conn)?;
                }
                Ok(())
            })
            .await
    }

    async fn save_answer(&self, id: ConversationId, answer: &Answer) -> Result<(), RepoError> {
        let id = id.to_string();
        let row = AnswerRow::new(id.clone(), answer);
        self.db
            .write("saving an answer", move |conn| {
                if touch_in_progress(conn, &id, &row)? == 0 {
                    let known = diesel::select(exists(discovery_conversation::table.find(&id)))
                        .get_result::<bool>(conn)?;
                    return Err(if known {
                        StoreError::Conflict
                    } else {
                        StoreError::NotFound
                    });
                }
                on_backend!(conn, c => diesel::insert_into(discovery_answer::table)
                    .values(&row)
                    .on_conflict((discovery_answer::conversation_id, discovery_answer::step))
                    .do_update()
                    .set((
                        discovery_answer::text.eq(excluded(discovery_answer::text)),
                        discovery_answer::answered_at.eq(excluded(discovery_answer::answered_at)),
                    ))
                    .execute(c))?;
                Ok(())
            })
            .await
    }
}

/// Updates the conversation row while it is in progress and returns the rows touched: the raw
/// goal column for steps 6 and 7, otherwise a no-op write. Either way the row is locked until
/// commit, so a completion running at the same time waits, and then the answer lands before
/// it or is refused after it, never after completion.
fn touch_in_progress(conn: &mut DbConnection, id: &str, answer: &AnswerRow) -> StoreResult<usize> {
    use discovery_conversation as dc;
    let in_progress = dc::table
        .filter(dc::id.eq(id))
        .filter(dc::completed_at.is_null());
    let text = Some(answer.text.as_str());
    let n = match answer.step {
        6 => diesel::update(in_progress)
            .set(dc::near_term_goal_raw.eq(text))
            .execute(conn)?,
        7 => diesel::update(in_progress)
            .set(dc::long_term_goal_raw.eq(text))
            .execute(conn)?,
        _ => diesel::update(in_progress)
            .set(dc::completed_at.eq(None::<PrimitiveDateTime>))
            .execute(conn)?,
    };
    Ok(n)
}
