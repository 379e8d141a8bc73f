//! The `discovery-api` service: settings, wiring of adapters into the domain, and the HTTP routes.

pub mod config;
pub mod routes;
pub mod startup;
pub mod telemetry;
