//! The account requests: a new API key, dev login, the sign-in redirects' query strings and
//! the activity log's.

use domain::account::api_key::ApiKeyName;
use domain::account::{Email, KeyLifetime, KeyScope, KeyScopes};
use domain::ids::UserId;
use domain::services::account::NewApiKey;
use serde::Deserialize;
use utoipa::openapi::Object;
use utoipa::openapi::path::{Parameter, ParameterIn};
use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, SchemaFormat, Type};
use utoipa::{IntoParams, ToSchema};

use super::rules;
use crate::error::Invalid;
use crate::views::enum_schemas;

/// A new personal API key.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ApiKeyRequest {
    #[schema(schema_with = key_name)]
    pub name: String,
    /// What the key may be used for (default `["integration"]`); at least one.
    #[schema(value_type = Option<Vec<enum_schemas::KeyScope>>, min_items = 1)]
    #[serde(default)]
    pub scopes: Option<Vec<KeyScope>>,
    /// Days until the key stops working (`null` or absent: until revoked).
    #[schema(schema_with = lifetime_days)]
    #[serde(default)]
    pub expires_in_days: Option<KeyLifetime>,
}

fn key_name() -> Object {
    rules::non_blank(ApiKeyName::MAX)
}

fn lifetime_days() -> Object {
    rules::integer_or_null(
        KnownFormat::Int64,
        i64::from(KeyLifetime::MIN_DAYS),
        i64::from(KeyLifetime::MAX_DAYS),
    )
}

impl ApiKeyRequest {
    /// The name, trimmed.
    ///
    /// # Errors
    /// 422 naming `name`.
    pub fn name(&self) -> Result<ApiKeyName, Invalid> {
        ApiKeyName::non_blank(self.name.trim()).map_err(|e| Invalid::field("name", e))
    }

    /// The key asked for.
    ///
    /// # Errors
    /// 422 naming `name` or `scopes` (an empty list); `expires_in_days` is checked as it is
    /// read (1-365 whole days).
    pub fn new_key(&self) -> Result<NewApiKey, Invalid> {
        let scopes = match &self.scopes {
            None => KeyScopes::DEFAULT,
            Some(scopes) => {
                KeyScopes::new(scopes.iter().copied()).map_err(|e| Invalid::field("scopes", e))?
            }
        };
        Ok(NewApiKey {
            name: self.name()?,
            scopes,
            lifetime: self.expires_in_days,
        })
    }
}

/// Dev login: the e-mail address to sign in as.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DevLoginRequest {
    #[schema(schema_with = email)]
    pub email: String,
}

fn email() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some(
            "A bare address: one `@` between non-empty parts, without white space, control \
             characters or mailbox syntax (`<`, `>`, `(`, `)`, `\"`, `,`, `;`, `:`, `[`, `]`, `\\`); \
             the address is stored lower-cased.",
        ))
        .examples(["ada@example.org"])
        .max_length(Some(Email::MAX_CHARS))
        .pattern(Some(rules::EMAIL))
        .build()
}

impl DevLoginRequest {
    /// The address. Typed by a developer: one with white space around it is refused rather
    /// than trimmed, as the document states it.
    ///
    /// # Errors
    /// 422 naming `email`.
    pub fn email(&self) -> Result<Email, Invalid> {
        if self.email.trim() != self.email {
            return Err(Invalid::field(
                "email",
                "must not start or end with white space",
            ));
        }
        Email::new(&self.email).map_err(|e| Invalid::field("email", e))
    }
}

/// `GET /api/auth/login?redirect=`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LoginQuery {
    /// A same-origin path to return to after sign-in (anything else is ignored).
    pub redirect: Option<String>,
}

/// `GET /api/auth/callback`: what the identity provider sends back.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CallbackQuery {
    pub code: Option<String>,
    pub state: Option<String>,
    pub iss: Option<String>,
    pub error: Option<String>,
}

/// `GET /api/activity/summary?days=`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SummaryQuery {
    pub days: Option<i64>,
}

/// The longest summary window, as the work patterns'.
pub const MAX_SUMMARY_DAYS: u16 = domain::integration::Window::MAX_DAYS;
/// The summary's window when none is asked for.
pub const DEFAULT_SUMMARY_DAYS: u16 = 30;

impl SummaryQuery {
    /// # Errors
    /// 422 naming `days` outside 1-365.
    pub fn days(&self) -> Result<u16, Invalid> {
        let days = self.days.unwrap_or(i64::from(DEFAULT_SUMMARY_DAYS));
        u16::try_from(days)
            .ok()
            .filter(|d| (1..=MAX_SUMMARY_DAYS).contains(d))
            .ok_or_else(|| Invalid::field("days", "must be between 1 and 365"))
    }
}

impl IntoParams for SummaryQuery {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        vec![rules::query_param(
            "days",
            Some("The window in days, 1-365 (default 30)."),
            rules::days(MAX_SUMMARY_DAYS),
        )]
    }
}

/// `GET /api/admin/activity?user_id=&limit=&before=`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdminActivityQuery {
    pub user_id: Option<String>,
    pub limit: Option<i64>,
    pub before: Option<String>,
}

impl AdminActivityQuery {
    /// Whose activity: one person's, or everyone's when `user_id` is absent or empty.
    ///
    /// # Errors
    /// 422 naming `user_id` when it is not a user id.
    pub fn user_id(&self) -> Result<Option<UserId>, Invalid> {
        match self.user_id.as_deref() {
            None | Some("") => Ok(None),
            Some(id) => id
                .parse::<UserId>()
                .map(Some)
                .map_err(|_| Invalid::field("user_id", "must be a user id")),
        }
    }
}

impl IntoParams for AdminActivityQuery {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let uuid = ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Uuid)));
        vec![
            rules::query_param(
                "user_id",
                Some("Only this person's activity; empty means everyone's."),
                rules::or_empty(uuid),
            ),
            rules::query_param("limit", None, rules::page_limit()),
            rules::query_param("before", None, rules::cursor()),
        ]
    }
}
