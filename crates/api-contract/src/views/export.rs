//! The export (`GET /api/me/export`): every record of the caller's, each in the same view its
//! own route answers with.

use domain::account::AccountData;
use domain::ids::SessionId;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::account::{ApiKeyView, SessionView, UserView};
use super::activity::ActivityEntryView;
use super::coaching::{CheckInView, PreferencesView};
use super::discovery::ConversationView;
use super::integration::TaskMappingView;
use super::notifications::WebhookView;
use super::profile::{ProfileView, ReflectionMessageView, RevisionView};
use super::settings::SettingsView;

/// Every record of the caller's, as one document.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Export)]
pub struct ExportView {
    #[serde(with = "time::serde::rfc3339")]
    exported_at: OffsetDateTime,
    user: UserView,
    conversations: Vec<ConversationView>,
    profile: Option<ProfileView>,
    revisions: Vec<RevisionView>,
    reflection: Vec<ReflectionMessageView>,
    coaching_preferences: Option<PreferencesView>,
    checkins: Vec<CheckInView>,
    task_mappings: Vec<TaskMappingView>,
    activity: Vec<ActivityEntryView>,
    sessions: Vec<SessionView>,
    api_keys: Vec<ApiKeyView>,
    notifications: ExportedNotifications,
    settings: SettingsView,
    /// Without their secrets.
    webhooks: Vec<WebhookView>,
}

/// The notification setting as exported (the address is the user's own, above).
#[derive(Debug, Serialize, ToSchema)]
pub struct ExportedNotifications {
    email_checkins: bool,
}

impl<'a> ExportView {
    /// `is_admin` and `current_session` are the caller's, which the records alone do not say.
    #[must_use]
    pub fn new(
        data: &'a AccountData,
        is_admin: bool,
        current_session: Option<SessionId>,
        exported_at: OffsetDateTime,
    ) -> Self {
        Self {
            exported_at,
            user: UserView::new(&data.user, is_admin),
            conversations: data.conversations.iter().map(Into::into).collect(),
            profile: data.profile.as_ref().map(Into::into),
            revisions: data.revisions.iter().map(Into::into).collect(),
            reflection: data.reflection.iter().map(Into::into).collect(),
            coaching_preferences: data.preferences.as_ref().map(Into::into),
            checkins: data.checkins.iter().map(Into::into).collect(),
            task_mappings: data.task_mappings.iter().map(Into::into).collect(),
            activity: data.activity.iter().map(Into::into).collect(),
            sessions: data
                .sessions
                .iter()
                .map(|s| SessionView::new(s, current_session == Some(s.id)))
                .collect(),
            api_keys: data.api_keys.iter().map(Into::into).collect(),
            notifications: ExportedNotifications {
                email_checkins: data.email_checkins,
            },
            settings: SettingsView::named(&data.time_zone),
            webhooks: data.webhooks.iter().map(Into::into).collect(),
        }
    }
}
