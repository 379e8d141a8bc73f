//! The OpenAPI document at `/openapi.json`, the reference rendered from it at `/docs`, and 405 for any method the
//! document does not declare on a path it does.

use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::helpers::{assert_error, json_body, send, spawn_app};

/// Where the contract is written, from this crate.
const API_MD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/api.md");

/// Routes docs/api.md names that are not operations of the document: the document itself and
/// its rendering.
const SERVED_BESIDE_THE_DOCUMENT: [&str; 2] = ["GET /openapi.json", "GET /docs"];

/// Every route docs/api.md names, as `METHOD path`: each `` `METHOD /path` `` it writes (a
/// query string left out), once.
fn contract_routes() -> Vec<String> {
    let text = std::fs::read_to_string(API_MD).unwrap_or_else(|e| panic!("{API_MD}: {e}"));
    let mut routes: Vec<String> = Vec::new();
    for quoted in text.split('`').skip(1).step_by(2) {
        let Some((method, path)) = quoted.split_once(' ') else {
            continue;
        };
        let is_method = ["GET", "POST", "PUT", "PATCH", "DELETE"].contains(&method);
        if !is_method || !path.starts_with('/') || path.contains(' ') {
            continue;
        }
        let route = format!("{method} {}", path.split('?').next().unwrap_or(path));
        if !routes.contains(&route) {
            routes.push(route);
        }
    }
    assert!(
        routes.len() > 40,
        "routes read from docs/api.md: {routes:?}"
    );
    routes
}

/// Every operation of the document, as `METHOD path`.
fn operations(doc: &Value) -> Vec<String> {
    let mut operations = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            operations.push(format!("{} {path}", method.to_uppercase()));
        }
    }
    operations
}

async fn document() -> Value {
    let app = spawn_app().await;
    let response = send(app.api.get(app.url("/openapi.json"))).await;
    json_body(response, 200).await
}

fn operation<'a>(doc: &'a Value, route: &str) -> &'a Value {
    let (method, path) = route.split_once(' ').unwrap();
    &doc["paths"][path][method.to_lowercase()]
}

/// A schema by its `$ref`, or the schema itself.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(reference) => {
            let name = reference.trim_start_matches("#/components/schemas/");
            &doc["components"]["schemas"][name]
        }
        None => schema,
    }
}

fn request_schema<'a>(doc: &'a Value, route: &str) -> &'a Value {
    resolve(
        doc,
        &operation(doc, route)["requestBody"]["content"]["application/json"]["schema"],
    )
}

#[tokio::test]
async fn the_document_and_docs_api_md_name_the_same_routes() {
    let doc = document().await;
    assert_eq!(doc["openapi"], "3.1.0");
    let contract = contract_routes();
    let operations = operations(&doc);
    for route in &operations {
        let op = operation(&doc, route);
        assert!(
            op["responses"].as_object().is_some_and(|r| !r.is_empty()),
            "{route} documents no response"
        );
    }
    let undescribed: Vec<&String> = operations
        .iter()
        .filter(|o| !contract.contains(o))
        .collect();
    assert!(
        undescribed.is_empty(),
        "docs/api.md does not describe {undescribed:?}: each operation is written there as \
         `METHOD /path` (in its route group, with its rules)"
    );
    let gone: Vec<&String> = contract
        .iter()
        .filter(|r| !operations.contains(r) && !SERVED_BESIDE_THE_DOCUMENT.contains(&r.as_str()))
        .collect();
    assert!(
        gone.is_empty(),
        "docs/api.md names {gone:?}, which the document lacks"
    );
}

/// `docs/openapi.json`, the checked-in reference, is what the running server serves (the unit
/// test `openapi::checked_in` compares it byte for byte with the document the code builds, and
/// `UPDATE_OPENAPI=1` regenerates it there).
#[tokio::test]
async fn the_served_document_is_the_one_checked_in_as_docs_openapi_json() {
    let served = document().await;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/openapi.json");
    let checked_in: Value = serde_json::from_str(
        &std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}")),
    )
    .expect("docs/openapi.json is JSON");
    assert!(
        served == checked_in,
        "/openapi.json differs from docs/openapi.json; regenerate it with \
         `UPDATE_OPENAPI=1 cargo test -p api-actix --lib openapi::checked_in` (or `just openapi`)"
    );
}

#[tokio::test]
async fn every_error_response_has_the_error_schema_and_signed_in_routes_name_their_schemes() {
    let doc = document().await;
    let schemes = &doc["components"]["securitySchemes"];
    assert_eq!(schemes["api_key"]["in"], "header");
    assert_eq!(schemes["api_key"]["name"], "X-API-Key");
    assert_eq!(schemes["bearer"]["scheme"], "bearer");
    assert_eq!(schemes["cookie"]["in"], "cookie");
    assert_eq!(schemes["cookie"]["name"], "ds_access");

    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            for (status, response) in op["responses"].as_object().unwrap() {
                if status.starts_with('4') || status.starts_with('5') {
                    let schema = &response["content"]["application/json"]["schema"]["$ref"];
                    assert_eq!(
                        schema, "#/components/schemas/ErrorBody",
                        "{method} {path} {status}"
                    );
                }
            }
            let signed_in = op["responses"].get("401").is_some() && !path.starts_with("/api/auth/");
            if signed_in {
                let names: Vec<&str> = op["security"]
                    .as_array()
                    .unwrap_or_else(|| panic!("{method} {path} names no security"))
                    .iter()
                    .flat_map(|s| s.as_object().unwrap().keys())
                    .map(String::as_str)
                    .collect();
                // Managing credentials and the account takes the session cookie only (docs/api.md,
                // "Least privilege"); every other signed-in route takes the three.
                let session_only = [
                    ("post", "/api/me/api-keys"),
                    ("delete", "/api/me/api-keys/{id}"),
                    ("delete", "/api/me/sessions/{id}"),
                    ("delete", "/api/me"),
                    ("get", "/api/me/export"),
                ]
                .contains(&(method.as_str(), path.as_str()))
                    || path.starts_with("/api/me/webhooks");
                let expected: &[&str] = if session_only {
                    &["cookie"]
                } else {
                    &["api_key", "bearer", "cookie"]
                };
                assert_eq!(names, expected, "{method} {path}");
            }
        }
    }
}

#[tokio::test]
async fn request_schemas_carry_the_limits_the_server_enforces() {
    let doc = document().await;
    let mapping = request_schema(&doc, "POST /integration/task-mappings");
    assert_eq!(mapping["additionalProperties"], false);
    let props = &mapping["properties"];
    assert_eq!(props["external_task_id"]["minLength"], 1);
    assert_eq!(props["external_task_id"]["maxLength"], 200);
    assert_eq!(props["task_label"]["maxLength"], 500);
    assert_eq!(props["minutes"]["minimum"], 0);
    assert_eq!(props["minutes"]["maximum"], 1440);
    assert_eq!(props["occurred_at"]["format"], "date-time");
    // The foundation may be null (the rules decide): one of the keys, or null.
    let choices = props["foundation"]["oneOf"]
        .as_array()
        .expect("foundation or null");
    assert!(choices.iter().any(|c| c["type"] == "null"), "{choices:?}");
    let key = choices.iter().find(|c| c["type"] != "null").unwrap();
    assert_eq!(props["tags"]["maxItems"], 20);
    assert_eq!(props["tags"]["items"]["maxLength"], 100);
    assert_eq!(props["tags"]["items"]["minLength"], 1);
    let foundations = &resolve(&doc, key)["enum"];
    assert_eq!(
        foundations,
        &serde_json::json!([
            "love",
            "strength",
            "mission",
            "vocation",
            "short_term",
            "long_term"
        ])
    );

    let batch = request_schema(&doc, "POST /integration/task-mappings/batch");
    assert_eq!(batch["properties"]["items"]["maxItems"], 1000);

    let rule = request_schema(&doc, "POST /integration/rules");
    assert_eq!(rule["additionalProperties"], false);
    let kinds: Vec<_> = rule["properties"]["match"]["oneOf"]
        .as_array()
        .expect("one object per kind")
        .iter()
        .map(|k| (k["required"][0].clone(), k["additionalProperties"].clone()))
        .collect();
    assert_eq!(
        kinds,
        [
            "label_contains",
            "label_equals",
            "tag",
            "external_task_id_prefix"
        ]
        .map(|k| (serde_json::json!(k), serde_json::json!(false)))
    );
    assert_eq!(rule["properties"]["position"]["minimum"], 1);

    let answer = request_schema(&doc, "PUT /discovery/conversation/me/answers/{step}");
    assert_eq!(answer["properties"]["text"]["maxLength"], 10000);
    let step = &operation(&doc, "PUT /discovery/conversation/me/answers/{step}")["parameters"][0];
    assert_eq!(
        (&step["schema"]["minimum"], &step["schema"]["maximum"]),
        (&1.into(), &7.into())
    );

    let edit = request_schema(&doc, "PATCH /discovery/profile/me");
    assert_eq!(edit["additionalProperties"], false);
    assert_eq!(edit["properties"].as_object().unwrap().len(), 7);
    assert_eq!(edit["properties"]["love_summary"]["maxLength"], 4000);
    assert_eq!(edit["properties"]["love_summary"]["type"], "string");
    assert_eq!(
        edit["properties"]["near_term_goal_summary"]["type"],
        serde_json::json!(["string", "null"])
    );

    let preferences = request_schema(&doc, "PUT /coaching/preferences");
    assert_eq!(preferences["required"].as_array().unwrap().len(), 6);
    assert_eq!(
        preferences["properties"]["misalignment_threshold"]["maximum"],
        1.0
    );

    let note = &request_schema(&doc, "POST /coaching/checkins/{id}/response")["properties"]["note"];
    assert_eq!(note["maxLength"], 2000);
    let key = &request_schema(&doc, "POST /api/me/api-keys")["properties"]["name"];
    assert_eq!(key["maxLength"], 100);

    let days = &operation(&doc, "GET /integration/work-patterns")["parameters"][0]["schema"];
    assert_eq!(
        (&days["minimum"], &days["maximum"]),
        (&1.into(), &365.into())
    );
}

#[tokio::test]
async fn every_text_pattern_in_the_document_is_one_of_the_declared_rules() {
    use api_actix::requests::rules::{CURSOR, EMAIL, IF_MATCH, NON_BLANK, TEXT};
    let doc = serde_json::to_value(api_actix::openapi::document()).unwrap();
    let mut patterns = Vec::new();
    collect_patterns(&doc, &mut patterns);
    assert!(patterns.len() >= 15, "{patterns:?}");
    for pattern in patterns {
        assert!(
            [TEXT, NON_BLANK, IF_MATCH, CURSOR, EMAIL].contains(&pattern.as_str()),
            "an undeclared pattern: {pattern}"
        );
    }
}

fn collect_patterns(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(p)) = map.get("pattern") {
                out.push(p.clone());
            }
            map.values().for_each(|v| collect_patterns(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_patterns(v, out)),
        _ => {}
    }
}

#[tokio::test]
async fn an_undeclared_method_on_a_documented_path_is_405_with_allow() {
    let app = spawn_app().await;
    for (method, path, allow) in [
        (Method::PUT, "/api/me", "GET, DELETE"),
        (Method::GET, "/api/auth/refresh", "POST"),
        (Method::DELETE, "/discovery/prompts", "GET"),
        (
            Method::PATCH,
            "/coaching/checkins/0191a0c4-0000-7000-8000-000000000000/response",
            "POST",
        ),
        (
            Method::OPTIONS,
            "/integration/task-mappings/batch",
            "POST, DELETE",
        ),
        (Method::GET, "/discovery/conversation/me/answers/3", "PUT"),
        (Method::GET, "/discovery/profile/me/reopen", "POST"),
        (
            Method::PUT,
            "/discovery/profile/me/revisions/2/restore",
            "POST",
        ),
    ] {
        let response = send(app.api.request(method.clone(), app.url(path))).await;
        let allowed = response
            .headers()
            .get("allow")
            .map(|v| v.to_str().unwrap().to_owned());
        assert_eq!(allowed.as_deref(), Some(allow), "{method} {path}");
        assert_error(response, 405, "method_not_allowed").await;
    }
    // Unknown paths stay 404, declared methods reach their routes.
    let response = send(app.api.put(app.url("/no/such/path"))).await;
    assert_error(response, 404, "not_found").await;
    let response = send(app.api.get(app.url("/discovery/prompts"))).await;
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn docs_show_every_operation_of_the_document_under_the_pages_policy_with_no_script() {
    let app = spawn_app().await;
    let doc = json_body(send(app.api.get(app.url("/openapi.json"))).await, 200).await;
    // `/docs` is the page itself (docs/api.md), and `/docs.html` the same page.
    for path in ["/docs", "/docs.html"] {
        let response = send(app.api.get(app.url(path))).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let headers = response.headers().clone();
        assert!(
            headers["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/html"),
            "{path}"
        );
        // The policy of every page: nothing loosened for this one.
        let policy = headers["content-security-policy"].to_str().unwrap();
        assert!(policy.starts_with("default-src 'self';"), "{policy}");
        assert!(
            !policy.contains("unsafe-inline") && !policy.contains("data:"),
            "{policy}"
        );
        let html = response.text().await.unwrap();
        assert!(!html.contains("<script"), "{path} has no script");
        assert!(!html.contains("style="), "{path} has no inline style");
        assert!(!html.contains("://"), "{path} names nothing elsewhere");
        let mut described = 0;
        for (route, item) in doc["paths"].as_object().unwrap() {
            for method in item.as_object().unwrap().keys() {
                // The page escapes with minijinja, which writes `/` as `&#x2f;`.
                let heading = format!(
                    r#"<span class="method">{}</span> <code>{}</code></h3>"#,
                    method.to_uppercase(),
                    route.replace('/', "&#x2f;")
                );
                assert_eq!(html.matches(&heading).count(), 1, "{method} {route}");
                described += 1;
            }
        }
        assert_eq!(described, operations(&doc).len());
        for schema in doc["components"]["schemas"].as_object().unwrap().keys() {
            let heading = format!(r#"<h3 id="schema-{schema}"><code>{schema}</code></h3>"#);
            assert!(html.contains(&heading), "{schema}");
        }
    }
}
