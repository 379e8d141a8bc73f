//! Middleware that wraps every request: request ids and rate limits.

pub mod rate_limit;
pub mod request_id;
