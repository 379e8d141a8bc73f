//! The app data handlers take, one piece per concern, so a handler's arguments say what it
//! uses: the use cases (`service_types`), the database (health and metrics), and the small
//! values below. `startup` registers each once; a handler asking for one that is not
//! registered fails its test with actix's "app data is not configured" 500.

use std::sync::Arc;

use domain::ports::IdentityProvider;
use secrecy::SecretString;
use settings::api::AuthSettings;

/// What the sign-in routes read besides the account use cases and the credential checks.
pub struct SignIn {
    /// The sign-in settings: allowed e-mail domains, where to go after sign-in, token lifetimes.
    pub settings: AuthSettings,
    /// The identity provider (`OIDC_*`), when one is set up.
    pub identity: Option<Arc<dyn IdentityProvider>>,
    /// Whether dev login may be used: enabled and bound to loopback.
    pub dev_login: bool,
    /// Whether the client's address is read from `X-Forwarded-For` (`TRUST_FORWARDED_FOR`), for
    /// the device a session is opened from.
    pub trust_forwarded_for: bool,
}

impl std::fmt::Debug for SignIn {
    /// By hand only because the identity provider is a trait object without `Debug`; the
    /// settings' secrets are secrecy types, which print none of themselves.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignIn")
            .field("settings", &self.settings)
            .field("identity", &self.identity.is_some())
            .field("dev_login", &self.dev_login)
            .field("trust_forwarded_for", &self.trust_forwarded_for)
            .finish()
    }
}

/// Whether this server sends e-mail (`SMTP_URL` is set).
#[derive(Debug, Clone, Copy)]
pub struct EmailAvailable(pub bool);

/// The token a scrape of `/metrics` must present (`METRICS_TOKEN`); `None` leaves it open. A
/// secret: `Debug` shows none of it.
#[derive(Debug, Clone)]
pub struct MetricsToken(pub Option<SecretString>);
