//! Errors in the contract's shape: `{"error": {"code", "message", "details"?}}` (the body is
//! `api_contract::error`'s). Domain, storage and request errors are sorted into these once; 5xx
//! bodies stay generic while the cause is logged.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use api_contract::json::BodyError;
use domain::RepoError;

// The body's shapes are the contract's; routes name them from here.
pub use api_contract::error::{ErrorBody, FieldError, Invalid, NotFound};

/// Every failure a route can answer with.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    InvalidJson(String),
    #[error("Sign in first, or send a valid credential.")]
    Unauthenticated,
    #[error("{0}")]
    Forbidden(&'static str),
    #[error("This API key's scopes do not include this route.")]
    InsufficientScope,
    #[error("Managing credentials and the account needs a signed-in session in the browser.")]
    SessionRequired,
    #[error("Nothing was found here.")]
    NotFound,
    /// A path the service has, with a method it does not declare there; `allow` lists those it does.
    #[error("This path does not take that method.")]
    MethodNotAllowed { allow: String },
    #[error("{message}")]
    Conflict {
        code: &'static str,
        message: &'static str,
    },
    #[error("The request body is larger than 64 KiB.")]
    PayloadTooLarge,
    #[error("Send the body as application/json.")]
    UnsupportedMediaType,
    #[error("Some fields are not valid.")]
    Validation(Vec<FieldError>),
    #[error("Too many requests; try again later.")]
    RateLimited { retry_after_seconds: u64 },
    #[error("The coach is not available right now; nothing was changed.")]
    CoachUnavailable,
    #[error("The service is temporarily unavailable.")]
    Unavailable(#[source] anyhow::Error),
    /// The database had no room for this request within the bound; nothing was changed.
    #[error("The service is busy right now; nothing was changed. Try again in a moment.")]
    Busy,
    /// The database's disk is full; the write was rolled back whole.
    #[error(
        "The service's storage is full; nothing was changed. Reading still works; try again once space is freed."
    )]
    StorageFull(#[source] anyhow::Error),
    #[error("Something went wrong on our side.")]
    Internal(#[source] anyhow::Error),
}

impl ApiError {
    /// A validation failure of one field.
    pub fn invalid(field: impl Into<String>, message: impl ToString) -> Self {
        Self::Validation(vec![FieldError::new(field, message)])
    }

    /// What to log of an error: the cause, with its chain, of a server error; the code of any
    /// other, whose message may quote what was sent.
    #[must_use]
    pub fn for_log(&self) -> String {
        match self {
            Self::Internal(cause) | Self::Unavailable(cause) | Self::StorageFull(cause) => {
                format!("{cause:#}")
            }
            other => other.code().to_owned(),
        }
    }

    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            Self::InvalidJson(_) => "invalid_json",
            Self::Unauthenticated => "unauthenticated",
            Self::Forbidden(_) => "forbidden",
            Self::InsufficientScope => "insufficient_scope",
            Self::SessionRequired => "session_required",
            Self::NotFound => "not_found",
            Self::MethodNotAllowed { .. } => "method_not_allowed",
            Self::Conflict { code, .. } => code,
            Self::PayloadTooLarge => "payload_too_large",
            Self::UnsupportedMediaType => "unsupported_media_type",
            Self::Validation(_) => "validation_failed",
            Self::RateLimited { .. } => "rate_limited",
            Self::CoachUnavailable => "coach_unavailable",
            Self::Unavailable(_) => "unavailable",
            Self::Busy => "busy",
            Self::StorageFull(_) => "storage_full",
            Self::Internal(_) => "internal",
        }
    }
}

impl From<domain::services::account::RevokeError> for ApiError {
    fn from(e: domain::services::account::RevokeError) -> Self {
        match e {
            domain::services::account::RevokeError::NotFound => Self::NotFound,
            domain::services::account::RevokeError::Repo(e) => e.into(),
        }
    }
}

impl From<Invalid> for ApiError {
    fn from(Invalid(fields): Invalid) -> Self {
        Self::Validation(fields)
    }
}

impl From<NotFound> for ApiError {
    fn from(_: NotFound) -> Self {
        Self::NotFound
    }
}

impl From<BodyError> for ApiError {
    fn from(e: BodyError) -> Self {
        match e {
            BodyError::Syntax(message) => Self::InvalidJson(message),
            BodyError::Invalid(invalid) => invalid.into(),
        }
    }
}

impl ApiError {
    /// A version conflict: what was read has changed since. One answer whichever noticed it, the
    /// domain (an `If-Match` naming an older version) or the database (a concurrent write won).
    pub const STALE: Self = Self::Conflict {
        code: "conflict",
        message: "This changed since you read it; reload and try again.",
    };

    /// A change to a profile the person has affirmed.
    pub const PROFILE_LOCKED: Self = Self::Conflict {
        code: "profile_locked",
        message: "Your profile is affirmed and can no longer change.",
    };
}

impl From<RepoError> for ApiError {
    fn from(e: RepoError) -> Self {
        match e {
            RepoError::NotFound => Self::NotFound,
            RepoError::Conflict => Self::STALE,
            RepoError::Unavailable(cause) => Self::Unavailable(cause),
            RepoError::Busy => Self::Busy,
            RepoError::StorageFull(cause) => Self::StorageFull(cause),
            RepoError::Unexpected(cause) => Self::Internal(cause),
        }
    }
}

/// What a `busy` answer asks the caller to wait: the bound is seconds, and the request that held
/// the room is usually done well within one.
pub const BUSY_RETRY_AFTER_SECONDS: u64 = 1;

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::InvalidJson(_) => StatusCode::BAD_REQUEST,
            Self::Unauthenticated => StatusCode::UNAUTHORIZED,
            Self::Forbidden(_) | Self::InsufficientScope | Self::SessionRequired => {
                StatusCode::FORBIDDEN
            }
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            Self::Conflict { .. } => StatusCode::CONFLICT,
            Self::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::Validation(_) => StatusCode::UNPROCESSABLE_ENTITY,
            Self::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::CoachUnavailable => StatusCode::BAD_GATEWAY,
            Self::Unavailable(_) | Self::Busy => StatusCode::SERVICE_UNAVAILABLE,
            Self::StorageFull(_) => StatusCode::INSUFFICIENT_STORAGE,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        match self {
            Self::Internal(_) => tracing::error!(error = %self.for_log(), "internal error"),
            Self::Unavailable(_) => {
                tracing::warn!(error = %self.for_log(), "dependency unavailable")
            }
            // The operator must act (free space); each refused write says so once.
            Self::StorageFull(_) => tracing::error!(error = %self.for_log(), "storage full"),
            // Logged with its cause where the model call failed.
            Self::CoachUnavailable => {}
            // The caller's mistake, not the server's: the activity log has it. Only the code,
            // as a message may quote what was sent.
            _ => tracing::debug!(code = self.code(), "request refused"),
        }
        let details = match self {
            Self::Validation(fields) => Some(fields.as_slice()),
            _ => None,
        };
        let mut response = HttpResponse::build(self.status_code());
        if let Self::RateLimited {
            retry_after_seconds,
        } = self
        {
            response.insert_header((header::RETRY_AFTER, retry_after_seconds.to_string()));
        }
        if matches!(self, Self::Busy) {
            response.insert_header((header::RETRY_AFTER, BUSY_RETRY_AFTER_SECONDS.to_string()));
        }
        if let Self::MethodNotAllowed { allow } = self {
            response.insert_header((header::ALLOW, allow.as_str()));
        }
        if matches!(self, Self::Unauthenticated) {
            response.insert_header((header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer")));
        }
        response.json(ErrorBody::new(self.code(), self.to_string(), details))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::body::to_bytes;

    async fn body(e: ApiError) -> (u16, serde_json::Value) {
        let response = e.error_response();
        let status = response.status().as_u16();
        let bytes = to_bytes(response.into_body()).await.unwrap();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    #[actix_web::test]
    async fn validation_errors_carry_their_fields() {
        let (status, json) = body(ApiError::invalid("minutes", "must be between 0 and 1440")).await;
        assert_eq!(status, 422);
        assert_eq!(json["error"]["code"], "validation_failed");
        assert_eq!(json["error"]["details"][0]["field"], "minutes");
    }

    /// A stale version answers one body whichever noticed it: the domain (a stale `If-Match`,
    /// a concurrent reflection or completion) or the database (a write that lost the race).
    #[actix_web::test]
    async fn one_version_conflict_answers_one_message() {
        use domain::services::profile::{ChangeProfileError, ReflectError};

        let database = body(RepoError::Conflict.into()).await;
        assert_eq!(database.0, 409);
        assert_eq!(database.1["error"]["code"], "conflict");
        for noticed in [
            ApiError::from(ChangeProfileError::VersionMismatch),
            ApiError::from(ChangeProfileError::Repo(RepoError::Conflict)),
            ApiError::from(ReflectError::Conflict),
            // What `complete` answers when a concurrent completion won.
            ApiError::STALE,
        ] {
            assert_eq!(body(noticed).await, database);
        }
    }

    #[actix_web::test]
    async fn a_body_that_is_not_json_is_400_and_one_of_the_wrong_shape_422() {
        let not_json = api_contract::json::parse::<serde_json::Value>(b"nope").unwrap_err();
        let (status, json) = body(not_json.into()).await;
        assert_eq!(status, 400);
        assert_eq!(json["error"]["code"], "invalid_json");
        let (status, json) = body(Invalid::field("minutes", "too many").into()).await;
        assert_eq!(status, 422);
        assert_eq!(json["error"]["details"][0]["field"], "minutes");
        let (status, _) = body(NotFound.into()).await;
        assert_eq!(status, 404);
    }

    #[test]
    fn the_log_gets_a_server_errors_cause_and_only_the_code_of_a_refusal() {
        let internal =
            ApiError::Internal(anyhow::anyhow!("connection refused").context("opening a session"));
        assert_eq!(internal.for_log(), "opening a session: connection refused");
        let refused = ApiError::InvalidJson("invalid type: string \"my words\"".into());
        assert_eq!(refused.for_log(), "invalid_json");
    }

    #[actix_web::test]
    async fn a_full_disk_is_507_storage_full_without_its_cause() {
        let cause = anyhow::anyhow!("database or disk is full").context("storing a task mapping");
        let (status, json) = body(ApiError::from(RepoError::StorageFull(cause))).await;
        assert_eq!(status, 507);
        assert_eq!(json["error"]["code"], "storage_full");
        let message = json["error"]["message"].as_str().unwrap();
        assert!(message.contains("nothing was changed"), "{message}");
        assert!(
            !message.contains("disk is full"),
            "the cause stays in the log: {message}"
        );
    }

    #[actix_web::test]
    async fn busy_is_503_with_a_retry_after() {
        let response = ApiError::from(RepoError::Busy).error_response();
        assert_eq!(response.status().as_u16(), 503);
        assert_eq!(
            response.headers().get(header::RETRY_AFTER).unwrap(),
            &BUSY_RETRY_AFTER_SECONDS.to_string()
        );
        let (_, json) = body(ApiError::Busy).await;
        assert_eq!(json["error"]["code"], "busy");
    }

    #[actix_web::test]
    async fn internal_errors_never_reveal_their_cause() {
        let (status, json) = body(ApiError::Internal(anyhow::anyhow!(
            "SELECT secret FROM users"
        )))
        .await;
        assert_eq!(status, 500);
        assert_eq!(json["error"]["code"], "internal");
        assert!(!json.to_string().contains("SELECT"));
    }
}
