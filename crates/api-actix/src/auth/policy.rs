//! Least privilege (docs/api.md): who may call a route, stated in the route's own declaration
//! (`routes::declaration::Route`), which mounts it with its policy. The `Caller` extractor reads
//! the policy of the route the request matched; a route mounted without one lets no caller in.
//! The policy is the route's only access declaration: the OpenAPI `security` of its operation
//! ([`Policy::security`]), the least-privilege test's expectation and the scope matrix are
//! derived from it.

use actix_web::http::Method;
use domain::account::KeyScope;
use utoipa::openapi::security::SecurityRequirement;

/// The document's name of the `X-API-Key` scheme (a personal key or the operator key).
pub const API_KEY_SCHEME: &str = "api_key";
/// The document's name of the `Authorization: Bearer` scheme (the access token).
pub const BEARER_SCHEME: &str = "bearer";
/// The document's name of the session cookie scheme (`ds_access`).
pub const COOKIE_SCHEME: &str = "cookie";

/// Who may call one route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Anyone: the route takes no caller (health, sign-in, the one-click unsubscribe).
    Public,
    /// Any signed-in caller except a personal API key (the admin routes check the admin role
    /// besides).
    SignedIn,
    /// Any signed-in caller, a personal API key too when it holds this scope.
    Key(KeyScope),
    /// Only the person's own browser session: a route that manages credentials or the account,
    /// which a key or a Bearer token (either may have been copied) must not mint, revoke or
    /// export.
    Session,
}

impl Policy {
    /// The scope a personal key needs; `None` when no personal key may call the route.
    #[must_use]
    pub const fn key_scope(self) -> Option<KeyScope> {
        match self {
            Self::Key(scope) => Some(scope),
            Self::Public | Self::SignedIn | Self::Session => None,
        }
    }

    /// Whether only the session cookie may call the route.
    #[must_use]
    pub const fn needs_session(self) -> bool {
        matches!(self, Self::Session)
    }

    /// The schemes the route's operation documents, any one of which will do (in the order
    /// credentials are tried); `None` for a public route, which documents none.
    #[must_use]
    pub fn security(self) -> Option<Vec<SecurityRequirement>> {
        let schemes: &[&str] = match self {
            Self::Public => return None,
            Self::Session => &[COOKIE_SCHEME],
            Self::SignedIn | Self::Key(_) => &[API_KEY_SCHEME, BEARER_SCHEME, COOKIE_SCHEME],
        };
        Some(
            schemes
                .iter()
                .map(|scheme| SecurityRequirement::new(*scheme, Vec::<String>::new()))
                .collect(),
        )
    }
}

/// The policies of the routes of one resource, by method: the resource's data, which the
/// `Caller` extractor reads for the request's method.
#[derive(Debug, Clone)]
pub struct RoutePolicies(Vec<(Method, Policy)>);

impl RoutePolicies {
    #[must_use]
    pub const fn new(policies: Vec<(Method, Policy)>) -> Self {
        Self(policies)
    }

    /// The policy of the route that answers `method`; `None` on a route mounted without one.
    #[must_use]
    pub fn of(&self, method: &Method) -> Option<Policy> {
        self.0
            .iter()
            .find(|(declared, _)| declared == method)
            .map(|(_, policy)| *policy)
    }
}
