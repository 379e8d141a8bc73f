//! Reflection turns that change nothing else.

use async_trait::async_trait;

use crate::error::RepoError;
use crate::ids::UserId;
use crate::reflection::ReflectionMessage;

/// Reflection dialogue turns that change nothing else.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ReflectionRepository: Send + Sync {
    async fn append(&self, messages: &[ReflectionMessage]) -> Result<(), RepoError>;
    /// The user's dialogue, oldest first.
    async fn list(&self, user: UserId) -> Result<Vec<ReflectionMessage>, RepoError>;
}
