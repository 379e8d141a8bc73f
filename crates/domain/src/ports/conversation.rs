//! The discovery conversation and its answers.

use async_trait::async_trait;

use crate::discovery::{Answer, Conversation};
use crate::error::RepoError;
use crate::ids::{ConversationId, UserId};

/// Discovery conversations.
/// # Errors
/// `Conflict` from [`ConversationRepository::save_answer`] once the conversation is completed,
/// and from [`ConversationRepository::create`] while another one is in progress.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ConversationRepository: Send + Sync {
    /// The user's most recent conversation with its answers.
    async fn latest(&self, user: UserId) -> Result<Option<Conversation>, RepoError>;
    async fn create(&self, conversation: &Conversation) -> Result<(), RepoError>;
    /// Inserts or replaces one answer (and the raw goal text for steps 6 and 7).
    async fn save_answer(&self, id: ConversationId, answer: &Answer) -> Result<(), RepoError>;
}
