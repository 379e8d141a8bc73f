//! `prune-activity`: deletes activity-log entries older than the retention.

use adapters_diesel::DieselActivityRepository;
use domain::clock::{Clock, SystemClock};
use domain::ports::ActivityRepository;
use serde_json::{Value, json};
use time::Duration;

/// # Errors
/// When the retention setting is invalid or the database fails.
pub async fn run(days: Option<u32>) -> anyhow::Result<Value> {
    let days = match days {
        Some(d) => {
            anyhow::ensure!(d > 0, "--days must be at least 1");
            d
        }
        None => crate::config::retention_days()?,
    };
    let db = crate::config::database().await?;
    let before = SystemClock.now() - Duration::days(i64::from(days));
    let deleted = DieselActivityRepository::new(db).prune(before).await?;
    Ok(json!({"days": days, "deleted": deleted}))
}
