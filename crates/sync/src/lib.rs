//! `discovery-sync`: reads a time tracker's entries, maps them onto the six foundations (or
//! leaves that to the server's rules) and upserts them as task mappings through the service's
//! HTTP API (`POST /integration/task-mappings/batch`, `X-API-Key`).
//!
//! The pieces are plain functions over values so they can be tested without a tracker or a
//! service: [`mapping`] (the TOML rules), [`timew`] (reading `timew export`), [`entries`]
//! (intervals to task mappings: ids, minutes, labels), [`import`] (Toggl, Clockify and
//! ActivityWatch exports, calendars), [`items`] (imported entries to task mappings), [`tags`] (the
//! contract's limits on tags), [`zone`] (an export's local times in UTC), [`client`] (the batched upload), [`sweep`] (deleting what the
//! tracker no longer has), [`awserver`] (a running ActivityWatch read over its REST API),
//! [`cursor`] (the live import's state file) and [`cleartext`] (the warning
//! for a key sent in clear). The binary's side: [`cli`] (the flags), [`run`] (one subcommand to
//! the end), [`account`] (the account's time zone, the default zone), [`skipped`] (the limit on
//! skipped rows and their file), [`progress`] (the bar) and [`summary`] (the summary line and
//! exit code).

pub mod account;
pub mod awserver;
pub mod cleartext;
pub mod cli;
pub mod client;
pub mod cursor;
pub mod entries;
pub mod http_date;
pub mod import;
pub mod items;
pub mod mapping;
pub mod progress;
pub mod retry_after;
pub mod run;
pub mod skipped;
pub mod summary;
pub mod sweep;
pub mod tags;
pub mod timew;
pub mod zone;

use std::fmt;

/// The six foundations of the contract, in order (docs/api.md, "Foundations").
pub const FOUNDATIONS: [&str; 6] = domain::foundation::Foundation::KEYS;

/// Why a run stopped; the variant picks the exit code ([`summary::EXIT_CODES`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The command line, the mapping file or the environment is wrong: exit code 2.
    Usage(String),
    /// Reading the tracker or talking to the service failed: exit code 1.
    Failed(String),
}

impl Failure {
    /// 2 for bad usage, 1 for everything else.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Usage(_) => 2,
            Self::Failed(_) => 1,
        }
    }

    /// The message alone.
    #[must_use]
    pub fn message(&self) -> &str {
        match self {
            Self::Usage(m) | Self::Failed(m) => m,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for Failure {}
