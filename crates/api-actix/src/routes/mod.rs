//! HTTP routes, one file per resource.

pub mod health;
