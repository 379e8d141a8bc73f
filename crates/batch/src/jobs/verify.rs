//! `verify FILE`: a backup's integrity, its migration version against this build's, and rows
//! per table. Fails (exit 1) unless the file is sound and this build can serve it.

use std::path::PathBuf;

use serde_json::{Value, json};

/// # Errors
/// No such file, not a SQLite database, or a file that is not sound (the report says why).
pub async fn run(file: PathBuf) -> anyhow::Result<Value> {
    let shown = file.display().to_string();
    let found =
        tokio::task::spawn_blocking(move || adapters_diesel::backup::verify(&file)).await??;
    anyhow::ensure!(
        found.is_sound(),
        "{shown} is not a usable backup: integrity {:?}, migration version {:?}, migrations \
         this build does not know {:?}",
        found.integrity,
        found.migration_version,
        found.unknown,
    );
    Ok(json!({
        "file": shown,
        "integrity": "ok",
        "migration_version": found.migration_version,
        "pending_migrations": found.pending,
        "tables": found.tables,
    }))
}
