//! The application state shared by every worker: the use-case services over the concrete
//! adapters, the credential checks, the cookie settings of sign-in and the metrics.

use std::sync::Arc;

use adapters_delivery::SignedLinks;
use adapters_diesel::{Database, DieselActivityRepository};
use adapters_llm::LanguageModel;
use domain::ports::IdentityProvider;

use crate::auth::cookies::CookieJar;
use crate::auth::csrf::TrustedOrigins;
use crate::service_types::{
    Accounts, Authenticator, Coaching, Deliveries, Discovery, Integration, Notifications, Profiles,
};
use service_metrics::Metrics;
use settings::api::ApiSettings as Settings;

/// Everything a handler may need.
pub struct AppState {
    pub settings: Settings,
    pub db: Database,
    pub accounts: Accounts,
    pub discovery: Discovery,
    pub profiles: Profiles,
    pub coaching: Coaching,
    pub integration: Integration,
    pub notifications: Notifications,
    /// The delivery worker's use case (the in-process worker, and the outbox's metrics).
    pub deliveries: Arc<Deliveries>,
    /// Checks the tokens of the e-mails' one-click unsubscribe links.
    pub links: SignedLinks,
    /// The extractor and coach the services use (`LLM_PROVIDER`), for the request preview.
    pub language_model: LanguageModel,
    pub activity: DieselActivityRepository,
    /// The instruments rendered at `/metrics`.
    pub metrics: Arc<Metrics>,
    pub identity: Option<Arc<dyn IdentityProvider>>,
    /// The token keys, the credential cache and the admins; also the authentication
    /// middleware's own app data.
    pub auth: Arc<Authenticator>,
    /// The origins whose pages may write with the session cookie (also the middleware's).
    pub origins: Arc<TrustedOrigins>,
    pub cookies: CookieJar,
    /// Whether dev login may be used: enabled and bound to loopback.
    pub dev_login: bool,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl AppState {
    /// Whether this server sends e-mail (`SMTP_URL` is set).
    #[must_use]
    pub fn email_available(&self) -> bool {
        self.settings.delivery.smtp.is_some()
    }
}
