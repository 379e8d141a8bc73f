//! HTTP routes, one file per resource; `configure` mounts them all.

pub mod activity;
pub mod api_keys;
pub mod auth;
pub mod coaching;
pub mod discovery;
pub mod health;
pub mod integration;
pub mod me;
pub mod metrics;
pub mod profile;
pub mod reflect_preview;
pub mod sessions;
pub mod web;

use actix_web::web as actix;

use crate::error::ApiError;

/// Mounts every route. Each group of paths with a common prefix is a scope: actix tries the
/// routes of a level one after another (running the pattern of every dynamic one), so a request
/// is matched against a handful of prefixes and then its own group, not the whole table. A path
/// under a prefix that no route of its group takes still gets the app's JSON 404 or 405.
pub fn configure(cfg: &mut actix::ServiceConfig, dev_login_enabled: bool) {
    cfg.service(health::healthz)
        .service(health::readyz)
        .service(metrics::metrics)
        .service(actix::scope("/api/auth").configure(|cfg| auth::configure(cfg, dev_login_enabled)))
        .service(
            actix::scope("/discovery")
                .configure(discovery::configure)
                .configure(profile::configure)
                .configure(reflect_preview::configure),
        )
        .service(actix::scope("/coaching").configure(coaching::configure))
        .service(actix::scope("/integration").configure(integration::configure))
        .service(
            actix::scope("/api/me")
                .configure(me::configure)
                .configure(sessions::configure)
                .configure(api_keys::configure),
        )
        .configure(activity::configure)
        .configure(crate::openapi::configure)
        // Last: the pages and their files, so every API path above wins.
        .configure(web::configure);
}

/// Anything no route matched: 405 with `Allow` when the path is one of the API's and the method
/// is not declared there, else 404; both in the contract's shape.
pub async fn not_found(req: actix_web::HttpRequest) -> Result<actix_web::HttpResponse, ApiError> {
    Err(crate::openapi::allowed_methods::refusal(
        req.method(),
        req.path(),
    ))
}

/// RFC 3339 in UTC, as every timestamp of the contract.
pub fn rfc3339(at: time::OffsetDateTime) -> String {
    at.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}
