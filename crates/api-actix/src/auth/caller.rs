//! The authenticated caller of a request. A middleware resolves the credentials before any
//! handler runs, in the contract's order — `X-API-Key`, then `Authorization: Bearer`, then the
//! `ds_access` cookie (whose unsafe requests must also pass the CSRF check) — and a credential
//! that is present but invalid is a 401 without falling through to the next kind.

use std::future::{Ready, ready};

use actix_web::body::MessageBody;
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::middleware::Next;
use actix_web::{FromRequest, HttpMessage, HttpRequest, web};
use domain::account::{KeyScopes, Source};
use domain::ids::{SessionId, UserId};

use credentials::CheckError;

use super::cookies;
use super::csrf::TrustedOrigins;
use super::policy::RoutePolicies;
use crate::error::ApiError;
use crate::service_types::Authenticator;

/// Who is calling, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caller {
    pub user_id: UserId,
    pub is_admin: bool,
    pub source: Source,
    /// The session of a JWT credential (absent for API keys).
    pub session_id: Option<SessionId>,
    /// The scopes of a personal API key (absent for every other credential).
    pub key_scopes: Option<KeyScopes>,
}

impl Caller {
    /// Least privilege: a personal key only within the scopes the route's policy names, and
    /// credential or account management only with the session cookie. The policy comes with the
    /// route's declaration (`routes::declaration`); a route mounted without one lets no caller
    /// in, so a route cannot be opened by forgetting to say who may call it.
    ///
    /// # Errors
    /// 403 `session_required` or `insufficient_scope`; 403 `forbidden` on a route without a
    /// policy.
    fn may_call(&self, req: &HttpRequest) -> Result<(), ApiError> {
        let Some(policy) = req
            .app_data::<RoutePolicies>()
            .and_then(|policies| policies.of(req.method()))
        else {
            return Err(ApiError::Forbidden("This route declares no access policy."));
        };
        if policy.needs_session() && self.source != Source::Web {
            return Err(ApiError::SessionRequired);
        }
        if let Some(scopes) = self.key_scopes
            && !policy.key_scope().is_some_and(|s| scopes.allows(s))
        {
            return Err(ApiError::InsufficientScope);
        }
        Ok(())
    }
}

/// A caller who must be an admin (403 otherwise).
#[derive(Debug, Clone, Copy)]
pub struct AdminCaller(pub Caller);

/// The header personal and operator keys come in.
pub const API_KEY_HEADER: &str = "x-api-key";

/// Why the credentials of a request were refused, kept for the `Caller` extractor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Denied {
    Unauthenticated,
    CrossSite,
    Unavailable,
    Failed,
}

/// The caller as identified, even when the request is then refused (CSRF), for the activity log.
#[derive(Debug, Clone, Copy)]
pub struct Identified(pub Caller);

// `/metrics` checks its own `METRICS_TOKEN`, which is no person's credential.
const UNAUTHENTICATED_PATHS: [&str; 3] = ["/healthz", "/readyz", "/metrics"];

/// Resolves the credentials of every request before its handler runs, so a bad credential is a
/// 401 whatever else is wrong with the request, and the activity log knows who asked.
pub async fn authenticate_request(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    if !UNAUTHENTICATED_PATHS.contains(&req.path())
        && let Some(auth) = req.app_data::<web::Data<Authenticator>>().cloned()
        && let Some(origins) = req.app_data::<web::Data<TrustedOrigins>>().cloned()
        && has_credentials(req.request())
    {
        match authenticate(&auth, req.request()).await {
            Ok(caller) => {
                req.extensions_mut().insert(Identified(caller));
                if caller.source == Source::Web && !origins.allows(req.request()) {
                    req.extensions_mut().insert(Denied::CrossSite);
                } else {
                    req.extensions_mut().insert(caller);
                }
            }
            Err(e) => {
                let denied = match e {
                    ApiError::Unauthenticated => Denied::Unauthenticated,
                    ApiError::Unavailable(cause) => {
                        tracing::warn!(error = %format!("{cause:#}"), "credentials could not be checked");
                        Denied::Unavailable
                    }
                    other => {
                        tracing::error!(error = %other.for_log(), "credentials could not be checked");
                        Denied::Failed
                    }
                };
                req.extensions_mut().insert(denied);
            }
        }
    }
    next.call(req).await
}

fn has_credentials(req: &HttpRequest) -> bool {
    req.headers().contains_key(API_KEY_HEADER)
        || req.headers().contains_key(header::AUTHORIZATION)
        || req.cookie(cookies::ACCESS).is_some()
}

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let extensions = req.extensions();
        ready(
            match (extensions.get::<Self>(), extensions.get::<Denied>()) {
                (Some(caller), _) => caller.may_call(req).map(|()| *caller),
                (None, Some(Denied::CrossSite)) => Err(ApiError::Forbidden(
                    "This request must come from the service's own pages.",
                )),
                (None, Some(Denied::Unavailable)) => Err(ApiError::Unavailable(anyhow::anyhow!(
                    "credentials could not be checked"
                ))),
                (None, Some(Denied::Failed)) => Err(ApiError::Internal(anyhow::anyhow!(
                    "credentials could not be checked"
                ))),
                (None, Some(Denied::Unauthenticated) | None) => Err(ApiError::Unauthenticated),
            },
        )
    }
}

impl FromRequest for AdminCaller {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        ready(
            Caller::from_request(req, payload)
                .into_inner()
                .and_then(|caller| {
                    if caller.is_admin {
                        Ok(Self(caller))
                    } else {
                        Err(ApiError::Forbidden("This needs an administrator."))
                    }
                }),
        )
    }
}

async fn authenticate(auth: &Authenticator, req: &HttpRequest) -> Result<Caller, ApiError> {
    let headers = req.headers();
    let (checked, source) = if let Some(key) = headers.get(API_KEY_HEADER) {
        let key = key.to_str().map_err(|_| ApiError::Unauthenticated)?;
        (auth.api_key(key).await, Source::Mcp)
    } else if let Some(authorization) = headers.get(header::AUTHORIZATION) {
        let token = authorization
            .to_str()
            .ok()
            .and_then(|v| v.strip_prefix("Bearer "))
            .ok_or(ApiError::Unauthenticated)?;
        (auth.access_token(token.trim()).await, Source::Api)
    } else if let Some(cookie) = req.cookie(cookies::ACCESS) {
        (auth.access_token(cookie.value()).await, Source::Web)
    } else {
        return Err(ApiError::Unauthenticated);
    };
    match checked {
        Ok(who) => Ok(Caller {
            user_id: who.user_id,
            is_admin: who.is_admin,
            source,
            session_id: who.session_id,
            key_scopes: who.key_scopes,
        }),
        Err(CheckError::Unauthenticated) => Err(ApiError::Unauthenticated),
        Err(CheckError::Store(e)) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use actix_web::dev::Service;
    use actix_web::{App, HttpResponse, test};
    use domain::account::KeyScope;

    use super::*;
    use crate::auth::policy::Policy;
    use crate::routes::declaration::{Route, resources};

    #[utoipa::path(get, path = "/probe", responses((status = 204, description = "Let in.")))]
    async fn probe(_caller: Caller) -> HttpResponse {
        HttpResponse::NoContent().finish()
    }

    fn person(source: Source, key_scopes: Option<KeyScopes>) -> Caller {
        Caller {
            user_id: UserId::new(),
            is_admin: false,
            source,
            session_id: None,
            key_scopes,
        }
    }

    /// The status `caller` gets from `probe` mounted by `mount`.
    async fn status_of(
        caller: Caller,
        mount: impl FnOnce(&mut web::ServiceConfig) + 'static,
    ) -> u16 {
        let app = test::init_service(App::new().configure(mount).wrap_fn(move |req, srv| {
            req.extensions_mut().insert(caller);
            srv.call(req)
        }))
        .await;
        let response =
            test::call_service(&app, test::TestRequest::get().uri("/probe").to_request()).await;
        response.status().as_u16()
    }

    fn declared(policy: Policy) -> impl FnOnce(&mut web::ServiceConfig) {
        move |cfg| {
            for resource in resources(vec![Route::new(policy, probe, __path_probe)], "", false) {
                cfg.service(resource);
            }
        }
    }

    #[actix_web::test]
    async fn a_route_mounted_without_its_declaration_lets_no_caller_in() {
        let session = person(Source::Web, None);
        let undeclared = |cfg: &mut web::ServiceConfig| {
            cfg.route("/probe", web::get().to(probe));
        };
        assert_eq!(status_of(session, undeclared).await, 403);
        assert_eq!(status_of(session, declared(Policy::SignedIn)).await, 204);
    }

    #[actix_web::test]
    async fn a_declared_policy_decides_who_is_let_in() {
        let key = |scope| person(Source::Api, Some(KeyScopes::new([scope]).unwrap()));
        let bearer = person(Source::Api, None);
        let session = person(Source::Web, None);
        assert_eq!(
            status_of(
                key(KeyScope::Coaching),
                declared(Policy::Key(KeyScope::Coaching))
            )
            .await,
            204
        );
        assert_eq!(
            status_of(
                key(KeyScope::Integration),
                declared(Policy::Key(KeyScope::Coaching))
            )
            .await,
            403
        );
        assert_eq!(
            status_of(key(KeyScope::Coaching), declared(Policy::SignedIn)).await,
            403
        );
        assert_eq!(status_of(bearer, declared(Policy::SignedIn)).await, 204);
        assert_eq!(status_of(bearer, declared(Policy::Session)).await, 403);
        assert_eq!(status_of(session, declared(Policy::Session)).await, 204);
    }
}
