//! The sign-in flow's state between `/api/auth/login` and `/api/auth/callback`: `state`, `nonce`,
//! the PKCE verifier and where to go afterwards, kept in a short-lived signed cookie so any
//! instance behind the load balancer can finish what another began.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

pub use domain::account::redirect::is_local_path;

use crate::jwt::JwtKeys;

/// The audience that keeps login-state tokens from ever passing as access tokens.
const AUDIENCE: &str = "discovery-login";
/// How long a person has to sign in at the identity provider.
pub const LIFETIME_SECONDS: i64 = 600;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoginState {
    pub sub: String,
    pub iss: String,
    pub aud: String,
    pub exp: i64,
    pub state: String,
    pub nonce: String,
    pub pkce_verifier: String,
    /// A same-origin path, already checked.
    pub redirect: Option<String>,
}

impl LoginState {
    #[must_use]
    pub fn new(
        keys: &JwtKeys,
        state: String,
        nonce: String,
        pkce_verifier: String,
        redirect: Option<String>,
        now: OffsetDateTime,
    ) -> Self {
        Self {
            sub: "login".to_owned(),
            iss: keys.issuer().to_owned(),
            aud: AUDIENCE.to_owned(),
            exp: now.unix_timestamp() + LIFETIME_SECONDS,
            state,
            nonce,
            pkce_verifier,
            redirect,
        }
    }

    /// # Errors
    /// When signing fails.
    pub fn seal(&self, keys: &JwtKeys) -> Result<String, jsonwebtoken::errors::Error> {
        keys.sign(self)
    }

    /// # Errors
    /// For a cookie that was tampered with, expired, or is not a login state.
    pub fn open(keys: &JwtKeys, sealed: &str) -> Result<Self, jsonwebtoken::errors::Error> {
        keys.verify(sealed, AUDIENCE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_state_opens_only_with_the_same_key_and_not_as_an_access_token() {
        let keys = JwtKeys::new(&[1; 32], "discovery".into(), "web".into());
        let state = LoginState::new(
            &keys,
            "s".into(),
            "n".into(),
            "v".into(),
            Some("/x".into()),
            OffsetDateTime::now_utc(),
        );
        let sealed = state.seal(&keys).unwrap();
        assert_eq!(LoginState::open(&keys, &sealed).unwrap(), state);
        assert!(keys.verify_access(&sealed).is_err());
        let other = JwtKeys::new(&[2; 32], "discovery".into(), "web".into());
        assert!(LoginState::open(&other, &sealed).is_err());
    }
}
