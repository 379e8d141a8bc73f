//! What checking a credential needs, and nothing else of the application state: the account
//! use cases (keys and sessions in the database), the token keys, the cache of recently checked
//! credentials, the operator key, the trusted origins and the admins. The authentication
//! middleware takes this as app data of its own; the routes reach it through the state.

use domain::account::User;

use super::cache::CredentialCache;
use super::csrf::TrustedOrigins;
use super::jwt::JwtKeys;
use super::secrets::SecretDigest;
use crate::service_types::Accounts;

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

/// The issuer recorded for people who signed in through dev login.
pub const DEV_LOGIN_ISSUER: &str = "urn:discovery:dev-login";

/// The credential checks' dependencies.
pub struct Authenticator {
    pub accounts: Accounts,
    pub jwt: JwtKeys,
    /// Credentials checked recently, so most requests need no database read to authenticate.
    pub credentials: CredentialCache,
    pub operator: Option<Operator>,
    pub origins: TrustedOrigins,
    /// `ADMIN_EMAILS`, as configured (lower-cased).
    pub admin_emails: Vec<String>,
}

impl std::fmt::Debug for Authenticator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authenticator")
            .field("operator", &self.operator)
            .field("origins", &self.origins)
            .finish_non_exhaustive()
    }
}

impl Authenticator {
    /// Admins: the people whose e-mail, as their identity provider verified it, is in
    /// `ADMIN_EMAILS` exactly (both folded in ASCII only: `Email`). Someone signed in through dev
    /// login never is, whatever address they typed (the operator is checked by the caller).
    #[must_use]
    pub fn is_admin(&self, user: &User) -> bool {
        user.issuer != DEV_LOGIN_ISSUER
            && self.admin_emails.iter().any(|a| a == user.email.as_str())
    }
}
