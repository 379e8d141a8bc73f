//! A person's notification setting: whether each new check-in is sent by e-mail.

use crate::ids::UserId;

/// The setting; `email_checkins` is off until the person turns it on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotificationSettings {
    pub user_id: UserId,
    pub email_checkins: bool,
}
