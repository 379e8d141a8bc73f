//! `checkins`: the scheduled run that writes the due check-ins (no duplicates, enforced by storage).

use adapters_diesel::{
    DieselCheckInRepository, DieselPreferencesRepository, DieselProfileRepository,
    DieselTaskMappingRepository,
};
use domain::clock::SystemClock;
use domain::services::CoachingService;
use serde_json::Value;

/// # Errors
/// When the database fails.
pub async fn run() -> anyhow::Result<Value> {
    let db = crate::config::database().await?;
    let service = CoachingService::new(
        DieselProfileRepository::new(db.clone()),
        DieselPreferencesRepository::new(db.clone()),
        DieselCheckInRepository::new(db.clone()),
        DieselTaskMappingRepository::new(db),
        SystemClock,
    );
    Ok(serde_json::to_value(service.run_due().await?)?)
}
