//! The session cookies of docs/api.md: `ds_access` (the JWT; `Path=/`, `SameSite=Lax`) and
//! `ds_refresh` (opaque; `Path=/api/auth`, `SameSite=Strict`), both `HttpOnly`, `Secure` when
//! configured; and `ds_login`, the short-lived sign-in state.

use actix_web::cookie::time::Duration as CookieDuration;
use actix_web::cookie::{Cookie, SameSite};

pub const ACCESS: &str = "ds_access";
pub const REFRESH: &str = "ds_refresh";
pub const LOGIN_STATE: &str = "ds_login";

/// Builds the cookies with the configured `Secure` flag.
#[derive(Debug, Clone, Copy)]
pub struct CookieJar {
    pub secure: bool,
}

impl CookieJar {
    #[must_use]
    pub fn access(&self, jwt: String, max_age_seconds: i64) -> Cookie<'static> {
        self.build(ACCESS, jwt, "/", SameSite::Lax, max_age_seconds)
    }

    #[must_use]
    pub fn refresh(&self, token: String, max_age_seconds: i64) -> Cookie<'static> {
        self.build(
            REFRESH,
            token,
            "/api/auth",
            SameSite::Strict,
            max_age_seconds,
        )
    }

    /// Lax, because the identity provider sends the browser back with a top-level GET.
    #[must_use]
    pub fn login_state(&self, value: String, max_age_seconds: i64) -> Cookie<'static> {
        self.build(
            LOGIN_STATE,
            value,
            "/api/auth",
            SameSite::Lax,
            max_age_seconds,
        )
    }

    /// Expired copies of both session cookies, to sign out.
    #[must_use]
    pub fn cleared(&self) -> [Cookie<'static>; 2] {
        [
            self.build(ACCESS, String::new(), "/", SameSite::Lax, 0),
            self.build(REFRESH, String::new(), "/api/auth", SameSite::Strict, 0),
        ]
    }

    #[must_use]
    pub fn cleared_login_state(&self) -> Cookie<'static> {
        self.build(LOGIN_STATE, String::new(), "/api/auth", SameSite::Lax, 0)
    }

    fn build(
        &self,
        name: &'static str,
        value: String,
        path: &'static str,
        same_site: SameSite,
        max_age: i64,
    ) -> Cookie<'static> {
        Cookie::build(name, value)
            .path(path)
            .http_only(true)
            .same_site(same_site)
            .secure(self.secure)
            .max_age(CookieDuration::seconds(max_age))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_carry_the_flags_of_the_contract() {
        let jar = CookieJar { secure: true };
        let access = jar.access("jwt".into(), 900).to_string();
        assert!(access.starts_with("ds_access=jwt;"), "{access}");
        for flag in [
            "HttpOnly",
            "SameSite=Lax",
            "Secure",
            "Path=/",
            "Max-Age=900",
        ] {
            assert!(access.contains(flag), "{flag} in {access}");
        }
        let refresh = jar.refresh("r".into(), 60).to_string();
        for flag in ["HttpOnly", "SameSite=Strict", "Secure", "Path=/api/auth"] {
            assert!(refresh.contains(flag), "{flag} in {refresh}");
        }
        assert!(
            !CookieJar { secure: false }
                .access("j".into(), 1)
                .to_string()
                .contains("Secure")
        );
    }
}
