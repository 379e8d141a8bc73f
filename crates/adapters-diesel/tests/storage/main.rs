//! The storage suite: every repository method and rule, written once and run against SQLite
//! (a temporary file per test) and, when `TEST_DATABASE_URL` is set, PostgreSQL (a fresh
//! database per test, dropped afterwards).

// The 80-line limit is for the service's code (src/); a test or bench here is one scenario,
// read top to bottom, and splitting it would hide its steps.
#![allow(clippy::too_many_lines)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_debug_implementations
)]

#[macro_use]
mod harness;

mod account;
mod activity;
mod api_keys;
mod bounds;
mod cascade;
mod checkin_run;
mod checkins;
mod checkpoint;
mod connect;
mod conversations;
mod delivery_queue;
mod errors;
mod mapping_rules;
mod notifications;
mod preferences;
mod profiles;
mod reclassification;
mod reflection;
mod schema;
mod sessions;
mod sweeps;
mod task_mappings;
mod users;
