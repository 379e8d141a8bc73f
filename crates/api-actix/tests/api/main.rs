//! Black-box tests of the discovery API over HTTP: the real application on a random port with a
//! fresh database per test (SQLite, or PostgreSQL when `TEST_DATABASE_URL` is set), and sign-in
//! end to end against a real OpenID provider. One binary; modules by area.

// The 80-line limit is for the service's code (src/); a test or bench here is one scenario,
// read top to bottom, and splitting it would hide its steps.
#![allow(clippy::too_many_lines)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_debug_implementations
)]

mod abuse;
mod account;
mod activity;
mod admin;
mod api_keys;
mod coach_reads;
mod coaching;
mod conformance;
mod credentials;
mod csrf;
mod discovery;
mod extractors;
mod fair_outbox;
mod fair_writer;
mod health;
mod helpers;
mod integration;
mod isolation;
mod journey;
mod least_privilege;
mod llm;
mod mapping_rules;
mod metrics;
mod notifications;
mod openapi;
mod profile;
mod rate_limits;
mod secrets_at_rest;
mod sessions;
mod sign_in;
mod stall;
mod sweep;
mod time_zone;
mod way_back;
mod web;
