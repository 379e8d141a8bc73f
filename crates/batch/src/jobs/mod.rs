//! One module per job; each `run` returns a JSON-serialisable report.

pub mod backup;
pub mod checkins;
pub mod deliver;
pub mod migrate;
pub mod prune_activity;
pub mod verify;
