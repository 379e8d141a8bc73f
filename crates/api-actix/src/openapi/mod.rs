//! The OpenAPI 3.1 document, built from the route declarations (`routes::api`: each handler's
//! annotation and its policy), served at `/openapi.json` (`route.rs`) and shown to people at
//! `/docs`, a page the `site` crate renders from it at start-up. This file holds what is not a route's: the title, the
//! tags, the security schemes and the common error answers.

#[cfg(test)]
mod checked_in;
mod common_errors;
pub mod route;

use std::sync::OnceLock;

use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{OpenApi as Document, Server};
use utoipa::{Modify, OpenApi};

use crate::auth::policy::{API_KEY_SCHEME, BEARER_SCHEME, COOKIE_SCHEME};
use crate::routes;
use crate::routes::declaration::Route;
use common_errors::CommonErrors;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Discovery Service",
        description = "Self-discovery profiles, a reflection coach, check-ins and time-tracker \
                       integration. Errors are always `{\"error\": {\"code\", \"message\", \"details\"}}`; \
                       every response carries `X-Request-Id`.",
        license(name = "AGPL-3.0-or-later", identifier = "AGPL-3.0-or-later"),
    ),
    tags(
        (name = "operations", description = "Health, readiness and metrics."),
        (name = "auth", description = "Sign-in (OpenID Connect), session refresh and sign-out."),
        (name = "discovery", description = "The seven prompts and the conversation."),
        (name = "profile", description = "The profile, its edits, affirmation, reopening, restored revisions and the reflection coach."),
        (name = "coaching", description = "Coaching preferences and check-ins."),
        (name = "integration", description = "Time trackers: task mappings, mapping rules, unmapped time and work patterns."),
        (name = "account", description = "The signed-in person: sessions, API keys, export, deletion."),
        (name = "notifications", description = "Check-ins by e-mail and signed webhooks."),
        (name = "activity", description = "The activity log."),
    )
)]
#[derive(Debug)]
struct ApiDoc;

/// The three ways to be signed in, tried in this order; which of them an operation accepts
/// follows from its route's policy (`Policy::security`).
#[derive(Debug)]
struct SecuritySchemes;

impl Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut Document) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            API_KEY_SCHEME,
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-API-Key",
                "A personal API key (acts as its owner) or the operator key.",
            ))),
        );
        components.add_security_scheme(
            BEARER_SCHEME,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some("The access token (HS256)."))
                    .build(),
            ),
        );
        components.add_security_scheme(
            COOKIE_SCHEME,
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
                "ds_access",
                "The session cookie set at sign-in. Unsafe methods also need an Origin or \
                 Referer of the service (CSRF defence).",
            ))),
        );
        openapi.servers = Some(vec![Server::new("/")]);
    }
}

/// The document, built once.
pub fn document() -> &'static Document {
    static DOCUMENT: OnceLock<Document> = OnceLock::new();
    DOCUMENT.get_or_init(build)
}

/// What `#[derive(OpenApi)]` would build with every route in its `paths(...)`: the routes'
/// operations and schemas first, then the modifiers, which read them.
fn build() -> Document {
    let mut document = ApiDoc::openapi();
    let routes: Vec<Route> = routes::api()
        .into_iter()
        .flat_map(|(_, routes)| routes)
        .collect();
    for route in &routes {
        route.describe(&mut document);
    }
    SecuritySchemes.modify(&mut document);
    CommonErrors::of(&routes).modify(&mut document);
    document
}
