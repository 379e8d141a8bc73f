//! Settings of `discovery-api`: read once from the environment (and an optional `.env`),
//! validated at start-up; a bad value stops the service with one clear line naming the
//! variable. Built from the settings other binaries share (database, delivery, the public
//! address, the JWT secret, the language model) and the service's own: sessions and sign-in
//! (`auth.rs`), the identity provider (`oidc.rs`) and the rate limits (`rate_limits.rs`).
//! Plain values, as everywhere in this crate: the binary builds its adapters' configs from
//! them (`DatabaseSettings` into the pool's, `LlmSettings` into the model client's, which
//! judges the URL's shape and the ranges itself).

mod auth;
mod oidc;
mod rate_limits;

use std::net::SocketAddr;

pub use auth::AuthSettings;
pub use oidc::OidcSettings;
pub use rate_limits::RateLimitSettings;

use crate::database::DatabaseSettings;
use crate::delivery::SmtpSettings;
use crate::llm::LlmSettings;
use crate::{SettingError, Vars};

const DEFAULT_BIND_ADDR: &str = "127.0.0.1:8011";
/// The shortest operator key (`API_KEY`) the service starts with.
pub const MIN_OPERATOR_KEY_CHARS: usize = 32;

/// Everything the service needs to start.
#[derive(Debug, Clone)]
pub struct ApiSettings {
    /// `--dev`: embedded SQLite under `./data/`, ephemeral JWT secret, dev login, loopback only.
    pub dev: bool,
    pub bind_addr: SocketAddr,
    pub database: DatabaseSettings,
    /// The service's own origin, e.g. `https://discovery.example` (no trailing slash).
    pub public_base_url: String,
    pub auth: AuthSettings,
    pub oidc: Option<OidcSettings>,
    pub activity_retention_days: u32,
    /// `LLM_PROVIDER` and, for `openai`, its endpoint (`crate::llm`).
    pub llm: LlmSettings,
    pub rate_limits: RateLimitSettings,
    pub delivery: DeliverySettings,
}

/// How notifications leave the service (docs/api.md, "Notifications and webhooks").
#[derive(Debug, Clone)]
pub struct DeliverySettings {
    /// `SMTP_URL` (`smtp://` with `?tls=required` for STARTTLS, `smtps://` for implicit TLS,
    /// credentials in the URL) and `SMTP_FROM`; `None`: no e-mail is sent.
    pub smtp: Option<SmtpSettings>,
    /// `WEBHOOK_ALLOW_PRIVATE`: plain `http` and private, loopback or link-local destinations.
    pub webhook_allow_private: bool,
    /// `DELIVERY_WORKER` (true): a worker in this process delivers what is due.
    pub worker: bool,
}

/// A setting that cannot be used, named with its variable.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{name} is not valid: {reason}")]
    Invalid { name: &'static str, reason: String },
    #[error("{0} must be set (outside dev mode)")]
    Missing(&'static str),
    #[error("unknown argument {0:?} (the only flag is --dev)")]
    UnknownArgument(String),
}

pub(super) fn invalid(name: &'static str, reason: impl ToString) -> ConfigError {
    ConfigError::Invalid {
        name,
        reason: reason.to_string(),
    }
}

impl From<SettingError> for ConfigError {
    fn from(e: SettingError) -> Self {
        match e {
            SettingError::Invalid { name, reason } => Self::Invalid { name, reason },
            SettingError::Missing(name) => Self::Missing(name),
        }
    }
}

impl ApiSettings {
    /// Like [`ApiSettings::from_vars`] with the variables supplied by `var` (for tests).
    ///
    /// # Errors
    /// [`ConfigError`] naming the first unusable value.
    pub fn from_lookup(
        args: impl IntoIterator<Item = String>,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        Self::from_vars(args, &Vars::from_fn(var))
    }

    /// The settings from `vars` (`Vars::environment_with_dotenv()` in the binary: `.env` if
    /// present, then the environment); `args` are the command-line arguments.
    ///
    /// # Errors
    /// [`ConfigError`] naming the first unusable value.
    pub fn from_vars(
        args: impl IntoIterator<Item = String>,
        vars: &Vars<'_>,
    ) -> Result<Self, ConfigError> {
        let dev = dev_flag(args)?;
        let public_base_url = crate::service::public_base_url(vars)?;
        Ok(Self {
            dev,
            bind_addr: bind_addr(vars, dev)?,
            database: crate::database::database(vars)?,
            auth: AuthSettings::from_vars(vars, dev)?,
            oidc: OidcSettings::from_vars(vars, dev, &public_base_url)?,
            public_base_url,
            activity_retention_days: crate::activity::retention_days(vars)?,
            llm: crate::llm::llm(vars)?,
            rate_limits: RateLimitSettings::from_vars(vars)?,
            delivery: DeliverySettings {
                smtp: crate::delivery::smtp(vars)?,
                webhook_allow_private: crate::delivery::webhook_allow_private(vars)?,
                worker: vars.flag("DELIVERY_WORKER", true)?,
            },
        })
    }

    /// Origins whose pages may use the session cookie for writes: the service's own (and, in
    /// dev mode, both loopback spellings of its address) plus `CORS_ALLOWED_ORIGINS`.
    #[must_use]
    pub fn trusted_origins(&self, port: u16) -> Vec<String> {
        let mut origins = vec![self.public_base_url.clone()];
        if self.dev {
            origins.push(format!("http://127.0.0.1:{port}"));
            origins.push(format!("http://localhost:{port}"));
        }
        origins.extend(self.auth.cors_allowed_origins.iter().cloned());
        origins
    }
}

/// `--dev`, the only flag.
fn dev_flag(args: impl IntoIterator<Item = String>) -> Result<bool, ConfigError> {
    let mut dev = false;
    for arg in args {
        match arg.as_str() {
            "--dev" => dev = true,
            _ => return Err(ConfigError::UnknownArgument(arg)),
        }
    }
    Ok(dev)
}

/// `BIND_ADDR`: in dev mode a loopback address only.
fn bind_addr(vars: &Vars<'_>, dev: bool) -> Result<SocketAddr, ConfigError> {
    let bind_addr: SocketAddr = vars
        .text("BIND_ADDR", DEFAULT_BIND_ADDR)
        .parse()
        .map_err(|e: std::net::AddrParseError| invalid("BIND_ADDR", e))?;
    if dev && !bind_addr.ip().is_loopback() {
        return Err(invalid(
            "BIND_ADDR",
            format!(
                "dev mode only binds a loopback address, not {}",
                bind_addr.ip()
            ),
        ));
    }
    Ok(bind_addr)
}

#[cfg(test)]
mod tests {
    use super::*;
    use secrecy::ExposeSecret;

    const SECRET: &str = "0123456789abcdef0123456789abcdef";

    fn settings(args: &[&str], vars: &[(&str, &str)]) -> Result<ApiSettings, ConfigError> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect();
        ApiSettings::from_lookup(args.iter().map(|a| (*a).to_owned()), |name| {
            vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn delivery_settings_default_to_a_worker_and_no_e_mail() {
        let s = settings(&["--dev"], &[]).unwrap();
        assert_eq!(
            (
                s.delivery.smtp.is_none(),
                s.delivery.worker,
                s.delivery.webhook_allow_private
            ),
            (true, true, false)
        );
        let smtp = |url: &str| {
            settings(
                &["--dev"],
                &[("SMTP_URL", url), ("SMTP_FROM", "d@example.org")],
            )
        };
        for fine in [
            "smtps://user:pw@mail.example.org",
            "smtp://user:pw@mail.example.org?tls=required",
            "smtp://mail.example.org",
            "smtp://user:pw@127.0.0.1:2525",
        ] {
            let s = smtp(fine).unwrap();
            let shown = format!("{s:?}");
            assert!(!shown.contains("pw@"), "no password in Debug: {shown}");
            assert!(shown.contains("d@example.org"), "{shown}");
        }
        let err = smtp("smtp://user:pw@mail.example.org:587").unwrap_err();
        assert!(
            err.to_string().starts_with("SMTP_URL is not valid"),
            "{err}"
        );
        assert!(!err.to_string().contains("pw"), "{err}");
        let err = smtp("smtp://user:pw@mail.example.org?tls=opportunistic&tls=required")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("SMTP_URL is not valid"), "{err}");
        assert!(err.contains("more than once"), "{err}");
        let err = settings(&["--dev"], &[("SMTP_URL", "smtps://mail.example.org")]).unwrap_err();
        assert!(err.to_string().starts_with("SMTP_FROM"), "{err}");
        let off = settings(
            &["--dev"],
            &[
                ("DELIVERY_WORKER", "false"),
                ("WEBHOOK_ALLOW_PRIVATE", "true"),
            ],
        )
        .unwrap();
        assert!(!off.delivery.worker && off.delivery.webhook_allow_private);
    }

    #[test]
    fn dev_mode_needs_nothing_and_stays_on_loopback() {
        let s = settings(&["--dev"], &[]).unwrap();
        assert!(
            s.dev && s.auth.dev_login && !s.auth.cookie_secure && s.auth.jwt_secret_is_ephemeral
        );
        assert_eq!(s.bind_addr.to_string(), "127.0.0.1:8011");
        assert_eq!(
            s.database.url.expose_secret(),
            crate::database::DEV_DATABASE_URL
        );
        assert_eq!(s.public_base_url, "http://localhost:8011");
        assert!(matches!(s.llm, LlmSettings::Offline));
        let err = settings(&["--dev"], &[("BIND_ADDR", "0.0.0.0:8011")]).unwrap_err();
        assert!(
            err.to_string().starts_with("BIND_ADDR is not valid"),
            "{err}"
        );
    }

    #[test]
    fn outside_dev_mode_a_strong_jwt_secret_is_required() {
        assert!(matches!(
            settings(&[], &[]),
            Err(ConfigError::Missing("JWT_SECRET"))
        ));
        let err = settings(&[], &[("JWT_SECRET", "short")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "JWT_SECRET is not valid: must be at least 32 bytes (got 5)"
        );
        let s = settings(&[], &[("JWT_SECRET", SECRET)]).unwrap();
        assert!(s.auth.cookie_secure && !s.auth.dev_login && !s.auth.jwt_secret_is_ephemeral);
        assert!(
            !format!("{s:?}").contains(SECRET),
            "secrets never reach Debug output"
        );
    }

    #[test]
    fn bad_values_are_named_one_per_line() {
        let cases = [
            ("BIND_ADDR", "localhost"),
            ("COOKIE_SECURE", "maybe"),
            ("JWT_ACCESS_TTL_SECONDS", "-5"),
            ("PUBLIC_BASE_URL", "not a url"),
            ("POST_LOGIN_REDIRECT", "https://evil.example/"),
            ("API_KEY", "short"),
            ("API_KEY", "twenty-characters-20"),
            ("AUTH_DEV_LOGIN", "true"),
            ("METRICS_TOKEN", "short"),
            ("OIDC_ISSUER_URL", "::"),
            ("OIDC_ISSUER_URL", "http://id.example.org"),
            ("LLM_PROVIDER", "gpt"),
            ("DATABASE_MAX_CONNECTIONS", "0"),
            ("DATABASE_WAIT_TIMEOUT_MS", "0"),
            ("DATABASE_WAIT_TIMEOUT_MS", "soon"),
            ("RATE_LIMIT_SIGN_IN_PER_MINUTE", "-1"),
            ("RATE_LIMIT_REFLECT_PER_MINUTE", "many"),
            ("RATE_LIMIT_COMPLETE_PER_MINUTE", "2.5"),
            ("RATE_LIMIT_COMPLETE_PER_MINUTE", "100001"),
            ("RATE_LIMIT_TRUST_FORWARDED_FOR", "sometimes"),
        ];
        for (name, value) in cases {
            let err = settings(&[], &[("JWT_SECRET", SECRET), (name, value)]).unwrap_err();
            assert!(err.to_string().starts_with(name), "{name}: {err}");
            assert!(!err.to_string().contains('\n'));
        }
        assert!(matches!(
            settings(&["--prod"], &[]),
            Err(ConfigError::UnknownArgument(_))
        ));
    }

    #[test]
    fn the_openai_provider_needs_a_url_and_a_model_and_hides_its_key() {
        let base = [
            ("JWT_SECRET", SECRET),
            ("LLM_PROVIDER", "openai"),
            ("LLM_BASE_URL", "http://127.0.0.1:11434/v1"),
            ("LLM_MODEL", "llama3.1:8b"),
            ("LLM_API_KEY", "sk-live-key-never-printed"),
        ];
        let s = settings(&[], &base).unwrap();
        let LlmSettings::OpenAi(llm) = &s.llm else {
            panic!("openai expected: {:?}", s.llm);
        };
        assert_eq!(llm.model, "llama3.1:8b");
        assert_eq!(llm.timeout, std::time::Duration::from_secs(30));
        assert_eq!(
            llm.api_key.as_ref().map(ExposeSecret::expose_secret),
            Some("sk-live-key-never-printed")
        );
        let debug = format!("{s:?}");
        assert!(!debug.contains("never-printed"), "{debug}");

        // The URL's shape and the ranges of the timeout and the token cap are the client's to
        // judge: api-actix `startup::adapters` tests them where it builds the client's config.
        let cases: [(&str, Option<&str>); 6] = [
            ("LLM_BASE_URL", None),
            ("LLM_MODEL", None),
            ("LLM_TIMEOUT_SECONDS", Some("0")),
            ("LLM_TIMEOUT_SECONDS", Some("soon")),
            ("LLM_MAX_TOKENS", Some("-1")),
            ("LLM_MAX_TOKENS", Some("many")),
        ];
        for (name, value) in cases {
            let vars: Vec<(&str, &str)> = base
                .iter()
                .copied()
                .filter(|(n, _)| *n != name)
                .chain(value.map(|v| (name, v)))
                .collect();
            let err = settings(&[], &vars).unwrap_err();
            assert!(err.to_string().starts_with(name), "{name}={value:?}: {err}");
            assert!(!err.to_string().contains('\n'));
        }
        // The offline engine ignores the other LLM settings.
        let s = settings(
            &[],
            &[
                ("JWT_SECRET", SECRET),
                ("LLM_MODEL", ""),
                ("LLM_BASE_URL", "::"),
            ],
        )
        .unwrap();
        assert!(matches!(s.llm, LlmSettings::Offline));
    }

    #[test]
    fn rate_limits_have_defaults_and_zero_turns_one_off() {
        let s = settings(&[], &[("JWT_SECRET", SECRET)]).unwrap();
        assert_eq!(
            s.rate_limits,
            RateLimitSettings {
                sign_in: 30,
                reflect: 20,
                complete: 5,
                rule_changes: 60,
                webhook_tests: 10,
                checkins: 10,
                profile_writes: 60,
                entries: 50_000,
                window: std::time::Duration::from_secs(60),
                trust_forwarded_for: false,
            }
        );
        let s = settings(
            &[],
            &[
                ("JWT_SECRET", SECRET),
                ("RATE_LIMIT_SIGN_IN_PER_MINUTE", "0"),
                ("RATE_LIMIT_REFLECT_PER_MINUTE", " 7 "),
                ("RATE_LIMIT_COMPLETE_PER_MINUTE", "100000"),
                ("RATE_LIMIT_RULE_CHANGES_PER_MINUTE", "0"),
                ("RATE_LIMIT_WEBHOOK_TESTS_PER_MINUTE", "3"),
                ("RATE_LIMIT_CHECKINS_PER_MINUTE", "0"),
                ("RATE_LIMIT_PROFILE_WRITES_PER_MINUTE", "0"),
                ("RATE_LIMIT_ENTRIES_PER_MINUTE", "1000"),
                ("RATE_LIMIT_TRUST_FORWARDED_FOR", "true"),
            ],
        )
        .unwrap();
        assert_eq!(
            (
                s.rate_limits.sign_in,
                s.rate_limits.reflect,
                s.rate_limits.complete
            ),
            (0, 7, 100_000)
        );
        assert_eq!(
            (
                s.rate_limits.rule_changes,
                s.rate_limits.webhook_tests,
                s.rate_limits.checkins
            ),
            (0, 3, 0)
        );
        assert_eq!(
            (s.rate_limits.profile_writes, s.rate_limits.entries),
            (0, 1_000)
        );
        assert!(s.rate_limits.trust_forwarded_for);
    }

    #[test]
    fn a_bad_rate_limit_refuses_to_start_naming_the_variable() {
        for (name, value) in [
            ("RATE_LIMIT_SIGN_IN_PER_MINUTE", "-1"),
            ("RATE_LIMIT_SIGN_IN_PER_MINUTE", "ten"),
            ("RATE_LIMIT_REFLECT_PER_MINUTE", "1e3"),
            ("RATE_LIMIT_REFLECT_PER_MINUTE", "99999999999"),
            ("RATE_LIMIT_COMPLETE_PER_MINUTE", "100001"),
            ("RATE_LIMIT_RULE_CHANGES_PER_MINUTE", "-60"),
            ("RATE_LIMIT_WEBHOOK_TESTS_PER_MINUTE", "ten"),
            ("RATE_LIMIT_CHECKINS_PER_MINUTE", "100001"),
        ] {
            let err = settings(&[], &[("JWT_SECRET", SECRET), (name, value)]).unwrap_err();
            let line = err.to_string();
            assert!(line.starts_with(&format!("{name} is not valid")), "{line}");
            assert!(line.contains(value), "names the bad value: {line}");
            assert!(!line.contains('\n'), "{line}");
        }
    }

    #[test]
    fn the_metrics_token_is_optional_and_never_printed() {
        let s = settings(&[], &[("JWT_SECRET", SECRET)]).unwrap();
        assert!(s.auth.metrics_token.is_none());
        let token = "scrape-token-never-printed";
        let s = settings(&[], &[("JWT_SECRET", SECRET), ("METRICS_TOKEN", token)]).unwrap();
        assert_eq!(
            s.auth
                .metrics_token
                .as_ref()
                .map(ExposeSecret::expose_secret),
            Some(token)
        );
        assert!(!format!("{s:?}").contains(token));
    }

    #[test]
    fn the_operator_key_and_the_client_secret_are_never_printed() {
        let key = "operator-key-of-32-characters-never-printed";
        let client_secret = "oidc-client-secret-never-printed";
        let s = settings(
            &[],
            &[
                ("JWT_SECRET", SECRET),
                ("API_KEY", key),
                ("OIDC_ISSUER_URL", "https://id.example.org"),
                ("OIDC_CLIENT_ID", "discovery"),
                ("OIDC_CLIENT_SECRET", client_secret),
            ],
        )
        .unwrap();
        let oidc = s.oidc.as_ref().unwrap();
        assert_eq!(oidc.client_secret.expose_secret(), client_secret);
        assert_eq!(s.auth.api_key.as_ref().unwrap().expose_secret(), key);
        let shown = format!("{s:?}");
        for secret in [key, client_secret, SECRET] {
            assert!(!shown.contains(secret), "{shown}");
        }
        assert!(shown.contains("https://id.example.org"), "{shown}");
    }

    #[test]
    fn lists_are_split_and_lower_cased() {
        let s = settings(
            &[],
            &[
                ("JWT_SECRET", SECRET),
                ("ADMIN_EMAILS", "Ada@Example.org, bob@x.y"),
                ("ALLOWED_EMAIL_DOMAINS", "Example.org"),
            ],
        )
        .unwrap();
        assert_eq!(s.auth.admin_emails, ["ada@example.org", "bob@x.y"]);
        assert_eq!(s.auth.allowed_email_domains, ["example.org"]);
    }
}
