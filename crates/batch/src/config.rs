//! Settings of the batch binary: the ones it shares with the service (database, delivery, the
//! public address and JWT secret, activity retention) read and validated by the `settings`
//! crate exactly as `discovery-api` reads them, plus keeping the passwords of URL settings out
//! of anything the binary prints.

use adapters_diesel::{Database, DbConfig};
use anyhow::Context;
use secrecy::SecretString;
use settings::Vars;
use settings::delivery::SmtpSettings;
use settings::service::JwtSecret;

/// The environment, after an optional `.env`.
fn vars() -> Vars<'static> {
    Vars::environment_with_dotenv()
}

/// Opens the database named by `DATABASE_URL`, migrating it.
///
/// # Errors
/// A bad database setting, or when the database cannot be opened or migrated.
pub async fn database() -> anyhow::Result<Database> {
    Ok(database_applying().await?.0)
}

/// Like [`database`], also returning the migration versions this run applied.
///
/// # Errors
/// A bad database setting, or when the database cannot be opened or migrated.
pub async fn database_applying() -> anyhow::Result<(Database, Vec<String>)> {
    let shared = settings::database::database(&vars())?;
    let mut config = DbConfig::new(shared.url);
    config.max_connections = shared.max_connections;
    config.wait_timeout = shared.wait_timeout;
    // A one-shot job: no connection may still be opening in the background when the process
    // exits (libpq's TLS clean-up at exit then races it and the process dies by a signal).
    config.min_idle = 0;
    tokio::task::spawn_blocking(move || Database::connect_applying(&config))
        .await?
        .context("opening the database")
}

/// `DATABASE_URL` as the service reads it (a secret, as it may hold a password), without
/// opening the database.
///
/// # Errors
/// A bad database setting.
pub fn database_url() -> anyhow::Result<SecretString> {
    Ok(settings::database::database(&vars())?.url)
}

/// `ACTIVITY_RETENTION_DAYS`, default 90.
///
/// # Errors
/// When the variable is set but is not a positive whole number.
pub fn retention_days() -> anyhow::Result<u32> {
    Ok(settings::activity::retention_days(&vars())?)
}

/// `text` with the passwords of `DATABASE_URL` and `SMTP_URL` (as written, and
/// percent-decoded) replaced by `***`. The errors the binary prints never carry them as far as
/// we know; this makes sure.
#[must_use]
pub fn redact(text: &str) -> String {
    let vars = vars();
    ["DATABASE_URL", "SMTP_URL"]
        .iter()
        .filter_map(|name| vars.get(name))
        .fold(text.to_owned(), |text, url| {
            settings::redact::url_password(&text, &url)
        })
}

/// What `deliver` needs besides the database: the service's settings of the same names.
#[derive(Debug)]
pub struct DeliverySettings {
    /// `SMTP_URL` and `SMTP_FROM`; `None`: e-mail deliveries wait (and are retried).
    pub smtp: Option<SmtpSettings>,
    /// `WEBHOOK_ALLOW_PRIVATE`.
    pub allow_private: bool,
    /// `PUBLIC_BASE_URL`, for the e-mails' links.
    pub public_base_url: String,
    /// `JWT_SECRET`, which signs the e-mails' unsubscribe links as the service does (empty
    /// when unset); a secret, so `Debug` shows none of it.
    pub jwt_secret: JwtSecret,
}

/// # Errors
/// A variable set to something unusable (as the service would refuse it), or e-mail
/// configured without what its links need.
pub fn delivery() -> anyhow::Result<DeliverySettings> {
    let vars = vars();
    let smtp = settings::delivery::smtp(&vars)?;
    let allow_private = settings::delivery::webhook_allow_private(&vars)?;
    let jwt_secret = settings::service::jwt_secret(&vars)?;
    let public_base_url = settings::service::public_base_url(&vars)?;
    // The service falls back to its dev defaults; a mail sent with them would link nowhere.
    if smtp.is_some() {
        anyhow::ensure!(
            vars.get("PUBLIC_BASE_URL").is_some() && jwt_secret.is_some(),
            "PUBLIC_BASE_URL and JWT_SECRET must be set with SMTP_URL: the e-mails link to the \
             service and carry unsubscribe links it signs"
        );
    }
    Ok(DeliverySettings {
        smtp,
        allow_private,
        public_base_url,
        jwt_secret: jwt_secret.unwrap_or_default(),
    })
}
