//! End-to-end tests of the `discovery-batch` binary: the real compiled binary, run as a child
//! process with `DATABASE_URL` pointing at a throw-away database seeded through the
//! repositories; SQLite always, PostgreSQL too when `TEST_DATABASE_URL` is set.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_debug_implementations
)]

#[macro_use]
mod harness;

mod backup;
mod checkins;
mod deliver;
mod failure;
mod migrate;
mod prune_activity;
