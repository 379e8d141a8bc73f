//! The activity log's HTTP side: a middleware that describes every request and hands it to the
//! `activity-log` crate's bounded queue, drained in batches off the request path.

pub mod middleware;

pub use activity_log::{ActivityQueue, ActivityWriter};

/// A stable name for what a request did (`auth.login`, `api_key.create`...), set by handlers
/// that want one; other requests are named `METHOD /route/pattern`.
#[derive(Debug, Clone, Copy)]
pub struct Action(pub &'static str);
