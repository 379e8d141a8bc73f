//! `migrate`: applies pending migrations and reports which ran.

use serde_json::{Value, json};

/// # Errors
/// When the database cannot be opened or a migration fails.
pub async fn run() -> anyhow::Result<Value> {
    let db = crate::config::database().await?;
    // Opening the database already applied what was pending; ask again to report the state.
    let applied = db.run_migrations().await?;
    Ok(json!({"backend": format!("{:?}", db.backend()).to_lowercase(), "applied_now": applied}))
}
