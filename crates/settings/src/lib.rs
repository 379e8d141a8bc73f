//! The settings of every binary (`discovery-api`, `discovery-batch`, `discovery-mcp`,
//! `discovery-sync`), each parsed and validated once here, so a rule such as "no SMTP password
//! in clear to another host" holds for every binary alike. The ones several binaries read have
//! a module each; `api` composes them with `discovery-api`'s own (sign-in, rate limits, the
//! identity provider). Every error is one line naming the variable.
//!
//! The values are plain types, each secret a `secrecy` type whose `Debug` cannot print it: a
//! binary converts them to its adapters' config types at its edge, so this crate depends on no
//! adapter (only on `domain`, for the redirect rule).

pub mod activity;
pub mod api;
pub mod catalogue;
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
