//! The typed response of every route, one file per resource. A view is a struct that derives
//! `Serialize` and `utoipa::ToSchema` and is built from the domain type by one constructor: the
//! route serializes it as the body, and the OpenAPI document takes its schema from the same
//! type, so the two cannot drift (`tests/api/conformance.rs` checks every route's answers).

pub mod account;
pub mod activity;
pub mod coaching;
pub mod count;
pub mod device;
pub mod discovery;
pub mod enum_schemas;
pub mod export;
pub mod integration;
pub mod mapping_rules;
pub mod notifications;
pub mod operations;
pub mod page;
pub mod profile;
pub mod settings;
pub mod sources;
pub mod sweep;
