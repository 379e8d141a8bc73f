//! Middleware that wraps every request: request ids, rate limits, and the route pattern the
//! layers label requests by.

pub mod rate_limit;
pub mod request_id;
pub mod route_pattern;
