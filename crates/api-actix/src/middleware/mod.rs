//! Middleware that wraps every request.

pub mod request_id;
