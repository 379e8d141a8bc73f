//! Black-box tests of the `discovery-sync` binary: the real compiled binary, run as a child
//! process against the real service (started in-process on a random port over a throw-away
//! database: PostgreSQL when `TEST_DATABASE_URL` is set, else SQLite) and, where a test needs
//! it, the real Timewarrior over a temporary database (skipped with a notice when `timew` is
//! missing, unless `REQUIRE_TIMEWARRIOR=1`). The importers (Toggl, Clockify, ActivityWatch, ics)
//! run over the hand-written fixtures in `tests/fixtures/import/`.

// The 80-line limit is for the service's code (src/); a test or bench here is one scenario,
// read top to bottom, and splitting it would hide its steps.
#![allow(clippy::too_many_lines)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_debug_implementations
)]

mod aw_peer;
mod aw_stub;
mod expected;
mod harness;

mod account_zone;
mod calendar;
mod date_order;
mod exit_codes;
mod failures;
mod importers;
mod input;
mod live;
mod memory;
mod same_year;
mod server_rules;
mod showing;
mod sweeps;
mod timewarrior;
mod waiting;
mod zones;
