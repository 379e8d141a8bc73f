//! The contract's cross-cutting error answers, added to every operation they apply to so each
//! route's annotation lists only its own: 401 and (for writes) the CSRF 403 where a credential is
//! needed; 400, 413, 415 and 422 where a JSON body is read; 400 and 422 where a query string is
//! (except on the sign-in redirects, which read theirs leniently);
//! 503 wherever the database is asked. An operation's own entry for a status wins.

use utoipa::Modify;
use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::{Content, OpenApi, Ref, RefOr, Response, ResponseBuilder};

/// Adds the common answers; see the module's documentation.
#[derive(Debug)]
pub struct CommonErrors;

const UNAUTHENTICATED: &str = "No credential, or an invalid or expired one.";
const CSRF: &str =
    "A cookie-authenticated write without a trusted Origin or Referer (CSRF defence).";
const BAD_BODY: &str = "The body is not JSON, or the query string is malformed.";
const BAD_QUERY: &str = "The query string is malformed.";
const TOO_LARGE: &str = "The body is larger than 64 KiB.";
const NOT_JSON: &str = "The body is not application/json.";
const INVALID: &str =
    "A missing, unknown, wrongly typed or out-of-range field; `details` names each.";
const UNAVAILABLE: &str = "The database is unavailable.";

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
            for (operation, writes) in operations {
                if let Some(operation) = operation {
                    add_common(operation, writes, path != "/healthz");
                }
            }
        }
    }
}

fn add_common(operation: &mut Operation, writes: bool, asks_database: bool) {
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
        if writes {
            add("403", CSRF);
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
