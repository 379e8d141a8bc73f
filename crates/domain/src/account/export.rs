//! What a person can take away or look at: every record of theirs, and counts over them.

use std::collections::BTreeMap;

use time::OffsetDateTime;

use super::{ActivityEntry, ApiKey, Session, Source, User};
use crate::coaching::{CheckIn, CoachingPreferences};
use crate::discovery::Conversation;
use crate::integration::TaskMapping;
use crate::notifications::Webhook;
use crate::profile::{Profile, Revision};
use crate::reflection::ReflectionMessage;

/// Every record of one user (the export), oldest first within each kind.
#[derive(Debug, Clone, PartialEq)]
pub struct AccountData {
    pub user: User,
    pub conversations: Vec<Conversation>,
    pub profile: Option<Profile>,
    pub revisions: Vec<Revision>,
    pub reflection: Vec<ReflectionMessage>,
    pub preferences: Option<CoachingPreferences>,
    pub checkins: Vec<CheckIn>,
    pub task_mappings: Vec<TaskMapping>,
    pub activity: Vec<ActivityEntry>,
    /// Sessions (open or not); no token hash is part of it.
    pub sessions: Vec<Session>,
    /// Unrevoked keys; their hashes are left out by the caller when serialising.
    pub api_keys: Vec<ApiKey>,
    /// Whether check-ins come by e-mail.
    pub email_checkins: bool,
    /// The IANA name of the person's time zone (`/api/me/settings`).
    pub time_zone: String,
    /// Webhook endpoints; their secrets are left out by the caller when serialising.
    pub webhooks: Vec<Webhook>,
}

/// Counts for `/api/me/stats`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UserStats {
    pub total_requests: i64,
    pub requests_since: i64,
    pub by_source: BTreeMap<Source, i64>,
    pub task_mappings: i64,
    pub checkins: i64,
    pub reflection_turns: i64,
    pub first_activity_at: Option<OffsetDateTime>,
    pub last_activity_at: Option<OffsetDateTime>,
}
