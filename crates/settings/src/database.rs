//! The database every binary opens: `DATABASE_URL` (a SQLite path or URL, or a PostgreSQL URL;
//! the backend is picked from the scheme by the storage adapter), `DATABASE_MAX_CONNECTIONS` and
//! `DATABASE_WAIT_TIMEOUT_MS`.

use std::time::Duration;

use secrecy::SecretString;

use crate::error::invalid;
use crate::{SettingError, Vars};

/// Where dev mode, and every binary without `DATABASE_URL`, keeps its database.
pub const DEV_DATABASE_URL: &str = "sqlite://data/discovery.db";
/// The pool size without `DATABASE_MAX_CONNECTIONS`.
pub const DEFAULT_MAX_CONNECTIONS: u32 = 10;
/// The bound on a wait for a connection permit or SQLite's writer without
/// `DATABASE_WAIT_TIMEOUT_MS`: past it a request is refused as busy, having changed nothing.
pub const DEFAULT_WAIT_TIMEOUT: Duration = Duration::from_secs(5);

/// The database to open.
#[derive(Debug, Clone)]
pub struct DatabaseSettings {
    /// A secret, as it may hold a password: `Debug` shows none of it, not even the host.
    pub url: SecretString,
    /// At least 1.
    pub max_connections: u32,
    /// At least 1 ms.
    pub wait_timeout: Duration,
}

/// # Errors
/// `DATABASE_MAX_CONNECTIONS` or `DATABASE_WAIT_TIMEOUT_MS` that is not a whole number of at
/// least 1.
pub fn database(vars: &Vars<'_>) -> Result<DatabaseSettings, SettingError> {
    let name = "DATABASE_MAX_CONNECTIONS";
    let max_connections = vars.number(name, i64::from(DEFAULT_MAX_CONNECTIONS), 1)?;
    let wait = "DATABASE_WAIT_TIMEOUT_MS";
    let default_wait = i64::try_from(DEFAULT_WAIT_TIMEOUT.as_millis()).unwrap_or(i64::MAX);
    let wait_ms = vars.number(wait, default_wait, 1)?;
    Ok(DatabaseSettings {
        url: vars.text("DATABASE_URL", DEV_DATABASE_URL).into(),
        max_connections: u32::try_from(max_connections).map_err(|e| invalid(name, e))?,
        wait_timeout: Duration::from_millis(u64::try_from(wait_ms).map_err(|e| invalid(wait, e))?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use secrecy::ExposeSecret;

    #[test]
    fn without_settings_the_dev_database_with_ten_connections() {
        let db = database(&Vars::from_pairs([("DATABASE_URL", "  ")])).unwrap();
        assert_eq!(db.url.expose_secret(), DEV_DATABASE_URL);
        assert_eq!(db.max_connections, 10);
        assert_eq!(db.wait_timeout, DEFAULT_WAIT_TIMEOUT);
    }

    #[test]
    fn the_wait_bound_is_whole_milliseconds_of_at_least_one() {
        let db = database(&Vars::from_pairs([("DATABASE_WAIT_TIMEOUT_MS", "250")])).unwrap();
        assert_eq!(db.wait_timeout, Duration::from_millis(250));
        for bad in ["0", "-5", "soon", "1.5"] {
            let err = database(&Vars::from_pairs([("DATABASE_WAIT_TIMEOUT_MS", bad)]))
                .unwrap_err()
                .to_string();
            assert!(
                err.starts_with("DATABASE_WAIT_TIMEOUT_MS is not valid"),
                "{err}"
            );
        }
    }

    #[test]
    fn the_pool_size_is_a_whole_number_of_at_least_one() {
        let db = database(&Vars::from_pairs([("DATABASE_MAX_CONNECTIONS", "3")])).unwrap();
        assert_eq!(db.max_connections, 3);
        for bad in ["0", "-1", "many", "99999999999"] {
            let err = database(&Vars::from_pairs([("DATABASE_MAX_CONNECTIONS", bad)]))
                .unwrap_err()
                .to_string();
            assert!(
                err.starts_with("DATABASE_MAX_CONNECTIONS is not valid"),
                "{err}"
            );
        }
    }

    #[test]
    fn the_password_of_the_url_never_reaches_debug_output() {
        let url = "postgres://app:s3cret@db.example/discovery";
        let db = database(&Vars::from_pairs([("DATABASE_URL", url)])).unwrap();
        assert_eq!(db.url.expose_secret(), url);
        let shown = format!("{db:?}");
        assert!(
            !shown.contains("s3cret") && shown.contains("REDACTED"),
            "{shown}"
        );
        assert!(shown.contains("max_connections: 10"), "{shown}");
    }
}
