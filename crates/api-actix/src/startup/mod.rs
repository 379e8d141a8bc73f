//! Wiring: opens the database (running migrations), builds the adapters and services into the
//! app data the handlers take (with the metrics registry), binds the listener and assembles the server
//! with its middleware. `services.rs` wires the use cases, `adapters.rs` the adapters the
//! settings choose, `server.rs` the HTTP server.

pub mod adapters;
mod server;
mod services;

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;

use actix_web::dev::Server;
use actix_web::web;
use adapters_diesel::{Database, DieselActivityRepository};
use anyhow::Context;
use credentials::Operator;
use credentials::cache::CredentialCache;
use credentials::jwt::JwtKeys;
use secrecy::ExposeSecret;
use service_metrics::Metrics;

pub use adapters::OPERATOR_SUBJECT;

use crate::activity::ActivityWriter;
use crate::auth::cookies::CookieJar;
use crate::auth::csrf::TrustedOrigins;
use crate::middleware::client_ip::ForwardedFor;
use crate::middleware::rate_limit::RateLimits;
use crate::openapi;
use crate::routes::method_table::MethodTable;
use crate::service_types::{Accounts, Authenticator, Integration};
use crate::state::{EmailAvailable, MetricsToken, SignIn};
use server::Shared;
use services::Services;
use settings::api::ApiSettings as Settings;
use workers::{DeliveryWorker, ReclassifyWorker};

/// A built, bound, not yet running service.
#[allow(missing_debug_implementations)] // actix's `Server` has no Debug
pub struct Application {
    port: u16,
    server: Server,
    activity: ActivityWriter,
    /// `None` with `DELIVERY_WORKER=false`.
    delivery_worker: Option<DeliveryWorker>,
    reclassify_worker: ReclassifyWorker,
}

impl Application {
    /// Connects to the database (migrating it), binds `settings.bind_addr` (port 0 picks a free
    /// one) and builds the server. The identity provider may still be down: discovery is retried
    /// on first sign-in.
    ///
    /// # Errors
    /// When the database cannot be opened or migrated, or the address cannot be bound.
    pub async fn build(mut settings: Settings) -> anyhow::Result<Self> {
        let db = open_database(&settings).await?;
        let listener = TcpListener::bind(settings.bind_addr)
            .with_context(|| format!("binding {}", settings.bind_addr))?;
        let address = listener.local_addr()?;
        if settings.auth.jwt_secret_is_ephemeral {
            tracing::warn!(
                "JWT_SECRET is not set: using a random secret, so sessions end when the process stops (dev mode)"
            );
        }
        let metrics = Arc::new(
            Metrics::new(settings.database.max_connections, activity_log::CAPACITY)
                .context("the metrics registry")?,
        );
        let services = Services::wire(&settings, &db, &metrics)?;
        let reclassify_worker = ReclassifyWorker::spawn(
            Integration::clone(&services.integration),
            db.reclassification_queued(),
        );
        let delivery_worker = settings.delivery.worker.then(|| {
            DeliveryWorker::spawn(
                services.deliveries.clone().into_inner(),
                Arc::clone(&metrics),
            )
        });
        let operator = adapters::operator(&mut settings, &services.accounts).await?;
        let (activity_queue, activity_writer) = ActivityWriter::spawn(
            DieselActivityRepository::new(db.clone()),
            metrics.activity_counters(),
        );
        let auth = authenticator(&settings, Accounts::clone(&services.accounts), operator);
        let origins = TrustedOrigins::new(settings.trusted_origins(address.port()));
        let shared = Shared {
            // One set of limits for every worker, or each would grant the whole budget again.
            rate_limits: web::Data::new(RateLimits::new(&settings.rate_limits)),
            auth: web::Data::new(auth),
            origins: web::Data::new(origins),
            activity_queue: web::Data::new(activity_queue),
            metrics: web::Data::from(metrics),
            forwarded_for: ForwardedFor {
                trusted: settings.rate_limits.trust_forwarded_for,
            },
            method_table: web::Data::new(MethodTable::of(openapi::document())),
            // A broken template stops start-up here; the reference shows the served document.
            pages: web::Data::new(site::Pages::assemble(
                &site::web_dir(),
                openapi::document(),
            )?),
            hsts: settings.public_base_url.starts_with("https://"),
            cors_allowed_origins: settings.auth.cors_allowed_origins.clone(),
            cookies: web::Data::new(CookieJar {
                secure: settings.auth.cookie_secure,
            }),
            mail: web::Data::new(EmailAvailable(settings.delivery.smtp.is_some())),
            metrics_token: web::Data::new(MetricsToken(settings.auth.metrics_token.clone())),
            activity: web::Data::new(DieselActivityRepository::new(db.clone())),
            sign_in: web::Data::new(sign_in(settings, &db, address)?),
            db: web::Data::new(db),
            services,
        };
        Ok(Self {
            port: address.port(),
            server: server::serve(listener, shared)?,
            activity: activity_writer,
            delivery_worker,
            reclassify_worker,
        })
    }

    #[must_use]
    pub const fn port(&self) -> u16 {
        self.port
    }

    /// Serves until SIGINT or SIGTERM: in-flight requests finish, then the activity queue is
    /// written out before this returns.
    ///
    /// # Errors
    /// When the server fails.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let served = self.server.await;
        if let Some(worker) = self.delivery_worker {
            worker.shutdown().await;
        }
        self.reclassify_worker.shutdown().await;
        let written = self.activity.shutdown().await;
        tracing::info!(activity_entries_written = written, "stopped");
        served
    }
}

/// Opens the database of the settings, running its migrations, off the async workers.
async fn open_database(settings: &Settings) -> anyhow::Result<Database> {
    let config = adapters::db_config(&settings.database);
    tokio::task::spawn_blocking(move || Database::connect(&config))
        .await
        .context("opening the database")?
        .context("opening the database")
}

/// The credential checks: the token keys, the cache's expiry, the operator and the admins.
fn authenticator(
    settings: &Settings,
    accounts: Accounts,
    operator: Option<Operator>,
) -> Authenticator {
    let auth = &settings.auth;
    Authenticator {
        store: accounts,
        jwt: JwtKeys::new(
            auth.jwt_secret.expose_secret(),
            auth.jwt_issuer.clone(),
            auth.jwt_audience.clone(),
        ),
        cache: CredentialCache::new(std::time::Duration::from_secs(auth.cache_seconds)),
        operator,
        admin_emails: auth.admin_emails.clone(),
    }
}

/// What the sign-in routes read; logs what the service is about to listen as.
fn sign_in(settings: Settings, db: &Database, address: SocketAddr) -> anyhow::Result<SignIn> {
    let identity = settings
        .oidc
        .as_ref()
        .map(adapters::identity_provider)
        .transpose()?;
    let dev_login = settings.auth.dev_login && address.ip().is_loopback();
    if settings.auth.dev_login && !dev_login {
        tracing::warn!("AUTH_DEV_LOGIN is ignored: dev login only works on a loopback address");
    }
    tracing::info!(%address, backend = ?db.backend(), dev = settings.dev, sign_in = identity.is_some(), dev_login, "listening");
    Ok(SignIn {
        trust_forwarded_for: settings.rate_limits.trust_forwarded_for,
        settings: settings.auth,
        identity,
        dev_login,
    })
}
