//! The account settings' request: the person's time zone by IANA name.

use domain::account::time_zone::MAX_NAME_CHARS;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa::openapi::Object;
use utoipa::openapi::schema::{ObjectBuilder, Type};

/// `PUT /api/me/settings`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SettingsRequest {
    /// An IANA time zone name, such as `Europe/Berlin`; a name the server's tz database does not
    /// know is refused (422).
    #[schema(schema_with = time_zone)]
    pub time_zone: String,
}

fn time_zone() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(1))
        .max_length(Some(MAX_NAME_CHARS))
        .examples(["Europe/Berlin"])
        .build()
}
