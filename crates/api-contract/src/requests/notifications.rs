//! The notification requests: the e-mail setting, a new webhook endpoint, and the one-click
//! unsubscribe's query string.

use domain::notifications::EventType;
use domain::notifications::webhook::URL_MAX_CHARS;
use domain::services::notifications::WebhookRegistration;
use serde::Deserialize;
use utoipa::openapi::Object;
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::{IntoParams, ToSchema};

use crate::error::Invalid;
use crate::views::enum_schemas;

/// Whether each new check-in comes by e-mail.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NotificationSettingsRequest {
    pub email_checkins: bool,
}

/// A new webhook endpoint.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WebhookRequest {
    /// An `https` URL whose host resolves only to public addresses: none in an IANA
    /// special-purpose range, an IPv6 form that carries an IPv4 address judged by that address
    /// (plain `http` and private addresses only where the server allows them).
    #[schema(schema_with = url)]
    pub url: String,
    /// The events it receives; at least one. A `ping` (the test) always reaches it.
    #[schema(value_type = Vec<enum_schemas::EventType>, min_items = 1)]
    pub events: Vec<EventType>,
}

fn url() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .format(Some(utoipa::openapi::SchemaFormat::Custom(
            "uri".to_owned(),
        )))
        .max_length(Some(URL_MAX_CHARS))
        .build()
}

impl WebhookRequest {
    /// The registration asked for: the events once each, in the contract's order.
    ///
    /// # Errors
    /// 422 naming `events` when it is empty (the URL is checked by the use case).
    pub fn registration(&self) -> Result<WebhookRegistration, Invalid> {
        if self.events.is_empty() {
            return Err(Invalid::field("events", "name at least one event"));
        }
        let events = EventType::ALL
            .into_iter()
            .filter(|t| self.events.contains(t))
            .collect();
        Ok(WebhookRegistration {
            url: self.url.clone(),
            events,
        })
    }
}

/// `?token=`: the signed token of an e-mail's one-click unsubscribe link.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct UnsubscribeQuery {
    /// As the e-mail's `List-Unsubscribe` URL carries it.
    pub token: String,
}
