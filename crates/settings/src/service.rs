//! What every binary that speaks for the service shares: its public address (`PUBLIC_BASE_URL`,
//! which links in e-mails point at) and the secret that signs its tokens and links
//! (`JWT_SECRET`). `discovery-api` and `discovery-batch deliver` must agree on both, or the
//! links one writes would not work on the other.

use secrecy::SecretSlice;
use url::Url;

use crate::error::invalid;
use crate::{SettingError, Vars};

/// The service's address without `PUBLIC_BASE_URL` (the default `BIND_ADDR` port).
pub const DEFAULT_PUBLIC_BASE_URL: &str = "http://localhost:8011";
/// The log filter without `RUST_LOG`.
pub const DEFAULT_LOG_FILTER: &str = "info";
/// HS256 needs a key at least as long as its output.
pub const MIN_JWT_SECRET_BYTES: usize = 32;

/// `PUBLIC_BASE_URL` as an origin, `scheme://host[:port]` (no trailing slash); the default
/// when unset.
///
/// # Errors
/// A value that is not an http(s) URL.
pub fn public_base_url(vars: &Vars<'_>) -> Result<String, SettingError> {
    origin(
        "PUBLIC_BASE_URL",
        &vars.text("PUBLIC_BASE_URL", DEFAULT_PUBLIC_BASE_URL),
    )
}

/// `RUST_LOG`, the `tracing` filter of what a binary logs (its syntax is the logging library's
/// to judge: an unreadable one logs at [`DEFAULT_LOG_FILTER`]).
#[must_use]
pub fn log_filter(vars: &Vars<'_>) -> String {
    vars.text("RUST_LOG", DEFAULT_LOG_FILTER)
}

/// `scheme://host[:port]` of a URL setting such as `PUBLIC_BASE_URL` or an entry of
/// `CORS_ALLOWED_ORIGINS`.
///
/// # Errors
/// A value that is not an http(s) URL, named by `name`.
pub fn origin(name: &'static str, value: &str) -> Result<String, SettingError> {
    let url = Url::parse(value).map_err(|e| invalid(name, e))?;
    let origin = url.origin();
    if !origin.is_tuple() {
        return Err(invalid(name, "must be an http(s) URL"));
    }
    Ok(origin.ascii_serialization())
}

/// The key of `JWT_SECRET`: a secret, so `Debug` cannot show it; its bytes are read
/// (`expose_secret`) for signing and verifying only.
pub type JwtSecret = SecretSlice<u8>;

/// `JWT_SECRET`, `None` when unset (whether that is allowed is the binary's to say).
///
/// # Errors
/// A secret shorter than [`MIN_JWT_SECRET_BYTES`] (its length is named, never its value).
pub fn jwt_secret(vars: &Vars<'_>) -> Result<Option<JwtSecret>, SettingError> {
    match vars.get("JWT_SECRET") {
        None => Ok(None),
        Some(secret) if secret.len() >= MIN_JWT_SECRET_BYTES => {
            Ok(Some(JwtSecret::from(secret.into_bytes())))
        }
        Some(secret) => Err(invalid(
            "JWT_SECRET",
            format!(
                "must be at least {MIN_JWT_SECRET_BYTES} bytes (got {})",
                secret.len()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use secrecy::ExposeSecret;

    const SECRET: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn the_public_base_url_is_an_origin_with_a_default() {
        let url = |v: &str| public_base_url(&Vars::from_pairs([("PUBLIC_BASE_URL", v)]));
        assert_eq!(url("").unwrap(), "http://localhost:8011");
        assert_eq!(
            url("https://discovery.example.org/some/path/").unwrap(),
            "https://discovery.example.org"
        );
        for bad in ["not a url", "mailto:someone@example.org", "::"] {
            let err = url(bad).unwrap_err().to_string();
            assert!(err.starts_with("PUBLIC_BASE_URL is not valid"), "{err}");
        }
    }

    #[test]
    fn a_jwt_secret_is_at_least_32_bytes_and_never_printed() {
        assert!(matches!(
            jwt_secret(&Vars::from_pairs([("X", "y")])),
            Ok(None)
        ));
        let err = jwt_secret(&Vars::from_pairs([("JWT_SECRET", "short")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "JWT_SECRET is not valid: must be at least 32 bytes (got 5)"
        );
        let secret = jwt_secret(&Vars::from_pairs([("JWT_SECRET", SECRET)]))
            .unwrap()
            .unwrap();
        assert!(!format!("{secret:?}").contains(SECRET));
        assert_eq!(secret.expose_secret(), SECRET.as_bytes());
    }
}
