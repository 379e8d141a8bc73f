//! HTTP routes, one file per resource; `configure` mounts them all.

pub mod activity;
pub mod api_keys;
pub mod auth;
pub mod coaching;
pub mod discovery;
pub mod fallback;
pub mod health;
pub mod integration;
pub mod mapping_rules;
pub mod me;
pub mod method_table;
pub mod metrics;
pub mod notifications;
pub mod profile;
pub mod reflect_preview;
pub mod sessions;
pub mod settings;
pub mod sweep;
pub mod web;
pub mod weekly;

use actix_web::web as actix;

/// Mounts every API route. Each group of paths with a common prefix is a scope: actix tries the
/// routes of a level one after another (running the pattern of every dynamic one), so a request
/// is matched against a handful of prefixes and then its own group, not the whole table. A path
/// under a prefix that no route of its group takes still gets the app's JSON 404 or 405. The
/// documentation and the pages are mounted after these, by `startup`.
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
        .service(
            actix::scope("/integration")
                .configure(integration::configure)
                .configure(sweep::configure)
                .configure(weekly::configure)
                .configure(mapping_rules::configure),
        )
        .service(
            actix::scope("/api/me")
                .configure(me::configure)
                .configure(sessions::configure)
                .configure(api_keys::configure)
                .configure(settings::configure)
                .configure(notifications::configure),
        )
        .configure(notifications::configure_public)
        .configure(activity::configure);
}
