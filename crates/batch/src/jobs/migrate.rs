//! `migrate`: applies pending migrations and reports which ran.

use serde_json::{Value, json};

/// # Errors
/// When the database cannot be opened or a migration fails.
pub async fn run() -> anyhow::Result<Value> {
    let (db, applied) = crate::config::database_applying().await?;
    Ok(json!({"backend": format!("{:?}", db.backend()).to_lowercase(), "applied_now": applied}))
}
