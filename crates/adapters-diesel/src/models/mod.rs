//! Row types, one file per table, and their conversions to and from domain types. Rows never
//! leave the crate; a stored value the domain refuses becomes an error, never a panic.

pub(crate) mod activity;
pub(crate) mod api_key;
pub(crate) mod checkin;
pub(crate) mod conversation;
pub(crate) mod mapping_rule;
pub(crate) mod notification;
pub(crate) mod preferences;
pub(crate) mod profile;
pub(crate) mod reflection;
pub(crate) mod revision;
pub(crate) mod session;
pub(crate) mod task_mapping;
pub(crate) mod user;
