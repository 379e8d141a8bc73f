//! Sessions, cookies, keys and who may sign in (`JWT_*`, `COOKIE_SECURE`, `API_KEY`,
//! `ADMIN_EMAILS`, `AUTH_*`, `METRICS_TOKEN`...), with the rules that keep a deployment safe:
//! dev login only in dev mode, an operator key as strong as the JWT secret.

use secrecy::{ExposeSecret, SecretSlice, SecretString};

use crate::Vars;
use crate::service::JwtSecret;

use super::{ConfigError, MIN_OPERATOR_KEY_CHARS, invalid};

/// Sessions, cookies, keys and who may sign in. The keys and tokens are secrets: `Debug` shows
/// none of them.
#[derive(Debug, Clone)]
pub struct AuthSettings {
    pub jwt_secret: JwtSecret,
    /// `true` when the secret was generated for this process (dev mode without JWT_SECRET).
    pub jwt_secret_is_ephemeral: bool,
    pub jwt_issuer: String,
    pub jwt_audience: String,
    pub access_ttl_seconds: i64,
    pub refresh_ttl_seconds: i64,
    /// `REFRESH_REUSE_GRACE_SECONDS` (30): a rotated refresh token still refreshes this long.
    pub refresh_reuse_grace_seconds: i64,
    /// `SESSION_IDLE_TIMEOUT_SECONDS` (7 days): a session unused this long cannot refresh.
    pub session_idle_timeout_seconds: i64,
    pub cookie_secure: bool,
    pub cors_allowed_origins: Vec<String>,
    /// The operator key (`API_KEY`), acting as the synthetic admin `api-key-admin`.
    pub api_key: Option<SecretString>,
    pub admin_emails: Vec<String>,
    /// Lower-cased domains; empty allows any.
    pub allowed_email_domains: Vec<String>,
    pub dev_login: bool,
    pub post_login_redirect: String,
    /// How long a checked credential is trusted without a database read (0: never).
    pub cache_seconds: u64,
    /// `METRICS_TOKEN`: when set, `/metrics` answers only `Authorization: Bearer <token>`;
    /// unset, it is open to whoever reaches the bind address, as Prometheus expects.
    pub metrics_token: Option<SecretString>,
}

impl AuthSettings {
    /// # Errors
    /// [`ConfigError`] naming the first unusable value.
    pub fn from_vars(vars: &Vars<'_>, dev: bool) -> Result<Self, ConfigError> {
        let number = |name: &'static str, default: i64, min: i64| vars.number(name, default, min);
        let (jwt_secret, jwt_secret_is_ephemeral) = jwt_secret(vars, dev)?;
        let auth = Self {
            jwt_secret,
            jwt_secret_is_ephemeral,
            jwt_issuer: vars.text("JWT_ISSUER", "discovery-service"),
            jwt_audience: vars.text("JWT_AUDIENCE", "discovery-web"),
            access_ttl_seconds: number("JWT_ACCESS_TTL_SECONDS", 900, 1)?,
            refresh_ttl_seconds: number("JWT_REFRESH_TTL_SECONDS", 2_592_000, 60)?,
            refresh_reuse_grace_seconds: number("REFRESH_REUSE_GRACE_SECONDS", 30, 0)?,
            session_idle_timeout_seconds: number("SESSION_IDLE_TIMEOUT_SECONDS", 604_800, 60)?,
            cookie_secure: vars.flag("COOKIE_SECURE", !dev)?,
            cors_allowed_origins: cors_allowed_origins(vars)?,
            api_key: vars.get("API_KEY").map(SecretString::from),
            admin_emails: vars.list("ADMIN_EMAILS"),
            allowed_email_domains: vars.list("ALLOWED_EMAIL_DOMAINS"),
            dev_login: vars.flag("AUTH_DEV_LOGIN", dev)?,
            post_login_redirect: post_login_redirect(vars)?,
            cache_seconds: number("AUTH_CACHE_SECONDS", 1, 0)?.unsigned_abs(),
            metrics_token: vars.get("METRICS_TOKEN").map(SecretString::from),
        };
        auth.check(dev)?;
        Ok(auth)
    }

    /// The rules between values, each naming its variable.
    fn check(&self, dev: bool) -> Result<(), ConfigError> {
        // Behind a reverse proxy on the same host every request comes from loopback: dev login
        // there would let anyone sign in as anyone. It exists only in dev mode.
        if self.dev_login && !dev {
            return Err(invalid(
                "AUTH_DEV_LOGIN",
                "dev login exists only in dev mode: start with --dev, or leave AUTH_DEV_LOGIN unset",
            ));
        }
        // The operator key is an admin credential that never expires: as strong as the JWT
        // secret, or start-up stops.
        if let Some(key) = &self.api_key
            && key.expose_secret().chars().count() < MIN_OPERATOR_KEY_CHARS
        {
            return Err(invalid(
                "API_KEY",
                format!(
                    "must be at least {MIN_OPERATOR_KEY_CHARS} characters (got {})",
                    key.expose_secret().chars().count()
                ),
            ));
        }
        if let Some(token) = &self.metrics_token
            && token.expose_secret().len() < 16
        {
            return Err(invalid("METRICS_TOKEN", "must be at least 16 characters"));
        }
        Ok(())
    }
}

/// `JWT_SECRET`, and whether it was made up for this process: dev mode makes one up when none
/// (or a short one) is set; elsewhere it is needed.
fn jwt_secret(vars: &Vars<'_>, dev: bool) -> Result<(JwtSecret, bool), ConfigError> {
    match crate::service::jwt_secret(vars) {
        Ok(Some(secret)) => Ok((secret, false)),
        Err(e) if !dev => Err(e.into()),
        Ok(None) if !dev => Err(ConfigError::Missing("JWT_SECRET")),
        _ => {
            let mut bytes = vec![0u8; 32];
            getrandom::fill(&mut bytes).map_err(|e| invalid("JWT_SECRET", e))?;
            Ok((SecretSlice::from(bytes), true))
        }
    }
}

/// `CORS_ALLOWED_ORIGINS`, each an origin (`scheme://host[:port]`).
fn cors_allowed_origins(vars: &Vars<'_>) -> Result<Vec<String>, ConfigError> {
    let mut origins = Vec::new();
    for o in vars.list("CORS_ALLOWED_ORIGINS") {
        origins.push(crate::service::origin("CORS_ALLOWED_ORIGINS", &o)?);
    }
    Ok(origins)
}

/// `POST_LOGIN_REDIRECT` (`/`): a path on this service, never another site.
fn post_login_redirect(vars: &Vars<'_>) -> Result<String, ConfigError> {
    let target = vars.text("POST_LOGIN_REDIRECT", "/");
    if !domain::account::redirect::is_local_path(&target) {
        return Err(invalid(
            "POST_LOGIN_REDIRECT",
            "must be a path on this service, like /profile.html",
        ));
    }
    Ok(target)
}
