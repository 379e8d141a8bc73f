//! Coaching preferences.

use async_trait::async_trait;

use crate::coaching::CoachingPreferences;
use crate::error::RepoError;
use crate::ids::UserId;

/// Coaching preferences.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait PreferencesRepository: Send + Sync {
    async fn get(&self, user: UserId) -> Result<Option<CoachingPreferences>, RepoError>;
    /// Inserts or replaces the user's preferences.
    async fn put(&self, preferences: &CoachingPreferences) -> Result<(), RepoError>;
}
