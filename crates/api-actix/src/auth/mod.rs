//! Authentication over HTTP: where a request's credential is (API key, Bearer JWT, session
//! cookie), the cookies that carry them, CSRF defence for cookie-authenticated writes and least
//! privilege (what a key or a token may do). The checks themselves, the tokens and secrets are
//! the `credentials` crate's.

pub mod caller;
pub mod cookies;
pub mod csrf;
pub mod policy;

pub use caller::{AdminCaller, Caller};
