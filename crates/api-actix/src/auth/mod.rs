//! Authentication: credentials (API key, Bearer JWT, session cookie), the tokens and cookies
//! that carry them, CSRF defence for cookie-authenticated writes, least privilege (what a key
//! or a token may do), and the sign-in flow state.

pub mod authenticator;
pub mod cache;
pub mod caller;
pub mod cookies;
pub mod csrf;
pub mod jwt;
pub mod login_state;
pub mod policy;
pub mod secrets;

pub use caller::{AdminCaller, Caller};
