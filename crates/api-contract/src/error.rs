//! The contract's error body, `{"error": {"code", "message", "details"?}}`, and the refusals a
//! request can report on its own: [`Invalid`] (422, naming each field) and [`NotFound`] (a path
//! that names nothing). The HTTP layer turns them into its answers.

use serde::Serialize;
use utoipa::ToSchema;

/// One field that failed validation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = FieldErrorBody)]
pub struct FieldError {
    /// The field's path, e.g. `items[3].minutes`.
    pub field: String,
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, message: impl ToString) -> Self {
        Self {
            field: field.into(),
            message: message.to_string(),
        }
    }
}

/// A request that failed validation (422 `validation_failed`): each offending field, by its path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Some fields are not valid.")]
pub struct Invalid(pub Vec<FieldError>);

impl Invalid {
    /// A validation failure of one field.
    pub fn field(field: impl Into<String>, message: impl ToString) -> Self {
        Self(vec![FieldError::new(field, message)])
    }
}

/// A path parameter that cannot name anything of the caller's (404 `not_found`), as an id that
/// cannot exist does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("Nothing was found here.")]
pub struct NotFound;

/// Every error: `{"error": {"code", "message", "details"?}}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody<'a> {
    error: ErrorDetail<'a>,
}

impl<'a> ErrorBody<'a> {
    /// The body of an error with `code`, its sentence, and for a validation failure its fields.
    #[must_use]
    pub const fn new(code: &'a str, message: String, details: Option<&'a [FieldError]>) -> Self {
        Self {
            error: ErrorDetail {
                code,
                message,
                details,
            },
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorDetail<'a> {
    /// One of the contract's codes, e.g. `validation_failed`.
    #[schema(example = "validation_failed")]
    code: &'a str,
    /// A sentence for people; never a stack trace, SQL text or secret.
    message: String,
    /// For validation failures: each offending field.
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<&'a [FieldError]>,
}
