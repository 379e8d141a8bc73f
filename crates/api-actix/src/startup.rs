//! Wiring: opens the database (running migrations), builds the adapters and services into the
//! application state (with the metrics registry), binds the listener and assembles the server
//! with its middleware.

use std::net::TcpListener;
use std::sync::Arc;

use actix_web::dev::Server;
use actix_web::http::header;
use actix_web::middleware::{Compat, DefaultHeaders, from_fn};
use actix_web::{App, HttpServer, web};
use adapters_delivery::{SignedLinks, SmtpMailer, WebhookClient};
use adapters_diesel::{
    Database, DieselActivityRepository, DieselApiKeyRepository, DieselCheckInRepository,
    DieselConversationRepository, DieselDeliveryQueue, DieselNotificationRepository,
    DieselPreferencesRepository, DieselProfileRepository, DieselReflectionRepository,
    DieselRuleRepository, DieselSessionRepository, DieselTaskMappingRepository,
    DieselUserRepository,
};
use adapters_llm::{LanguageModel, OfflineEngine, OpenAiClient};
use adapters_oidc::{ClientSecret, OidcConfig, OidcProvider};
use anyhow::Context;
use credentials::Operator;
use credentials::cache::CredentialCache;
use credentials::jwt::JwtKeys;
use domain::account::{Email, LoginIdentity};
use domain::clock::SystemClock;
use domain::ports::IdentityProvider;
use domain::services::{
    AccountService, CoachingService, DeliveryService, DiscoveryService, IntegrationService,
    NotificationService, ProfileService,
};
use tracing_actix_web::TracingLogger;

use crate::activity::{self, ActivityWriter};
use crate::auth::cookies::CookieJar;
use crate::auth::csrf::TrustedOrigins;
use crate::config::{LlmProvider, OidcSettings, Settings};
use crate::delivery_worker::DeliveryWorker;
use crate::middleware::client_ip::ForwardedFor;
use crate::middleware::rate_limit::{self, RateLimits};
use crate::middleware::request_id;
use crate::pages::Pages;
use crate::reclassify_worker::ReclassifyWorker;
use crate::routes::method_table::MethodTable;
use crate::service_types::Authenticator;
use crate::state::AppState;
use crate::{auth, extract, middleware, openapi, routes, telemetry};
use service_metrics::MeteredModel;
use service_metrics::Metrics;

/// The synthetic user the operator key (`API_KEY`) acts as.
pub const OPERATOR_SUBJECT: &str = "api-key-admin";

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
        let config = settings.database.clone();
        let db = tokio::task::spawn_blocking(move || Database::connect(&config))
            .await
            .context("opening the database")?
            .context("opening the database")?;
        let listener = TcpListener::bind(settings.bind_addr)
            .with_context(|| format!("binding {}", settings.bind_addr))?;
        let address = listener.local_addr()?;
        if settings.auth.jwt_secret_is_ephemeral {
            tracing::warn!(
                "JWT_SECRET is not set: using a random secret, so sessions end when the process stops (dev mode)"
            );
        }

        let refresh_ttl = time::Duration::seconds(settings.auth.refresh_ttl_seconds);
        let accounts = AccountService::new(
            DieselUserRepository::new(db.clone()),
            DieselSessionRepository::new(db.clone()),
            DieselApiKeyRepository::new(db.clone()),
            SystemClock,
            refresh_ttl,
        )
        .with_session_limits(
            time::Duration::seconds(settings.auth.refresh_reuse_grace_seconds),
            time::Duration::seconds(settings.auth.session_idle_timeout_seconds),
        );
        let metrics = Arc::new(
            Metrics::new(settings.database.max_connections, activity::queue::CAPACITY)
                .context("the metrics registry")?,
        );
        let language_model = language_model(&settings.llm_provider)?;
        let metered_model = MeteredModel::new(language_model.clone(), Arc::clone(&metrics));
        // One repository for the three services, so that their profile reads share one queue
        // (reads that arrive together share a statement: adapters-diesel `read_group.rs`).
        let profile_repository = DieselProfileRepository::new(db.clone());
        let discovery = DiscoveryService::new(
            DieselConversationRepository::new(db.clone()),
            profile_repository.clone(),
            metered_model.clone(),
            SystemClock,
        );
        let profiles = ProfileService::new(
            profile_repository.clone(),
            DieselReflectionRepository::new(db.clone()),
            metered_model,
            DieselPreferencesRepository::new(db.clone()),
            SystemClock,
        );
        let coaching = CoachingService::new(
            profile_repository,
            DieselPreferencesRepository::new(db.clone()),
            DieselCheckInRepository::new(db.clone()),
            DieselTaskMappingRepository::new(db.clone()),
            SystemClock,
        );
        let integration = IntegrationService::new(
            DieselTaskMappingRepository::new(db.clone()),
            DieselRuleRepository::new(db.clone()),
            SystemClock,
        );
        let reclassify_worker =
            ReclassifyWorker::spawn(integration.clone(), db.reclassification_queued());
        let allow_private = settings.delivery.webhook_allow_private;
        if allow_private {
            tracing::warn!(
                "WEBHOOK_ALLOW_PRIVATE is on: webhooks may go to plain http and private addresses"
            );
        }
        let webhook_client = WebhookClient::new(allow_private).context("the webhook client")?;
        let notifications = NotificationService::new(
            DieselNotificationRepository::new(db.clone()),
            webhook_client.clone(),
            SystemClock,
            allow_private,
        );
        let mailer = match &settings.delivery.smtp {
            None => None,
            Some(smtp) => Some(SmtpMailer::from_url(&smtp.url, &smtp.from)?),
        };
        let links = SignedLinks::new(&settings.public_base_url, &settings.auth.jwt_secret);
        let deliveries = Arc::new(DeliveryService::new(
            DieselDeliveryQueue::new(db.clone()),
            webhook_client,
            mailer,
            links.clone(),
            SystemClock,
        ));
        let delivery_worker = settings
            .delivery
            .worker
            .then(|| DeliveryWorker::spawn(Arc::clone(&deliveries), Arc::clone(&metrics)));
        // Taken out of the settings: only its digest stays in memory.
        let operator = match settings.auth.api_key.take() {
            None => None,
            Some(key) => Some(Operator {
                key_digest: credentials::secrets::digest(&key),
                user: accounts.ensure_user(&operator_identity()?).await?,
            }),
        };
        let identity = match &settings.oidc {
            None => None,
            Some(oidc) => Some(identity_provider(oidc)?),
        };
        let (activity_queue, activity_writer) = ActivityWriter::spawn(
            DieselActivityRepository::new(db.clone()),
            metrics.activity_counters(),
        );
        let dev_login = settings.auth.dev_login && address.ip().is_loopback();
        if settings.auth.dev_login && !dev_login {
            tracing::warn!("AUTH_DEV_LOGIN is ignored: dev login only works on a loopback address");
        }
        tracing::info!(%address, backend = ?db.backend(), dev = settings.dev, sign_in = identity.is_some(), dev_login, "listening");
        // One set of limits for every worker, or each would grant the whole budget again.
        let rate_limits = web::Data::new(RateLimits::new(&settings.rate_limits));

        let auth = Arc::new(Authenticator {
            store: accounts.clone(),
            jwt: JwtKeys::new(
                &settings.auth.jwt_secret,
                settings.auth.jwt_issuer.clone(),
                settings.auth.jwt_audience.clone(),
            ),
            cache: CredentialCache::new(std::time::Duration::from_secs(
                settings.auth.cache_seconds,
            )),
            operator,
            admin_emails: settings.auth.admin_emails.clone(),
        });
        let origins = Arc::new(TrustedOrigins::new(
            settings.trusted_origins(address.port()),
        ));
        let state = web::Data::new(AppState {
            auth: Arc::clone(&auth),
            origins: Arc::clone(&origins),
            cookies: CookieJar {
                secure: settings.auth.cookie_secure,
            },
            activity: DieselActivityRepository::new(db.clone()),
            metrics: metrics.clone(),
            accounts,
            discovery,
            profiles,
            coaching,
            integration,
            notifications,
            deliveries,
            links,
            language_model,
            identity,
            dev_login,
            db,
            settings,
        });
        // What the middlewares need, each as app data of its own rather than the whole state.
        let auth = web::Data::from(auth);
        let origins = web::Data::from(origins);
        let activity_queue = web::Data::new(activity_queue);
        let metrics = web::Data::from(metrics);
        let forwarded_for = ForwardedFor {
            trusted: state.settings.rate_limits.trust_forwarded_for,
        };
        // Every page, assembled from web/ once: a broken template stops start-up here.
        let pages = web::Data::new(Pages::assemble(&routes::web::web_dir())?);
        // The 404/405 fallback's list of documented paths and methods, read once.
        let method_table = web::Data::new(MethodTable::of(openapi::document()));
        let hsts = state.settings.public_base_url.starts_with("https://");
        let server = HttpServer::new(move || {
            App::new()
                .app_data(state.clone())
                .app_data(rate_limits.clone())
                .app_data(auth.clone())
                .app_data(origins.clone())
                .app_data(activity_queue.clone())
                .app_data(metrics.clone())
                .app_data(forwarded_for)
                .app_data(method_table.clone())
                // The fallback answers a browser's 404 with the site's own page.
                .app_data(pages.clone())
                .app_data(extract::payload_config())
                .app_data(extract::query_config())
                .app_data(extract::path_config())
                .configure(|cfg| routes::configure(cfg, state.dev_login))
                .configure(openapi::viewer::configure)
                // Last: the pages and their files, so every API path above wins.
                .configure(|cfg| routes::web::configure(cfg, &pages))
                .default_service(web::to(routes::fallback::not_found))
                // Inside authentication (coach calls are limited per person) and inside the
                // activity log (a refused request is still recorded).
                .wrap(from_fn(rate_limit::limit))
                .wrap(from_fn(auth::caller::authenticate_request))
                .wrap(from_fn(activity::middleware::record))
                .wrap(cors(&state.settings.auth.cors_allowed_origins))
                .wrap(Compat::new(
                    TracingLogger::<telemetry::PathOnlyRootSpan>::new(),
                ))
                .wrap(from_fn(request_id::request_id))
                .wrap(security_headers(hsts))
                // Outermost: every answer is counted, whichever layer gave it.
                .wrap(from_fn(middleware::metrics::record))
        })
        .listen(listener)?
        .run();
        Ok(Self {
            port: address.port(),
            server,
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

/// The extractor and coach of `LLM_PROVIDER`. One value (cheap to clone) serves both services,
/// so an OpenAI-compatible client shares its connections and what it learnt about structured
/// outputs.
fn language_model(provider: &LlmProvider) -> anyhow::Result<LanguageModel> {
    match provider {
        LlmProvider::Offline => {
            tracing::info!(
                provider = "offline",
                "language model: the offline engine; nothing leaves the server"
            );
            Ok(LanguageModel::Offline(OfflineEngine))
        }
        LlmProvider::OpenAi(config) => {
            if config.sends_in_clear_text() {
                tracing::warn!(
                    base_url = %config.base_url,
                    "LLM_BASE_URL is plain http to another machine: the person's answers and profile travel unencrypted"
                );
            }
            let client = OpenAiClient::new(config.clone()).context("the language-model client")?;
            tracing::info!(
                provider = "openai",
                endpoint = %client.endpoint(),
                model = %config.model,
                timeout_seconds = config.timeout.as_secs(),
                api_key = config.api_key.is_some(),
                "language model: an OpenAI-compatible endpoint"
            );
            Ok(LanguageModel::OpenAi(client))
        }
    }
}

fn operator_identity() -> anyhow::Result<LoginIdentity> {
    Ok(LoginIdentity {
        issuer: "urn:discovery:operator".to_owned(),
        subject: OPERATOR_SUBJECT.to_owned(),
        email: Email::new("api-key-admin@localhost").context("operator e-mail")?,
        name: Some(OPERATOR_SUBJECT.to_owned()),
    })
}

fn identity_provider(oidc: &OidcSettings) -> anyhow::Result<Arc<dyn IdentityProvider>> {
    let config = OidcConfig::new(
        oidc.issuer_url.clone(),
        oidc.client_id.clone(),
        ClientSecret::new(oidc.client_secret.clone()),
        oidc.redirect_uri.clone(),
    );
    let provider = OidcProvider::new(config).context("OIDC settings")?;
    Ok(Arc::new(provider))
}
