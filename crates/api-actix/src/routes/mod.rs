//! HTTP routes, one file per resource. Each file's `routes()` declares its routes
//! ([`declaration::Route`]: handler, annotation and access policy); [`api`] lists the files
//! under the scope each is mounted in, and is read by the router ([`configure`]), the OpenAPI
//! document (`openapi::document`) and, through each route's policy, the `Caller` extractor.

pub mod activity;
pub mod api_keys;
pub mod auth;
pub mod coaching;
pub mod declaration;
pub mod discovery;
pub mod fallback;
pub mod health;
pub mod integration;
pub mod mapping_rules;
pub mod me;
pub mod method_table;
pub mod metrics;
pub mod notifications;
pub mod profile;
pub mod reflect_preview;
pub mod sessions;
pub mod settings;
pub mod sweep;
pub mod web;
pub mod weekly;

use actix_web::web as actix;

use declaration::Route;

/// Every API route, grouped under the prefix of the scope it is mounted in (`""`: the root), in
/// the order actix tries them. Each group with a common prefix is a scope: actix tries the
/// routes of a level one after another (running the pattern of every dynamic one), so a request
/// is matched against a handful of prefixes and then its own group, not the whole table. A path
/// under a prefix that no route of its group takes still gets the app's JSON 404 or 405.
#[must_use]
pub fn api() -> Vec<(&'static str, Vec<Route>)> {
    vec![
        ("", all_of([health::routes(), metrics::routes()])),
        ("/api/auth", auth::routes()),
        (
            "/discovery",
            all_of([
                discovery::routes(),
                profile::routes(),
                reflect_preview::routes(),
            ]),
        ),
        ("/coaching", coaching::routes()),
        (
            "/integration",
            all_of([
                integration::routes(),
                sweep::routes(),
                weekly::routes(),
                mapping_rules::routes(),
            ]),
        ),
        (
            "/api/me",
            all_of([
                me::routes(),
                sessions::routes(),
                api_keys::routes(),
                settings::routes(),
                notifications::routes(),
            ]),
        ),
        (
            "",
            all_of([notifications::public_routes(), activity::routes()]),
        ),
    ]
}

/// The routes of the files of one group, in order.
fn all_of<const N: usize>(files: [Vec<Route>; N]) -> Vec<Route> {
    files.into_iter().flatten().collect()
}

/// Mounts every API route of [`api`] (dev login only when it is on). The documentation and
/// the pages are mounted after these, by `startup`.
pub fn configure(cfg: &mut actix::ServiceConfig, dev_login_enabled: bool) {
    for (prefix, routes) in api() {
        let resources = declaration::resources(routes, prefix, dev_login_enabled);
        if prefix.is_empty() {
            for resource in resources {
                cfg.service(resource);
            }
        } else {
            let scope = resources
                .into_iter()
                .fold(actix::scope(prefix), actix_web::Scope::service);
            cfg.service(scope);
        }
    }
}

#[cfg(test)]
mod tests {
    use actix_web::http::Method;
    use domain::account::KeyScope;

    use super::*;
    use crate::auth::policy::Policy;

    fn policy(method: &Method, path: &str) -> Option<Policy> {
        api()
            .into_iter()
            .flat_map(|(_, routes)| routes)
            .find(|r| r.method() == method && r.path() == path)
            .map(|r| r.policy())
    }

    fn scope_for(method: &Method, path: &str) -> Option<KeyScope> {
        policy(method, path).and_then(Policy::key_scope)
    }

    fn needs_session(method: &Method, path: &str) -> bool {
        policy(method, path).is_some_and(Policy::needs_session)
    }

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

    #[test]
    fn every_route_sits_under_its_scope_once_and_states_one_method() {
        let mut seen = std::collections::HashSet::new();
        for (prefix, routes) in api() {
            for route in routes {
                assert!(
                    route.path().starts_with(prefix),
                    "{} is not under {prefix}",
                    route.path()
                );
                assert!(
                    seen.insert((route.method().clone(), route.path().to_owned())),
                    "{} {} is declared twice",
                    route.method(),
                    route.path()
                );
                assert_eq!(route.methods_stated(), 1, "{}", route.path());
            }
        }
    }

    /// The policy is a route's only access declaration: no annotation states `security(...)`
    /// beside it (the document's is derived from the policy, `Policy::security`).
    #[test]
    fn no_annotation_declares_its_own_security() {
        for route in api().into_iter().flat_map(|(_, routes)| routes) {
            assert!(
                !route.annotated_security(),
                "{route:?}: its annotation states `security(...)`; the policy given to \
                 `Route::new` is the route's only access declaration"
            );
        }
    }

    /// The policy and the security the document states agree: a public route names no
    /// scheme, and a session-only route names the session cookie alone.
    #[test]
    fn each_policy_matches_the_security_its_operation_documents() {
        let document = crate::openapi::document();
        for route in api().into_iter().flat_map(|(_, routes)| routes) {
            let item = &document.paths.paths[route.path()];
            let operation = match *route.method() {
                Method::GET => &item.get,
                Method::POST => &item.post,
                Method::PUT => &item.put,
                Method::PATCH => &item.patch,
                Method::DELETE => &item.delete,
                _ => &None,
            };
            let operation = operation.as_ref().expect("the route is documented");
            let schemes: Vec<String> = serde_json::to_value(&operation.security)
                .expect("security serializes")
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|requirement| requirement.as_object())
                .flat_map(|requirement| requirement.keys().cloned())
                .collect();
            match route.policy() {
                Policy::Public => assert!(schemes.is_empty(), "{route:?}: {schemes:?}"),
                Policy::Session => assert_eq!(schemes, ["cookie"], "{route:?}"),
                Policy::SignedIn | Policy::Key(_) => {
                    assert!(
                        schemes.contains(&"cookie".to_owned()),
                        "{route:?}: {schemes:?}"
                    );
                }
            }
        }
    }
}
