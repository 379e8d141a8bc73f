//! The `discovery-api` service: wiring of adapters into the domain, authentication over HTTP,
//! the activity log and the HTTP routes.

pub mod activity;
pub mod answers;
pub mod auth;
pub mod error;
pub mod extract;
pub mod middleware;
pub mod openapi;
pub mod routes;
pub mod service_types;
pub mod startup;
pub mod state;
pub mod telemetry;

// The typed requests and views are the contract's (`api-contract`); re-exported so the routes
// keep naming them `crate::requests::...` and `crate::views::...`.
pub use api_contract::{requests, views};
