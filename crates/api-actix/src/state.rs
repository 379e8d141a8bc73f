//! The application state shared by every worker: the use-case services over the concrete
//! adapters, the keys and cookie settings of sign-in, the activity queue and the metrics.

use std::sync::Arc;

use adapters_diesel::{
    Database, DieselActivityRepository, DieselApiKeyRepository, DieselCheckInRepository,
    DieselConversationRepository, DieselPreferencesRepository, DieselProfileRepository,
    DieselReflectionRepository, DieselSessionRepository, DieselTaskMappingRepository,
    DieselUserRepository,
};
use adapters_llm::LanguageModel;
use domain::account::{Email, User};
use domain::clock::SystemClock;
use domain::ports::IdentityProvider;
use domain::services::{
    AccountService, CoachingService, DiscoveryService, IntegrationService, ProfileService,
};

use crate::auth::cache::CredentialCache;
use crate::auth::cookies::CookieJar;
use crate::auth::csrf::TrustedOrigins;
use crate::auth::jwt::JwtKeys;
use crate::auth::secrets::SecretDigest;
use crate::config::Settings;
use crate::metrics::Metrics;
use crate::metrics::model::MeteredModel;

pub type Accounts = AccountService<
    DieselUserRepository,
    DieselSessionRepository,
    DieselApiKeyRepository,
    SystemClock,
>;

pub type Discovery = DiscoveryService<
    DieselConversationRepository,
    DieselProfileRepository,
    MeteredModel,
    SystemClock,
>;

pub type Profiles = ProfileService<
    DieselProfileRepository,
    DieselReflectionRepository,
    MeteredModel,
    DieselPreferencesRepository,
    SystemClock,
>;

pub type Coaching = CoachingService<
    DieselProfileRepository,
    DieselPreferencesRepository,
    DieselCheckInRepository,
    DieselTaskMappingRepository,
    SystemClock,
>;

pub type Integration = IntegrationService<DieselTaskMappingRepository, SystemClock>;

/// The operator key (only its SHA-256 is kept, computed once) and the synthetic admin user it
/// acts as.
#[derive(Clone)]
pub struct Operator {
    pub key_digest: SecretDigest,
    pub user: User,
}

impl std::fmt::Debug for Operator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Operator")
            .field("user", &self.user.id)
            .finish_non_exhaustive()
    }
}

/// Everything a handler may need.
pub struct AppState {
    pub settings: Settings,
    pub db: Database,
    pub accounts: Accounts,
    pub discovery: Discovery,
    pub profiles: Profiles,
    pub coaching: Coaching,
    pub integration: Integration,
    /// The extractor and coach the services use (`LLM_PROVIDER`), for the request preview.
    pub language_model: LanguageModel,
    pub activity: DieselActivityRepository,
    /// The instruments rendered at `/metrics`.
    pub metrics: Arc<Metrics>,
    pub identity: Option<Arc<dyn IdentityProvider>>,
    pub operator: Option<Operator>,
    pub jwt: JwtKeys,
    /// Credentials checked recently, so most requests need no database read to authenticate.
    pub credentials: CredentialCache,
    pub cookies: CookieJar,
    pub origins: TrustedOrigins,
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
    /// Admins: the e-mails of `ADMIN_EMAILS` (and the operator, checked by the caller).
    #[must_use]
    pub fn is_admin(&self, email: &Email) -> bool {
        self.settings
            .auth
            .admin_emails
            .iter()
            .any(|a| a == email.as_str())
    }
}
