//! The HTTP server: every worker's app, with the routes, the app data each layer reads, and the
//! middleware in its order (outermost last in the chain).

use std::net::TcpListener;

use actix_web::dev::Server;
use actix_web::http::header;
use actix_web::middleware::{Compat, DefaultHeaders, from_fn};
use actix_web::{App, HttpServer, web};
use tracing_actix_web::TracingLogger;

use super::services::Services;
use crate::activity::ActivityQueue;
use crate::auth::cookies::CookieJar;
use crate::auth::csrf::TrustedOrigins;
use crate::middleware::client_ip::ForwardedFor;
use crate::middleware::rate_limit::{self, RateLimits};
use crate::middleware::request_id;
use crate::routes::method_table::MethodTable;
use crate::service_types::Authenticator;
use crate::state::{EmailAvailable, MetricsToken, SignIn};
use crate::{activity, auth, extract, middleware, openapi, routes, telemetry};
use adapters_diesel::{Database, DieselActivityRepository};
use service_metrics::Metrics;
use site::Pages;

/// What every worker's app shares: the use cases and the other app data the handlers and the
/// middlewares take, each piece on its own, and the settings the middleware is built from.
#[derive(Clone)]
pub(super) struct Shared {
    pub services: Services,
    pub rate_limits: web::Data<RateLimits>,
    pub auth: web::Data<Authenticator>,
    pub origins: web::Data<TrustedOrigins>,
    pub activity_queue: web::Data<ActivityQueue>,
    pub metrics: web::Data<Metrics>,
    pub forwarded_for: ForwardedFor,
    /// The 404/405 fallback's list of documented paths and methods, read once.
    pub method_table: web::Data<MethodTable>,
    /// Every page, assembled from web/ once.
    pub pages: web::Data<Pages>,
    pub sign_in: web::Data<SignIn>,
    pub cookies: web::Data<CookieJar>,
    pub mail: web::Data<EmailAvailable>,
    pub metrics_token: web::Data<MetricsToken>,
    /// The activity log's reads (its writes go through `activity_queue`).
    pub activity: web::Data<DieselActivityRepository>,
    /// Health and the pool's gauges.
    pub db: web::Data<Database>,
    /// Whether the service is published over https (`PUBLIC_BASE_URL`).
    pub hsts: bool,
    pub cors_allowed_origins: Vec<String>,
}

/// Builds the server on `listener`; it runs once awaited.
///
/// # Errors
/// When the listener cannot be used.
pub(super) fn serve(listener: TcpListener, shared: Shared) -> std::io::Result<Server> {
    let server = HttpServer::new(move || {
        let shared = shared.clone();
        let dev_login = shared.sign_in.dev_login;
        let pages = shared.pages.clone();
        App::new()
            .configure(|cfg| shared.services.register(cfg))
            .app_data(shared.sign_in.clone())
            .app_data(shared.cookies.clone())
            .app_data(shared.mail.clone())
            .app_data(shared.metrics_token.clone())
            .app_data(shared.activity.clone())
            .app_data(shared.db.clone())
            .app_data(shared.rate_limits.clone())
            .app_data(shared.auth.clone())
            .app_data(shared.origins.clone())
            .app_data(shared.activity_queue.clone())
            .app_data(shared.metrics.clone())
            .app_data(shared.forwarded_for)
            .app_data(shared.method_table.clone())
            // The fallback answers a browser's 404 with the site's own page.
            .app_data(pages.clone())
            .app_data(extract::payload_config())
            .app_data(extract::query_config())
            .app_data(extract::path_config())
            .configure(|cfg| routes::configure(cfg, dev_login))
            .configure(openapi::route::configure)
            // Last: the pages and their files, so every API path above wins.
            .configure(|cfg| routes::web::configure(cfg, &pages))
            .default_service(web::to(routes::fallback::not_found))
            // Inside authentication (coach calls are limited per person) and inside the
            // activity log (a refused request is still recorded).
            .wrap(from_fn(rate_limit::limit))
            .wrap(from_fn(auth::caller::authenticate_request))
            .wrap(from_fn(activity::middleware::record))
            .wrap(cors(&shared.cors_allowed_origins))
            .wrap(Compat::new(
                TracingLogger::<telemetry::PathOnlyRootSpan>::new(),
            ))
            .wrap(from_fn(request_id::request_id))
            .wrap(security_headers(shared.hsts))
            // Outermost: every answer is counted, whichever layer gave it.
            .wrap(from_fn(middleware::metrics::record))
    })
    .listen(listener)?
    .run();
    Ok(server)
}

/// Headers every answer carries: API JSON and errors as well as pages (which add their own
/// Content-Security-Policy in `routes::web`; `DefaultHeaders` keeps a header already set). When
/// the service is published over https (`PUBLIC_BASE_URL`), browsers are told to use nothing
/// else for a year (HSTS), so a first plain-http visit cannot be downgraded.
fn security_headers(hsts: bool) -> DefaultHeaders {
    let headers = DefaultHeaders::new()
        .add((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .add((header::REFERRER_POLICY, "same-origin"));
    if hsts {
        headers.add((header::STRICT_TRANSPORT_SECURITY, "max-age=31536000"))
    } else {
        headers
    }
}

/// CORS for the configured origins only, with credentials (cookies) allowed.
fn cors(origins: &[String]) -> actix_cors::Cors {
    origins
        .iter()
        .fold(actix_cors::Cors::default(), |cors, origin| {
            cors.allowed_origin(origin)
        })
        .allowed_methods(["GET", "POST", "PUT", "PATCH", "DELETE"])
        .allowed_headers([
            actix_web::http::header::CONTENT_TYPE,
            actix_web::http::header::AUTHORIZATION,
            actix_web::http::header::IF_MATCH,
            actix_web::http::header::HeaderName::from_static("x-api-key"),
            actix_web::http::header::HeaderName::from_static("x-request-id"),
        ])
        .expose_headers([actix_web::http::header::HeaderName::from_static(
            "x-request-id",
        )])
        .supports_credentials()
        // A foreign origin gets no CORS headers rather than actix-cors's plain-text 400; the
        // CSRF check answers its cookie-authenticated writes with a 403 in the contract's shape.
        .block_on_origin_mismatch(false)
        .max_age(600)
}
