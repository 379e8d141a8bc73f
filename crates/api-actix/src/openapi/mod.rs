//! The OpenAPI 3.1 document, built from the annotations on the route handlers, served at
//! `/openapi.json` and rendered at `/docs` (Swagger UI embedded in the binary: no CDN).

mod common_errors;
pub mod viewer;

use std::sync::OnceLock;

use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{OpenApi as Document, Server};
use utoipa::{Modify, OpenApi};

use crate::routes;
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
    paths(
        routes::health::healthz,
        routes::health::readyz,
        routes::metrics::metrics,
        routes::auth::config,
        routes::auth::login,
        routes::auth::callback,
        routes::auth::refresh,
        routes::auth::logout,
        routes::auth::dev_login,
        routes::discovery::prompts,
        routes::discovery::start,
        routes::discovery::get,
        routes::discovery::answer,
        routes::discovery::complete,
        routes::profile::get,
        routes::profile::edit,
        routes::profile::affirm,
        routes::profile::reopen,
        routes::profile::restore,
        routes::profile::reflect,
        routes::profile::reflection,
        routes::profile::revisions,
        routes::reflect_preview::preview_get,
        routes::reflect_preview::preview_post,
        routes::coaching::preferences,
        routes::coaching::set_preferences,
        routes::coaching::regenerate,
        routes::coaching::checkins,
        routes::coaching::create_checkin,
        routes::coaching::respond,
        routes::coaching::run,
        routes::integration::foundations,
        routes::integration::upsert,
        routes::integration::list,
        routes::integration::batch,
        routes::integration::delete,
        routes::integration::delete_named_batch,
        routes::integration::work_patterns,
        routes::sweep::sweep,
        routes::weekly::weekly,
        routes::mapping_rules::list,
        routes::mapping_rules::create,
        routes::mapping_rules::replace,
        routes::mapping_rules::delete,
        routes::mapping_rules::reclassification,
        routes::mapping_rules::unmapped,
        routes::me::get,
        routes::me::delete,
        routes::me::export,
        routes::me::stats,
        routes::settings::get,
        routes::settings::put,
        routes::sessions::list,
        routes::sessions::revoke,
        routes::api_keys::create,
        routes::api_keys::list,
        routes::api_keys::revoke,
        routes::notifications::settings,
        routes::notifications::put_settings,
        routes::notifications::create,
        routes::notifications::list,
        routes::notifications::delete,
        routes::notifications::test,
        routes::notifications::deliveries,
        routes::notifications::unsubscribe,
        routes::activity::list,
        routes::activity::summary,
        routes::activity::admin_list,
    ),
    modifiers(&SecuritySchemes, &CommonErrors),
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

/// The three ways to be signed in, tried in this order; any one of them satisfies `signed_in`.
#[derive(Debug)]
struct SecuritySchemes;

impl Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut Document) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-API-Key",
                "A personal API key (acts as its owner) or the operator key.",
            ))),
        );
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some("The access token (HS256)."))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "cookie",
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
    DOCUMENT.get_or_init(ApiDoc::openapi)
}
