//! The paths the OpenAPI document declares and the methods on each, read from the document once
//! at start-up: what the fallback answers 405 (with `Allow`) or 404 from. The document is the
//! one list of what the API answers; taking it as a value keeps the routes, from which it is
//! built, from importing it.

use actix_web::dev::ResourceDef;
use actix_web::http::Method;
use utoipa::openapi::OpenApi;
use utoipa::openapi::path::PathItem;

use crate::error::ApiError;

/// One documented path template and the methods declared on it.
struct DocumentedRoute {
    template: ResourceDef,
    /// Whether the path has no `{parameter}`.
    concrete: bool,
    methods: Vec<Method>,
}

/// Every path of the document with the methods declared on it, read once at start-up.
pub struct MethodTable(Vec<DocumentedRoute>);

impl std::fmt::Debug for MethodTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("MethodTable").field(&self.0.len()).finish()
    }
}

impl MethodTable {
    #[must_use]
    pub fn of(document: &OpenApi) -> Self {
        Self(
            document
                .paths
                .paths
                .iter()
                .map(|(path, item)| DocumentedRoute {
                    // OpenAPI's `{name}` segments are actix's too.
                    template: ResourceDef::new(path.as_str()),
                    concrete: !path.contains('{'),
                    methods: declared_methods(item),
                })
                .collect(),
        )
    }

    /// Why nothing answered `method path`: [`ApiError::MethodNotAllowed`] when the path is
    /// documented without that method, else [`ApiError::NotFound`] (an unknown path, or a
    /// documented route that is switched off, such as dev login outside dev mode). As OpenAPI
    /// matches, a concrete path goes before the templates it also fits: the methods of
    /// `/integration/task-mappings/sweep` are its own, not those of `.../{external_task_id}`.
    #[must_use]
    pub fn refusal(&self, method: &Method, path: &str) -> ApiError {
        let matching: Vec<&DocumentedRoute> = self
            .0
            .iter()
            .filter(|p| p.template.is_match(path))
            .collect();
        let concrete = matching.iter().any(|p| p.concrete);
        let mut declared: Vec<&Method> = Vec::new();
        for method in matching
            .into_iter()
            .filter(|p| p.concrete || !concrete)
            .flat_map(|p| &p.methods)
        {
            if !declared.contains(&method) {
                declared.push(method);
            }
        }
        if declared.is_empty() || declared.contains(&method) {
            return ApiError::NotFound;
        }
        let allow: Vec<&str> = declared.iter().map(|m| m.as_str()).collect();
        ApiError::MethodNotAllowed {
            allow: allow.join(", "),
        }
    }
}

fn declared_methods(item: &PathItem) -> Vec<Method> {
    [
        (&item.get, Method::GET),
        (&item.post, Method::POST),
        (&item.put, Method::PUT),
        (&item.patch, Method::PATCH),
        (&item.delete, Method::DELETE),
        (&item.head, Method::HEAD),
        (&item.options, Method::OPTIONS),
        (&item.trace, Method::TRACE),
    ]
    .into_iter()
    .filter_map(|(operation, method)| operation.as_ref().map(|_| method))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(method: &Method, path: &str) -> ApiError {
        MethodTable::of(crate::openapi::document()).refusal(method, path)
    }

    fn allow_of(method: Method, path: &str) -> Option<String> {
        match refusal(&method, path) {
            ApiError::MethodNotAllowed { allow } => Some(allow),
            _ => None,
        }
    }

    #[test]
    fn a_documented_path_names_its_methods() {
        assert_eq!(
            allow_of(Method::PUT, "/api/me").as_deref(),
            Some("GET, DELETE")
        );
        assert_eq!(
            allow_of(Method::GET, "/api/auth/refresh").as_deref(),
            Some("POST")
        );
    }

    #[test]
    fn path_parameters_match_any_value() {
        assert_eq!(
            allow_of(Method::GET, "/coaching/checkins/abc/response").as_deref(),
            Some("POST")
        );
        assert_eq!(
            allow_of(Method::POST, "/discovery/conversation/me/answers/9").as_deref(),
            Some("PUT")
        );
    }

    #[test]
    fn a_concrete_path_has_its_own_methods_not_those_of_a_template_it_fits() {
        assert_eq!(
            allow_of(Method::GET, "/integration/task-mappings/sweep").as_deref(),
            Some("POST")
        );
        assert_eq!(
            allow_of(Method::GET, "/integration/task-mappings/batch").as_deref(),
            Some("POST, DELETE")
        );
        assert_eq!(
            allow_of(Method::GET, "/integration/task-mappings/an-entry").as_deref(),
            Some("DELETE")
        );
    }

    #[test]
    fn unknown_paths_and_declared_methods_are_not_found() {
        assert!(matches!(
            refusal(&Method::GET, "/nowhere"),
            ApiError::NotFound
        ));
        // Dev login outside dev mode: declared, switched off, so 404 as the contract says.
        assert!(matches!(
            refusal(&Method::POST, "/api/auth/dev-login"),
            ApiError::NotFound
        ));
    }
}
