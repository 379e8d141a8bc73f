//! The test identity provider and the browser stand-in live in `adapters_oidc::testing` (feature
//! `testing`), shared with the API's sign-in tests; this module re-exports what these tests use.

pub use adapters_oidc::testing::{IdpOptions, TestIdp, config_for, free_port, sign_in};
