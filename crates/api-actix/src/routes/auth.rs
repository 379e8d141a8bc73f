//! `/api/auth/*`: sign-in through the identity provider (login → callback), refresh-token
//! rotation, sign-out and, in dev mode, dev login. Sign-in failures redirect to
//! `/login?error=<code>`: never JSON, never a 500.

use super::declaration::Route;
use crate::auth::policy::Policy;
use actix_web::cookie::Cookie;
use actix_web::http::header;
use actix_web::{HttpMessage, HttpRequest, HttpResponse, ResponseError, web};
use domain::account::{Email, LoginIdentity, Source};
use domain::clock::{Clock, SystemClock};
use domain::ports::IdentityError;
use domain::services::account::{Device, RefreshError};
use domain::text::PersonName;

use crate::activity::Action;
use crate::auth::Caller;
use crate::auth::cookies::{self, CookieJar};
use crate::auth::csrf::TrustedOrigins;
use crate::error::{ApiError, ErrorBody};
use crate::extract::ApiJson;
use crate::middleware::client_ip;
use crate::requests::account::{CallbackQuery, DevLoginRequest, LoginQuery};
use crate::service_types::{Accounts, Authenticator};
use crate::state::SignIn;
use crate::views::account::{AuthConfig, UserView};
use credentials::login_state::{self, LoginState, is_local_path};
use credentials::secrets;
use settings::api::AuthSettings;

pub use credentials::DEV_LOGIN_ISSUER;

/// The routes of this file, mounted under `/api/auth` in this order (see `routes::api`).
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(Policy::Public, config, __path_config),
        Route::new(Policy::Public, login, __path_login),
        Route::new(Policy::Public, callback, __path_callback),
        Route::new(Policy::Public, refresh, __path_refresh),
        Route::new(Policy::Public, logout, __path_logout),
        Route::new(Policy::Public, dev_login, __path_dev_login).dev_only(),
    ]
}

/// Where sign-in failures go, with a code the sign-in page explains.
fn failed(cookies: &CookieJar, code: &str) -> HttpResponse {
    HttpResponse::Found()
        .insert_header((header::LOCATION, format!("/login?error={code}")))
        .cookie(cookies.cleared_login_state())
        .finish()
}

#[utoipa::path(
    get,
    path = "/api/auth/config",
    tag = "auth",
    summary = "Which ways to sign in this service offers (for the sign-in page).",
    responses(
        (status = 200, description = "`sign_in`: an identity provider is configured; `dev_login`: dev login is on.", body = AuthConfig),
    ),
)]
pub(crate) async fn config(sign_in: web::Data<SignIn>) -> web::Json<AuthConfig> {
    web::Json(AuthConfig {
        sign_in: sign_in.identity.is_some(),
        dev_login: sign_in.dev_login,
    })
}

#[utoipa::path(
    get,
    path = "/api/auth/login",
    tag = "auth",
    summary = "Start signing in with the identity provider.",
    params(LoginQuery),
    responses(
        (status = 302, description = "To the identity provider (authorization code + PKCE); to `/login?error=` when sign-in is not configured."),
        (status = 429, description = "Too many requests; `Retry-After` says when to try again.", body = ErrorBody),
    ),
)]
pub(crate) async fn login(
    auth: web::Data<Authenticator>,
    cookies: web::Data<CookieJar>,
    sign_in: web::Data<SignIn>,
    req: HttpRequest,
) -> HttpResponse {
    req.extensions_mut().insert(Action("auth.login_start"));
    let Some(identity) = &sign_in.identity else {
        return failed(&cookies, "sign_in_unavailable");
    };
    let redirect = web::Query::<LoginQuery>::from_query(req.query_string())
        .ok()
        .and_then(|q| q.into_inner().redirect)
        .filter(|r| is_local_path(r));
    let request = match identity.begin().await {
        Ok(request) => request,
        Err(e) => {
            tracing::warn!(error = %format!("{e:#}"), "identity provider unavailable at sign-in");
            return failed(&cookies, "provider_unavailable");
        }
    };
    let sealed = LoginState::new(
        &auth.jwt,
        request.state,
        request.nonce,
        request.pkce_verifier,
        redirect,
        SystemClock.now(),
    )
    .seal(&auth.jwt);
    let sealed = match sealed {
        Ok(sealed) => sealed,
        Err(e) => {
            tracing::error!(error = %e, "could not seal the login state");
            return failed(&cookies, "server_error");
        }
    };
    HttpResponse::Found()
        .insert_header((header::LOCATION, request.url))
        .cookie(cookies.login_state(sealed, login_state::LIFETIME_SECONDS))
        .finish()
}

#[utoipa::path(
    get,
    path = "/api/auth/callback",
    tag = "auth",
    summary = "Finish signing in.",
    params(CallbackQuery),
    responses(
        (status = 302, description = "Signed in: cookies set, to the page asked for at login; on any failure to `/login?error=<code>`. Never JSON."),
        (status = 429, description = "Too many requests; `Retry-After` says when to try again.", body = ErrorBody),
    ),
)]
pub(crate) async fn callback(
    accounts: web::Data<Accounts>,
    auth: web::Data<Authenticator>,
    cookies: web::Data<CookieJar>,
    sign_in: web::Data<SignIn>,
    req: HttpRequest,
) -> HttpResponse {
    req.extensions_mut().insert(Action("auth.login"));
    let sessions = Sessions {
        accounts: &accounts,
        auth: &auth,
        cookies: &cookies,
        sign_in: &sign_in,
    };
    match finish_sign_in(&sessions, &req).await {
        Ok(response) => response,
        Err(code) => failed(&cookies, code),
    }
}

/// What opening a session in the browser reads: the accounts, the token keys and cache, the
/// cookies and the sign-in settings.
struct Sessions<'a> {
    accounts: &'a Accounts,
    auth: &'a Authenticator,
    cookies: &'a CookieJar,
    sign_in: &'a SignIn,
}

async fn finish_sign_in(
    sessions: &Sessions<'_>,
    req: &HttpRequest,
) -> Result<HttpResponse, &'static str> {
    let provider = sessions
        .sign_in
        .identity
        .as_ref()
        .ok_or("sign_in_unavailable")?;
    let params = web::Query::<CallbackQuery>::from_query(req.query_string())
        .map_err(|_| "invalid_request")?
        .into_inner();
    let sealed = req.cookie(cookies::LOGIN_STATE).ok_or("login_expired")?;
    let login =
        LoginState::open(&sessions.auth.jwt, sealed.value()).map_err(|_| "login_expired")?;
    if params.error.is_some() {
        return Err("access_denied");
    }
    let returned_state = params.state.ok_or("invalid_state")?;
    if !secrets::same_secret(&returned_state, &login.state) {
        return Err("invalid_state");
    }
    let code = params.code.ok_or("invalid_request")?;
    let verified = provider
        .finish(&code, &login.pkce_verifier, &login.nonce, params.iss)
        .await
        .map_err(|e| {
            tracing::warn!(error = %format!("{e:#}"), "sign-in refused");
            match e {
                IdentityError::CodeRejected => "code_rejected",
                IdentityError::InvalidToken(_) => "invalid_token",
                IdentityError::Unreachable(_) => "provider_unavailable",
                IdentityError::Misconfigured(_) => "provider_misconfigured",
            }
        })?;
    if !verified.email_verified {
        return Err("email_not_verified");
    }
    let email = Email::new(&verified.email).map_err(|_| "invalid_email")?;
    let domains = &sessions.sign_in.settings.allowed_email_domains;
    if !domains.is_empty() && !domains.iter().any(|d| d == email.domain()) {
        return Err("email_domain_not_allowed");
    }
    let identity = LoginIdentity {
        issuer: verified.issuer,
        subject: verified.subject,
        email,
        name: verified
            .name
            .map(|n| PersonName::capped(&n))
            .filter(|n| !n.is_blank())
            .map(PersonName::into_string),
    };
    let target = login
        .redirect
        .unwrap_or_else(|| sessions.sign_in.settings.post_login_redirect.clone());
    let session_cookies = open_session(sessions, req, &identity).await.map_err(|e| {
        tracing::error!(error = %e.for_log(), "could not open a session");
        "server_error"
    })?;
    let mut response = HttpResponse::Found();
    response
        .insert_header((header::LOCATION, target))
        .cookie(sessions.cookies.cleared_login_state());
    for cookie in session_cookies {
        response.cookie(cookie);
    }
    Ok(response.finish())
}

/// Signs the person in: a session, its cookies, and the caller recorded for the activity log.
async fn open_session(
    sessions: &Sessions<'_>,
    req: &HttpRequest,
    identity: &LoginIdentity,
) -> Result<Vec<Cookie<'static>>, ApiError> {
    let refresh = secrets::random_token()
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("no randomness: {e}")))?;
    let (user, session) = sessions
        .accounts
        .sign_in(
            identity,
            device(req, sessions.sign_in.trust_forwarded_for),
            secrets::hash(&refresh),
        )
        .await?;
    let admin = sessions.auth.is_admin(&user);
    // The sign-in changed `last_login_at` (and maybe the name or e-mail).
    sessions.auth.cache.forget_user(user.id);
    req.extensions_mut().insert(Caller {
        user_id: user.id,
        is_admin: admin,
        source: Source::Web,
        session_id: Some(session.id),
        key_scopes: None,
    });
    session_cookies(
        (sessions.auth, sessions.cookies, &sessions.sign_in.settings),
        &user.id.to_string(),
        &session.id.to_string(),
        admin,
        refresh,
        session.expires_at,
    )
}

fn session_cookies(
    (auth, cookies, settings): (&Authenticator, &CookieJar, &AuthSettings),
    user: &str,
    session: &str,
    admin: bool,
    refresh: String,
    expires_at: time::OffsetDateTime,
) -> Result<Vec<Cookie<'static>>, ApiError> {
    let now = SystemClock.now();
    let ttl = settings.access_ttl_seconds;
    let jwt = auth
        .jwt
        .access_token(user, session, admin, now, ttl)
        .map_err(|e| ApiError::Internal(e.into()))?;
    let refresh_age = (expires_at - now).whole_seconds().max(0);
    Ok(vec![
        cookies.access(jwt, ttl),
        cookies.refresh(refresh, refresh_age),
    ])
}

fn device(req: &HttpRequest, trust_forwarded_for: bool) -> Device {
    Device {
        user_agent: req
            .headers()
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.chars().take(500).collect()),
        ip: client_ip::of(req, trust_forwarded_for).map(|ip| ip.to_string()),
    }
}

/// A 401 that also clears the session cookies.
fn signed_out(cookies: &CookieJar) -> HttpResponse {
    let mut response = ApiError::Unauthenticated.error_response();
    for cookie in cookies.cleared() {
        let _ = response.add_cookie(&cookie);
    }
    response
}

#[utoipa::path(
    post,
    path = "/api/auth/refresh",
    tag = "auth",
    summary = "Rotate the refresh token (`ds_refresh` cookie).",
    description = "Re-use of a rotated refresh token revokes the whole session.",
    responses(
        (status = 204, description = "New cookies are set; the old refresh token is revoked."),
        (status = 401, description = "No `ds_refresh` cookie, or one that is unknown, expired or revoked (a re-used rotated token also revokes its session).", body = ErrorBody),
        (status = 403, description = "A write without a trusted Origin or Referer (CSRF defence).", body = ErrorBody),
    ),
)]
pub(crate) async fn refresh(
    accounts: web::Data<Accounts>,
    auth: web::Data<Authenticator>,
    origins: web::Data<TrustedOrigins>,
    cookies: web::Data<CookieJar>,
    sign_in: web::Data<SignIn>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    req.extensions_mut().insert(Action("auth.refresh"));
    if !origins.allows(&req) {
        return Err(ApiError::Forbidden(
            "This request must come from the service's own pages.",
        ));
    }
    let Some(presented) = req.cookie(cookies::REFRESH) else {
        return Ok(signed_out(&cookies));
    };
    let next = secrets::random_token()
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("no randomness: {e}")))?;
    match accounts
        .refresh(&secrets::hash(presented.value()), secrets::hash(&next))
        .await
    {
        Ok((user, session)) => {
            let admin = auth.is_admin(&user);
            req.extensions_mut().insert(Caller {
                user_id: user.id,
                is_admin: admin,
                source: Source::Web,
                session_id: Some(session.id),
                key_scopes: None,
            });
            let mut response = HttpResponse::NoContent();
            for cookie in session_cookies(
                (&auth, &cookies, &sign_in.settings),
                &user.id.to_string(),
                &session.id.to_string(),
                admin,
                next,
                session.expires_at,
            )? {
                response.cookie(cookie);
            }
            Ok(response.finish())
        }
        Err(RefreshError::Reused) => {
            tracing::warn!("a rotated refresh token was presented again; its session is revoked");
            auth.cache.forget_all_sessions();
            Ok(signed_out(&cookies))
        }
        Err(RefreshError::Unknown | RefreshError::Expired) => Ok(signed_out(&cookies)),
        Err(RefreshError::Repo(e)) => Err(e.into()),
    }
}

#[utoipa::path(
    post,
    path = "/api/auth/logout",
    tag = "auth",
    summary = "Sign out: revoke the session and clear the cookies.",
    responses(
        (status = 204, description = "Signed out."),
        (status = 403, description = "A write without a trusted Origin or Referer (CSRF defence).", body = ErrorBody),
    ),
)]
pub(crate) async fn logout(
    accounts: web::Data<Accounts>,
    auth: web::Data<Authenticator>,
    origins: web::Data<TrustedOrigins>,
    cookies: web::Data<CookieJar>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    req.extensions_mut().insert(Action("auth.logout"));
    let bearer = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    if bearer.is_none() && !origins.allows(&req) {
        return Err(ApiError::Forbidden(
            "This request must come from the service's own pages.",
        ));
    }
    let access = bearer
        .map(str::to_owned)
        .or_else(|| req.cookie(cookies::ACCESS).map(|c| c.value().to_owned()));
    if let Some(claims) = access.and_then(|t| auth.jwt.verify_access(&t).ok())
        && let (Ok(user), Ok(session)) = (claims.sub.parse(), claims.sid.parse())
    {
        let _ = accounts.revoke_session(user, session).await;
        auth.cache.forget_session(session);
    } else if let Some(presented) = req.cookie(cookies::REFRESH) {
        accounts
            .sign_out_by_refresh(&secrets::hash(presented.value()))
            .await?;
        auth.cache.forget_all_sessions();
    }
    let mut response = HttpResponse::NoContent();
    for cookie in cookies.cleared() {
        response.cookie(cookie);
    }
    Ok(response.finish())
}

#[utoipa::path(
    post,
    path = "/api/auth/dev-login",
    tag = "auth",
    summary = "Sign in by e-mail alone (dev mode on loopback only; 404 otherwise).",
    request_body = DevLoginRequest,
    responses(
        (status = 200, description = "Signed in: cookies set; the person.", body = UserView),
        (status = 403, description = "A page elsewhere tried to sign someone in.", body = ErrorBody),
        (status = 404, description = "Nothing was found here for this caller.", body = ErrorBody),
        (status = 429, description = "Too many requests; `Retry-After` says when to try again.", body = ErrorBody),
    ),
)]
pub(crate) async fn dev_login(
    accounts: web::Data<Accounts>,
    auth: web::Data<Authenticator>,
    origins: web::Data<TrustedOrigins>,
    cookies: web::Data<CookieJar>,
    sign_in: web::Data<SignIn>,
    req: HttpRequest,
    body: ApiJson<DevLoginRequest>,
) -> Result<HttpResponse, ApiError> {
    req.extensions_mut().insert(Action("auth.dev_login"));
    // Only a client on this machine, talking to us directly: a request relayed by a proxy
    // (which says so in a forwarding header) is from anywhere, whatever its peer address.
    let direct = req.peer_addr().is_some_and(|peer| peer.ip().is_loopback())
        && !req.headers().contains_key(header::FORWARDED)
        && !req.headers().contains_key("x-forwarded-for");
    if !direct {
        return Err(ApiError::NotFound);
    }
    // Browsers send Origin on every cross-site POST: refuse a page elsewhere signing someone in.
    if req.headers().contains_key(header::ORIGIN) && !origins.allows(&req) {
        return Err(ApiError::Forbidden(
            "This request must come from the service's own pages.",
        ));
    }
    let email = body.email()?;
    let identity = LoginIdentity {
        issuer: DEV_LOGIN_ISSUER.to_owned(),
        subject: email.as_str().to_owned(),
        email,
        name: None,
    };
    let session_cookies = open_session(
        &Sessions {
            accounts: &accounts,
            auth: &auth,
            cookies: &cookies,
            sign_in: &sign_in,
        },
        &req,
        &identity,
    )
    .await?;
    let caller = req.extensions().get::<Caller>().copied();
    let user = match caller {
        Some(c) => accounts.user(c.user_id).await?,
        None => None,
    }
    .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("signed-in user vanished")))?;
    let mut response = HttpResponse::Ok();
    for cookie in session_cookies {
        response.cookie(cookie);
    }
    Ok(response.json(UserView::new(&user, auth.is_admin(&user))))
}
