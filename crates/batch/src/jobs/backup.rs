//! `backup --to FILE`: an online copy of the SQLite database (while the service writes), with
//! its rows per table and how long it took. PostgreSQL is backed up with `pg_dump`.

use std::path::PathBuf;
use std::time::Instant;

use secrecy::ExposeSecret;
use serde_json::{Value, json};

/// # Errors
/// A bad `DATABASE_URL`, a PostgreSQL one, an existing `to`, or a failed copy (nothing is left
/// at `to` then).
pub async fn run(to: PathBuf) -> anyhow::Result<Value> {
    let url = crate::config::database_url()?;
    let started = Instant::now();
    let backup = tokio::task::spawn_blocking(move || {
        adapters_diesel::backup::backup(url.expose_secret(), &to)
    })
    .await??;
    Ok(json!({
        "to": backup.file.display().to_string(),
        "bytes": backup.bytes,
        "seconds": (started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0,
        "tables": backup.tables,
    }))
}
