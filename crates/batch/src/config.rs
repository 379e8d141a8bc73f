//! Settings of the batch binary: the same environment variables as the service.

use adapters_diesel::{Database, DbConfig};
use anyhow::Context;

const DEFAULT_DATABASE_URL: &str = "sqlite://data/discovery.db";
const DEFAULT_RETENTION_DAYS: u32 = 90;

/// Reads `DATABASE_URL` (default: the dev SQLite file) and opens the database, migrating it.
///
/// # Errors
/// When the database cannot be opened or migrated.
pub async fn database() -> anyhow::Result<Database> {
    let _ = dotenvy::dotenv();
    let url = std::env::var("DATABASE_URL")
        .ok()
        .filter(|u| !u.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_DATABASE_URL.to_owned());
    let config = DbConfig::new(url);
    tokio::task::spawn_blocking(move || Database::connect(&config))
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
