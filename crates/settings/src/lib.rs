//! The settings more than one binary reads (`discovery-api`, `discovery-batch`, `discovery-mcp`,
//! `discovery-sync`), each parsed and validated once here, so a rule such as "no SMTP password
//! in clear to another host" holds for every binary alike. Each binary composes what it needs
//! from these and keeps only its own extras; every error is one line naming the variable.
//!
//! The values are plain types: a binary converts them to its adapters' config types at its
//! edge, so this crate depends on no adapter.

pub mod activity;
pub mod client;
pub mod database;
pub mod delivery;
mod error;
pub mod llm;
pub mod redact;
pub mod service;
mod vars;

pub use error::SettingError;
pub use vars::{MAX_RATE_LIMIT_PER_MINUTE, Vars};
