//! The one error of a shared setting: which variable, and why, on one line without its value
//! when the value may hold a secret.

/// A setting that cannot be used, named with its variable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingError {
    #[error("{name} is not valid: {reason}")]
    Invalid { name: &'static str, reason: String },
    #[error("{0} must be set (outside dev mode)")]
    Missing(&'static str),
}

/// [`SettingError::Invalid`] of `name`.
pub(crate) fn invalid(name: &'static str, reason: impl ToString) -> SettingError {
    SettingError::Invalid {
        name,
        reason: reason.to_string(),
    }
}
