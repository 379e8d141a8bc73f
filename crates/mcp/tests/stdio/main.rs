//! Black-box tests of `discovery-mcp`: the built binary driven over stdin/stdout by a scripted
//! MCP client, against the real service on a random port over a fresh database (SQLite, or
//! PostgreSQL when `TEST_DATABASE_URL` is set).

// The 80-line limit is for the service's code (src/); a test or bench here is one scenario,
// read top to bottom, and splitting it would hide its steps.
#![allow(clippy::too_many_lines)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_debug_implementations
)]

mod harness;
mod session;
