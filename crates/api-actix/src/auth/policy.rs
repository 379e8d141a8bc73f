//! Least privilege (API.md): which routes a personal API key may call, by its scopes, and which
//! need the person's own browser session. One table, read by the `Caller` extractor for every
//! route that takes a caller, so a new route is closed to keys until it is named here.

use actix_web::http::Method;
use domain::account::KeyScope;

/// The scope a personal key needs for a route (`method`, matched `pattern`); `None` when no
/// personal key may call it.
#[must_use]
pub fn scope_for(method: &Method, pattern: &str) -> Option<KeyScope> {
    if pattern.starts_with("/integration/") {
        return Some(KeyScope::Integration);
    }
    let get = method == Method::GET;
    let post = method == Method::POST;
    match pattern {
        "/api/me" if get => Some(KeyScope::Integration),
        "/discovery/profile/me"
        | "/discovery/profile/me/reflection"
        | "/discovery/profile/me/revisions"
            if get =>
        {
            Some(KeyScope::ProfileRead)
        }
        "/coaching/preferences" if get => Some(KeyScope::Coaching),
        "/coaching/checkins" if get || post => Some(KeyScope::Coaching),
        "/coaching/checkins/{id}/response" if post => Some(KeyScope::Coaching),
        _ => None,
    }
}

/// Whether a route manages credentials or the account, and so needs a session cookie: a key or
/// a Bearer token (which may have been copied) must not mint, revoke or export.
#[must_use]
pub fn needs_session(method: &Method, pattern: &str) -> bool {
    matches!(
        (method.as_str(), pattern),
        ("POST", "/api/me/api-keys")
            | ("DELETE", "/api/me/api-keys/{id}")
            | ("DELETE", "/api/me/sessions/{id}")
            | ("DELETE", "/api/me")
            | ("GET", "/api/me/export")
    ) || pattern.starts_with("/api/me/webhooks")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_scope_opens_exactly_its_routes() {
        let get = Method::GET;
        let post = Method::POST;
        assert_eq!(
            scope_for(&get, "/integration/work-patterns"),
            Some(KeyScope::Integration)
        );
        assert_eq!(scope_for(&get, "/api/me"), Some(KeyScope::Integration));
        assert_eq!(scope_for(&Method::DELETE, "/api/me"), None);
        assert_eq!(
            scope_for(&get, "/discovery/profile/me/revisions"),
            Some(KeyScope::ProfileRead)
        );
        assert_eq!(scope_for(&Method::PATCH, "/discovery/profile/me"), None);
        assert_eq!(scope_for(&post, "/discovery/profile/me/reflect"), None);
        // Unlocking and restoring change the profile: no key scope reaches them.
        assert_eq!(scope_for(&post, "/discovery/profile/me/reopen"), None);
        assert_eq!(
            scope_for(&post, "/discovery/profile/me/revisions/{number}/restore"),
            None
        );
        assert_eq!(
            scope_for(&post, "/coaching/checkins"),
            Some(KeyScope::Coaching)
        );
        assert_eq!(scope_for(&Method::PUT, "/coaching/preferences"), None);
        assert_eq!(scope_for(&post, "/coaching/run"), None);
        assert_eq!(scope_for(&get, "/api/me/export"), None);
        assert!(needs_session(&get, "/api/me/export"));
        assert!(needs_session(&Method::DELETE, "/api/me"));
        assert!(!needs_session(&get, "/api/me"));
        assert!(!needs_session(&get, "/api/me/api-keys"));
    }
}
