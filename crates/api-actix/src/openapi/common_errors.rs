//! The contract's cross-cutting error answers, added to every operation they apply to so each
//! route's annotation lists only its own: 401 and the 403s where a credential is needed (the CSRF
//! defence for writes, a personal key outside its scopes, a route whose policy needs the session cookie); 400, 413, 415 and 422 where a JSON body is read; 400 and 422 where a query string is
//! (except on the sign-in redirects, which read theirs leniently);
//! 503 wherever the database is asked, and 507 where it is written. An operation's own entry for
//! a status wins.

use actix_web::http::Method;
use utoipa::Modify;

use crate::routes::declaration::Route;
use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::{Content, OpenApi, Ref, RefOr, Response, ResponseBuilder};

/// Adds the common answers; see the module's documentation.
#[derive(Debug)]
pub struct CommonErrors {
    /// The operations only the session cookie may call (`Policy::Session`).
    session_only: Vec<(Method, String)>,
}

impl CommonErrors {
    /// The answers of `routes`, whose policies say which need the session cookie.
    #[must_use]
    pub fn of(routes: &[Route]) -> Self {
        Self {
            session_only: routes
                .iter()
                .filter(|route| route.policy().needs_session())
                .map(|route| (route.method().clone(), route.path().to_owned()))
                .collect(),
        }
    }

    fn needs_session(&self, method: &Method, path: &str) -> bool {
        self.session_only
            .iter()
            .any(|(m, p)| m == method && p == path)
    }
}

const UNAUTHENTICATED: &str = "No credential, or an invalid or expired one.";
const CSRF: &str =
    "A cookie-authenticated write without a trusted Origin or Referer (CSRF defence).";
const SESSION_REQUIRED: &str = "`session_required`: managing credentials and the account needs the \
     session cookie; an API key or a Bearer token is refused.";
const INSUFFICIENT_SCOPE: &str =
    "`insufficient_scope`: a personal API key whose scopes do not include this route.";
const BAD_BODY: &str = "The body is not JSON, or the query string is malformed.";
const BAD_QUERY: &str = "The query string is malformed.";
const TOO_LARGE: &str = "The body is larger than 64 KiB.";
const NOT_JSON: &str = "The body is not application/json.";
const INVALID: &str =
    "A missing, unknown, wrongly typed or out-of-range field; `details` names each.";
const UNAVAILABLE: &str = "`unavailable`: the database cannot be reached; or `busy`: it had no \
     room for this request within the bound (`Retry-After` set). Nothing was changed.";

const STORAGE_FULL: &str = "`storage_full`: the database's disk is full. Nothing was changed \
     (the write is rolled back whole); reads go on working; try again once space is freed.";

impl Modify for CommonErrors {
    fn modify(&self, openapi: &mut OpenApi) {
        for (path, item) in &mut openapi.paths.paths {
            let operations = [
                (&mut item.get, false),
                (&mut item.post, true),
                (&mut item.put, true),
                (&mut item.patch, true),
                (&mut item.delete, true),
            ];
            for (method, (operation, writes)) in [
                Method::GET,
                Method::POST,
                Method::PUT,
                Method::PATCH,
                Method::DELETE,
            ]
            .into_iter()
            .zip(operations)
            {
                if let Some(operation) = operation {
                    let refusals = self.refusals(&method, path, writes);
                    add_common(operation, &refusals, path != "/healthz", writes);
                }
            }
        }
    }
}

impl CommonErrors {
    /// Why a signed-in caller may be refused this operation with 403 (its route's policy).
    fn refusals(&self, method: &Method, path: &str, writes: bool) -> String {
        let mut why = Vec::new();
        if writes {
            why.push(CSRF);
        }
        if self.needs_session(method, path) {
            why.push(SESSION_REQUIRED);
        } else {
            // Some key is refused here: one without the route's scope, or any, when none opens it.
            why.push(INSUFFICIENT_SCOPE);
        }
        why.join(" ")
    }
}

fn add_common(operation: &mut Operation, refusals: &str, asks_database: bool, writes: bool) {
    let signed_in = operation.security.as_ref().is_some_and(|s| !s.is_empty());
    let reads_body = operation.request_body.is_some();
    // A redirecting route (sign-in) reads its query leniently and answers only with redirects.
    let redirects = operation.responses.responses.contains_key("302");
    let reads_query = !redirects
        && operation.parameters.as_ref().is_some_and(|ps| {
            ps.iter()
                .any(|p| matches!(p, RefOr::T(p) if matches!(p.parameter_in, ParameterIn::Query)))
        });
    let mut add = |status: &str, description: &str| {
        operation
            .responses
            .responses
            .entry(status.to_owned())
            .or_insert_with(|| error(description));
    };
    if signed_in {
        add("401", UNAUTHENTICATED);
        if !refusals.is_empty() {
            add("403", refusals);
        }
    }
    if reads_body {
        add("400", BAD_BODY);
        add("413", TOO_LARGE);
        add("415", NOT_JSON);
        add("422", INVALID);
    }
    if reads_query {
        add("400", BAD_QUERY);
        add("422", INVALID);
    }
    if asks_database {
        add("503", UNAVAILABLE);
        if writes {
            add("507", STORAGE_FULL);
        }
    }
}

/// An answer with the contract's error body.
fn error(description: &str) -> RefOr<Response> {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            Content::new(Some(Ref::from_schema_name("ErrorBody"))),
        )
        .build()
        .into()
}
