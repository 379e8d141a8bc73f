//! The typed request of every route that reads a body, a query string or a path parameter,
//! one file per resource. Each is deserialized as it arrives and described in the OpenAPI
//! document by the same type, with every limit taken from the domain's constants (`rules`).

pub mod account;
pub mod coaching;
pub mod discovery;
pub mod integration;
pub mod mapping_rules;
pub mod notifications;
pub mod page;
pub mod profile;
pub mod rules;
pub mod settings;
pub mod sweep;
