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
pub struct ExportView<'a> {
    #[serde(with = "time::serde::rfc3339")]
    exported_at: OffsetDateTime,
    user: UserView<'a>,
    conversations: Vec<ConversationView<'a>>,
    profile: Option<ProfileView<'a>>,
    revisions: Vec<RevisionView<'a>>,
    reflection: Vec<ReflectionMessageView<'a>>,
    coaching_preferences: Option<PreferencesView>,
    checkins: Vec<CheckInView<'a>>,
    task_mappings: Vec<TaskMappingView<'a>>,
    activity: Vec<ActivityEntryView<'a>>,
    sessions: Vec<SessionView<'a>>,
    api_keys: Vec<ApiKeyView<'a>>,
    notifications: ExportedNotifications,
    settings: SettingsView<'a>,
    /// Without their secrets.
    webhooks: Vec<WebhookView<'a>>,
}

/// The notification setting as exported (the address is the user's own, above).
#[derive(Debug, Serialize, ToSchema)]
pub struct ExportedNotifications {
    email_checkins: bool,
}

impl<'a> ExportView<'a> {
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
