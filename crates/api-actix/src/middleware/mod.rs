//! Middleware that wraps every request: request ids, rate limits, the request metrics, and what
//! the layers label requests by (the route pattern, the client's address).

pub mod client_ip;
pub mod metrics;
pub mod rate_limit;
pub mod request_id;
pub mod route_pattern;
