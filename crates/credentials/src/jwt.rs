//! Access tokens: HS256 JWTs with `sub`, `sid`, `adm`, `iss`, `aud`, `iat`, `exp`. The algorithm
//! is pinned, so `alg: none` and RS/HS confusion are refused before any claim is read.

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// The claims of an access token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessClaims {
    /// The user id.
    pub sub: String,
    /// The session id.
    pub sid: String,
    /// Whether the user is an admin, as the settings said at sign-in or refresh: a change of
    /// `ADMIN_EMAILS` takes effect within one access-token lifetime.
    pub adm: bool,
    pub iss: String,
    pub aud: String,
    pub iat: i64,
    pub exp: i64,
}

/// Signs and verifies tokens for one secret, issuer and audience.
#[derive(Debug, Clone)]
pub struct JwtKeys {
    /// jsonwebtoken's keys hold the secret as secrecy would: their `Debug` prints `[redacted]`
    /// and they are wiped when dropped.
    encoding: EncodingKey,
    decoding: DecodingKey,
    issuer: String,
    audience: String,
    /// The checks of an access token, built once: every authenticated request needs them.
    access: Validation,
}

impl JwtKeys {
    #[must_use]
    pub fn new(secret: &[u8], issuer: String, audience: String) -> Self {
        let access = validation(&issuer, &audience);
        Self {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            issuer,
            audience,
            access,
        }
    }

    /// Signs `claims` after filling in issuer, audience and times.
    ///
    /// # Errors
    /// When signing fails (it does not with an HMAC key).
    pub fn sign<C: Serialize>(&self, claims: &C) -> Result<String, jsonwebtoken::errors::Error> {
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &self.encoding)
    }

    /// An access token for a session, valid `ttl_seconds` from `now`.
    ///
    /// # Errors
    /// When signing fails.
    pub fn access_token(
        &self,
        user: &str,
        session: &str,
        admin: bool,
        now: OffsetDateTime,
        ttl_seconds: i64,
    ) -> Result<String, jsonwebtoken::errors::Error> {
        let iat = now.unix_timestamp();
        self.sign(&AccessClaims {
            sub: user.to_owned(),
            sid: session.to_owned(),
            adm: admin,
            iss: self.issuer.clone(),
            aud: self.audience.clone(),
            iat,
            exp: iat + ttl_seconds,
        })
    }

    /// Verifies signature, algorithm, issuer, `audience` and expiry, and returns the claims.
    ///
    /// # Errors
    /// For any token that fails a check.
    pub fn verify<C: for<'de> Deserialize<'de>>(
        &self,
        token: &str,
        audience: &str,
    ) -> Result<C, jsonwebtoken::errors::Error> {
        let validation = validation(&self.issuer, audience);
        jsonwebtoken::decode::<C>(token, &self.decoding, &validation).map(|data| data.claims)
    }

    /// Verifies an access token.
    ///
    /// # Errors
    /// For any token that fails a check.
    pub fn verify_access(&self, token: &str) -> Result<AccessClaims, jsonwebtoken::errors::Error> {
        jsonwebtoken::decode(token, &self.decoding, &self.access).map(|data| data.claims)
    }

    #[must_use]
    pub fn issuer(&self) -> &str {
        &self.issuer
    }
}

/// Seconds a token is still accepted after its `exp` (clocks of other instances drift).
pub const LEEWAY_SECONDS: u64 = 5;

/// HS256 only, our issuer, `audience`, and `exp`, `iss`, `aud`, `sub` required.
fn validation(issuer: &str, audience: &str) -> Validation {
    let mut validation = Validation::new(Algorithm::HS256);
    validation.set_issuer(&[issuer]);
    validation.set_audience(&[audience]);
    validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
    validation.leeway = LEEWAY_SECONDS;
    validation
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    fn keys() -> JwtKeys {
        JwtKeys::new(&[7; 32], "discovery".into(), "web".into())
    }

    fn now() -> OffsetDateTime {
        OffsetDateTime::now_utc()
    }

    #[test]
    fn a_signed_token_verifies_with_its_claims() {
        let token = keys().access_token("u1", "s1", true, now(), 900).unwrap();
        let claims = keys().verify_access(&token).unwrap();
        assert_eq!(
            (claims.sub.as_str(), claims.sid.as_str(), claims.adm),
            ("u1", "s1", true)
        );
        assert_eq!(claims.exp - claims.iat, 900);
    }

    #[test]
    fn the_secret_never_reaches_debug_output() {
        let keys = JwtKeys::new(
            b"jwt-secret-never-printed-0123456789",
            "discovery".into(),
            "web".into(),
        );
        let shown = format!("{keys:?}");
        assert!(!shown.contains("never-printed"), "{shown}");
        // Nor its bytes, as a byte slice's `Debug` would print them (`j` is 106, `w` 119).
        assert!(!shown.contains("106, 119, 116"), "{shown}");
        assert!(shown.contains("discovery"), "{shown}");
    }

    #[test]
    fn expired_tampered_foreign_and_unsigned_tokens_are_refused() {
        let expired = keys()
            .access_token("u1", "s1", false, datetime!(2020-01-01 0:00 UTC), 900)
            .unwrap();
        assert!(keys().verify_access(&expired).is_err());

        let token = keys().access_token("u1", "s1", false, now(), 900).unwrap();
        let other_secret = JwtKeys::new(&[8; 32], "discovery".into(), "web".into());
        assert!(other_secret.verify_access(&token).is_err());
        let other_audience = JwtKeys::new(&[7; 32], "discovery".into(), "mobile".into());
        assert!(other_audience.verify_access(&token).is_err());
        let other_issuer = JwtKeys::new(&[7; 32], "elsewhere".into(), "web".into());
        assert!(other_issuer.verify_access(&token).is_err());

        // Flip the payload's admin flag: the signature no longer matches.
        let mut parts: Vec<String> = token.split('.').map(str::to_owned).collect();
        let claims = keys().verify_access(&token).unwrap();
        let forged = AccessClaims {
            adm: true,
            ..claims
        };
        use base64::Engine;
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        parts[1] = b64.encode(serde_json::to_vec(&forged).unwrap());
        assert!(keys().verify_access(&parts.join(".")).is_err());

        // `alg: none` with no signature.
        let none_header = b64.encode(br#"{"alg":"none","typ":"JWT"}"#);
        assert!(
            keys()
                .verify_access(&format!("{none_header}.{}.", parts[1]))
                .is_err()
        );
    }
}
