//! Settings of the batch binary: the same environment variables as the service, and keeping the
//! database password out of anything the binary prints.

use adapters_diesel::{Database, DbConfig};
use anyhow::Context;

const DEFAULT_DATABASE_URL: &str = "sqlite://data/discovery.db";
const DEFAULT_RETENTION_DAYS: u32 = 90;

/// `DATABASE_URL` (after an optional `.env`), default: the dev SQLite file.
fn database_url() -> String {
    let _ = dotenvy::dotenv();
    std::env::var("DATABASE_URL")
        .ok()
        .filter(|u| !u.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_DATABASE_URL.to_owned())
}

/// Opens the database named by `DATABASE_URL`, migrating it.
///
/// # Errors
/// When the database cannot be opened or migrated.
pub async fn database() -> anyhow::Result<Database> {
    Ok(database_applying().await?.0)
}

/// Like [`database`], also returning the migration versions this run applied.
///
/// # Errors
/// When the database cannot be opened or migrated.
pub async fn database_applying() -> anyhow::Result<(Database, Vec<String>)> {
    let mut config = DbConfig::new(database_url());
    // A one-shot job: no connection may still be opening in the background when the process
    // exits (libpq's TLS clean-up at exit then races it and the process dies by a signal).
    config.min_idle = 0;
    tokio::task::spawn_blocking(move || Database::connect_applying(&config))
        .await?
        .context("opening the database")
}

/// `ACTIVITY_RETENTION_DAYS`, default 90.
///
/// # Errors
/// When the variable is set but is not a positive whole number.
pub fn retention_days() -> anyhow::Result<u32> {
    match std::env::var("ACTIVITY_RETENTION_DAYS") {
        Ok(v) if !v.trim().is_empty() => {
            let days: u32 = v
                .trim()
                .parse()
                .context("ACTIVITY_RETENTION_DAYS is not a whole number")?;
            anyhow::ensure!(days > 0, "ACTIVITY_RETENTION_DAYS must be at least 1");
            Ok(days)
        }
        _ => Ok(DEFAULT_RETENTION_DAYS),
    }
}

/// `text` with the password of `DATABASE_URL` (as written, and percent-decoded) replaced by
/// `***`. The errors the binary prints never carry it as far as we know; this makes sure.
#[must_use]
pub fn redact(text: &str) -> String {
    let text = redact_password(text, &database_url());
    match var("SMTP_URL") {
        Some(smtp) => redact_password(&text, &smtp),
        None => text,
    }
}

/// A variable, blank counting as unset.
pub fn var(name: &str) -> Option<String> {
    let _ = dotenvy::dotenv();
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// What `deliver` needs besides the database: the service's settings of the same names.
pub struct DeliverySettings {
    /// `SMTP_URL` and `SMTP_FROM`; `None`: e-mail deliveries wait (and are retried).
    pub smtp: Option<(String, String)>,
    /// `WEBHOOK_ALLOW_PRIVATE`.
    pub allow_private: bool,
    /// `PUBLIC_BASE_URL`, for the e-mails' links.
    pub public_base_url: String,
    /// `JWT_SECRET`, which signs the e-mails' unsubscribe links as the service does.
    pub jwt_secret: Vec<u8>,
}

/// # Errors
/// A variable set to something unusable, or e-mail configured without what its links need.
pub fn delivery() -> anyhow::Result<DeliverySettings> {
    let smtp = match (var("SMTP_URL"), var("SMTP_FROM")) {
        (None, _) => None,
        (Some(_), None) => anyhow::bail!("SMTP_FROM must be set with SMTP_URL"),
        (Some(url), Some(from)) => Some((url, from)),
    };
    let allow_private = match var("WEBHOOK_ALLOW_PRIVATE").as_deref() {
        None | Some("false" | "0" | "no") => false,
        Some("true" | "1" | "yes") => true,
        Some(_) => anyhow::bail!("WEBHOOK_ALLOW_PRIVATE is not valid: expected true or false"),
    };
    let public_base_url = var("PUBLIC_BASE_URL");
    let jwt_secret = var("JWT_SECRET");
    if smtp.is_some() {
        anyhow::ensure!(
            public_base_url.is_some() && jwt_secret.is_some(),
            "PUBLIC_BASE_URL and JWT_SECRET must be set with SMTP_URL: the e-mails link to the \
             service and carry unsubscribe links it signs"
        );
    }
    Ok(DeliverySettings {
        smtp,
        allow_private,
        public_base_url: public_base_url.unwrap_or_else(|| "http://localhost:8011".to_owned()),
        jwt_secret: jwt_secret.unwrap_or_default().into_bytes(),
    })
}

fn redact_password(text: &str, url: &str) -> String {
    let Some(password) = password_of(url) else {
        return text.to_owned();
    };
    let mut out = text.to_owned();
    for secret in [percent_decode(password), password.to_owned()] {
        if !secret.is_empty() {
            out = out.replace(&secret, "***");
        }
    }
    out
}

/// The password of `scheme://user:password@host/...` or of a `password=` query parameter.
fn password_of(url: &str) -> Option<&str> {
    let (_, rest) = url.split_once("://")?;
    let (base, query) = rest.split_once('?').unwrap_or((rest, ""));
    let in_query = query
        .split('&')
        .find_map(|pair| pair.strip_prefix("password="));
    let authority = base.split('/').next().unwrap_or(base);
    let in_userinfo = authority
        .rsplit_once('@')
        .and_then(|(userinfo, _)| userinfo.split_once(':'))
        .map(|(_, p)| p);
    in_userinfo.or(in_query).filter(|p| !p.is_empty())
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_of_the_url_is_redacted_as_written_and_decoded() {
        let url = "postgres://app:p%40ss-w0rd@db.example:5432/discovery?sslmode=require";
        assert_eq!(password_of(url), Some("p%40ss-w0rd"));
        assert_eq!(
            redact_password("failed for p@ss-w0rd and p%40ss-w0rd at db.example", url),
            "failed for *** and *** at db.example"
        );
        assert_eq!(
            password_of("postgres://app@db.example/x?sslmode=disable&password=s3cret"),
            Some("s3cret")
        );
        for no_password in [
            "postgres://app@db.example/discovery",
            "postgres://app:@db.example/discovery",
            "sqlite://data/discovery.db",
            "data/discovery.db",
        ] {
            assert_eq!(password_of(no_password), None, "{no_password}");
            assert_eq!(redact_password("text", no_password), "text");
        }
    }
}
