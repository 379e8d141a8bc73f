//! Credentials, apart from HTTP: access tokens (HS256 JWTs) and the sign-in state they seal,
//! secrets and the digests that are all the service ever stores of them, a short memory of
//! credentials checked recently, and the checks themselves — an API key or an access token
//! against the account store, which is a port ([`CredentialStore`]) so the checks are tested
//! with mocks. The HTTP side (headers, cookies, CSRF, the `Caller` extractor) stays in the
//! binary.

pub mod cache;
pub mod check;
pub mod jwt;
pub mod login_state;
pub mod secrets;
pub mod store;

pub use check::{Authenticated, Authenticator, CheckError, DEV_LOGIN_ISSUER, Operator};
pub use store::CredentialStore;
