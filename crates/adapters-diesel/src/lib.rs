//! Storage for the Discovery Service: every storage port of the domain implemented once over
//! diesel, for SQLite and PostgreSQL alike (a `MultiConnection` pooled by r2d2), with the
//! migration chains of both backends embedded and applied at connect time.
//!
//! ```no_run
//! # fn main() -> Result<(), adapters_diesel::DbError> {
//! use adapters_diesel::{Database, DbConfig, DieselProfileRepository};
//! let db = Database::connect(&DbConfig::new("sqlite://data/discovery.db"))?;
//! let profiles = DieselProfileRepository::new(db.clone());
//! # let _ = profiles; Ok(()) }
//! ```

pub mod backup;
mod checkpointer;
pub mod connection;
mod convert;
pub mod database;
pub mod error;
mod expressions;
mod group_commit;
mod leader_queue;
pub mod migrations;
mod models;
mod person_turns;
mod reachability;
mod read_group;
mod repos;
pub mod schema;
mod sqlite_writer;
#[cfg(feature = "testing")]
pub mod testing;
mod tx;

pub use connection::{Backend, DEFAULT_WAIT_TIMEOUT, DbConfig, DbConnection, DbPooledConnection};
pub use database::Database;
pub use error::DbError;
pub use repos::{
    DieselActivityRepository, DieselApiKeyRepository, DieselCheckInRepository,
    DieselConversationRepository, DieselDeliveryQueue, DieselNotificationRepository,
    DieselPreferencesRepository, DieselProfileRepository, DieselReflectionRepository,
    DieselRuleRepository, DieselSessionRepository, DieselTaskMappingRepository,
    DieselUserRepository,
};
