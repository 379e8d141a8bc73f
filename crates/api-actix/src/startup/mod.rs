//! Wiring: opens the database (running migrations), builds the adapters and services into the
//! application state (with the metrics registry), binds the listener and assembles the server
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
use service_metrics::Metrics;

pub use adapters::OPERATOR_SUBJECT;

use crate::activity::{self, ActivityWriter};
use crate::auth::cookies::CookieJar;
use crate::auth::csrf::TrustedOrigins;
use crate::delivery_worker::DeliveryWorker;
use crate::middleware::client_ip::ForwardedFor;
use crate::middleware::rate_limit::RateLimits;
use crate::pages::Pages;
use crate::reclassify_worker::ReclassifyWorker;
use crate::routes::method_table::MethodTable;
use crate::service_types::{Accounts, Authenticator};
use crate::state::AppState;
use crate::{openapi, routes};
use server::Shared;
use services::Services;
use settings::api::ApiSettings as Settings;

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
            Metrics::new(settings.database.max_connections, activity::queue::CAPACITY)
                .context("the metrics registry")?,
        );
        let services = Services::wire(&settings, &db, &metrics)?;
        let reclassify_worker =
            ReclassifyWorker::spawn(services.integration.clone(), db.reclassification_queued());
        let delivery_worker = settings
            .delivery
            .worker
            .then(|| DeliveryWorker::spawn(Arc::clone(&services.deliveries), Arc::clone(&metrics)));
        let operator = adapters::operator(&mut settings, &services.accounts).await?;
        let (activity_queue, activity_writer) = ActivityWriter::spawn(
            DieselActivityRepository::new(db.clone()),
            metrics.activity_counters(),
        );
        let auth = Arc::new(authenticator(
            &settings,
            services.accounts.clone(),
            operator,
        ));
        let origins = Arc::new(TrustedOrigins::new(
            settings.trusted_origins(address.port()),
        ));
        let state = app_state(settings, db, services, address, &metrics, (&auth, &origins))?;
        let shared = Shared {
            // One set of limits for every worker, or each would grant the whole budget again.
            rate_limits: web::Data::new(RateLimits::new(&state.settings.rate_limits)),
            auth: web::Data::from(auth),
            origins: web::Data::from(origins),
            activity_queue: web::Data::new(activity_queue),
            metrics: web::Data::from(metrics),
            forwarded_for: ForwardedFor {
                trusted: state.settings.rate_limits.trust_forwarded_for,
            },
            method_table: web::Data::new(MethodTable::of(openapi::document())),
            // A broken template stops start-up here.
            pages: web::Data::new(Pages::assemble(&routes::web::web_dir())?),
            state: web::Data::new(state),
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
            &auth.jwt_secret,
            auth.jwt_issuer.clone(),
            auth.jwt_audience.clone(),
        ),
        cache: CredentialCache::new(std::time::Duration::from_secs(auth.cache_seconds)),
        operator,
        admin_emails: auth.admin_emails.clone(),
    }
}

/// Everything a handler may need; logs what the service is about to listen as.
fn app_state(
    settings: Settings,
    db: Database,
    services: Services,
    address: SocketAddr,
    metrics: &Arc<Metrics>,
    (auth, origins): (&Arc<Authenticator>, &Arc<TrustedOrigins>),
) -> anyhow::Result<AppState> {
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
    Ok(AppState {
        auth: Arc::clone(auth),
        origins: Arc::clone(origins),
        cookies: CookieJar {
            secure: settings.auth.cookie_secure,
        },
        activity: DieselActivityRepository::new(db.clone()),
        metrics: Arc::clone(metrics),
        accounts: services.accounts,
        discovery: services.discovery,
        profiles: services.profiles,
        coaching: services.coaching,
        integration: services.integration,
        notifications: services.notifications,
        deliveries: services.deliveries,
        links: services.links,
        language_model: services.language_model,
        identity,
        dev_login,
        db,
        settings,
    })
}
