//! The document is true by test as well as by construction: every operation of `/openapi.json`
//! is called for real, and each answer's status, content type and body are checked against what
//! the document says of that operation (the body with a JSON Schema 2020-12 validator, formats
//! included). An object schema that names its properties is read as naming all of them, so a
//! field the server sends and the document does not name is a disagreement too.
//!
//! The walk must reach a documented success of every operation, with a JSON body validated
//! unless the operation is in [`NO_JSON_SUCCESS`], so a route added without a case here fails.
//! That the document and docs/api.md name the same routes is `openapi.rs`'s to check.

use std::collections::BTreeSet;

use jsonschema::Draft;
use reqwest::{Method, RequestBuilder};
use serde_json::{Value, json};

use crate::helpers::{ADMIN_EMAIL, GUT_ANSWERS, OPERATOR_KEY, TestApp, client, spawn_app};

/// Operations whose documented successes carry no JSON body to validate. Their status and
/// content type are still checked, and the document must list no JSON body for their
/// successes: this list cannot excuse an answer that has one.
const NO_JSON_SUCCESS: &[&str] = &[
    // 302 to the identity provider, and back to the application: never JSON (docs/api.md).
    "GET /api/auth/login",
    "GET /api/auth/callback",
    // 204 No Content.
    "POST /api/auth/refresh",
    "POST /api/auth/logout",
    "DELETE /api/me",
    "DELETE /api/me/api-keys/{id}",
    "DELETE /api/me/sessions/{id}",
    "DELETE /api/me/webhooks/{id}",
    "DELETE /integration/task-mappings/{external_task_id}",
    "DELETE /integration/task-mappings/batch",
    "DELETE /integration/rules/{id}",
    // 202 Accepted: the ping is queued.
    "POST /api/me/webhooks/{id}/test",
    // The Prometheus text format.
    "GET /metrics",
];

/// The methods of an OpenAPI path item (its other keys are `parameters`, `summary`...).
const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// One answer found to agree with the document.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Agreed {
    /// `METHOD /path/{template}`.
    route: String,
    status: u16,
    /// Whether it had a JSON body, validated.
    json: bool,
}

/// The document, what was checked against it, and what disagreed.
struct Conformance {
    doc: Value,
    /// The document's `components`, every object schema closed (see [`close`]).
    components: Value,
    agreed: BTreeSet<Agreed>,
    /// `METHOD /path {status}: what is wrong`, one a line.
    disagreements: Vec<String>,
}

impl Conformance {
    async fn of(app: &TestApp) -> Self {
        let doc: Value = app
            .api
            .get(app.url("/openapi.json"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let mut components = doc["components"].clone();
        let mut open = BTreeSet::new();
        composed(&components, &mut open);
        for (name, schema) in components["schemas"].as_object_mut().unwrap() {
            close(schema, open.contains(name));
        }
        Self {
            doc,
            components,
            agreed: BTreeSet::new(),
            disagreements: Vec::new(),
        }
    }

    /// Every operation of the document, as `METHOD /path/{template}`.
    fn operations(&self) -> Vec<String> {
        let mut operations = Vec::new();
        for (path, item) in self.doc["paths"].as_object().unwrap() {
            for method in item.as_object().unwrap().keys() {
                if METHODS.contains(&method.as_str()) {
                    operations.push(format!("{} {path}", method.to_uppercase()));
                }
            }
        }
        operations
    }

    fn operation(&self, route: &str) -> &Value {
        let (method, path) = route.split_once(' ').unwrap();
        &self.doc["paths"][path][method.to_lowercase()]
    }

    /// Sends `request` for the documented operation `route`, checks the answer against the
    /// document (a disagreement is noted, and reported by [`Self::finish`]), and returns its
    /// status and JSON body (`Value::Null` when it has none).
    async fn check(&mut self, route: &str, request: RequestBuilder) -> (u16, Value) {
        assert!(
            self.operation(route).is_object(),
            "{route} is not in the document"
        );
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let media_type = response
            .headers()
            .get("content-type")
            .map(|v| essence(v.to_str().unwrap()));
        let body = response.bytes().await.unwrap();
        let json = match &media_type {
            Some(m) if is_json(m) => serde_json::from_slice(&body).unwrap_or_else(|e| {
                panic!(
                    "{route} {status}: a {m} body that is not JSON ({e}): {}",
                    String::from_utf8_lossy(&body)
                )
            }),
            _ => Value::Null,
        };
        match self.compare(route, status, media_type.as_deref(), &body, &json) {
            Ok(validated) => {
                self.agreed.insert(Agreed {
                    route: route.to_owned(),
                    status,
                    json: validated,
                });
            }
            Err(problems) => self.disagreements.extend(
                problems
                    .into_iter()
                    .map(|problem| format!("{route} {status}: {problem}")),
            ),
        }
        (status, json)
    }

    /// As [`Self::check`], and the answer must have this status (the case depends on it).
    async fn expect(&mut self, route: &str, status: u16, request: RequestBuilder) -> Value {
        let (actual, body) = self.check(route, request).await;
        assert_eq!(actual, status, "{route}: {body}");
        body
    }

    /// What is wrong with an answer by the document; `Ok(true)` when a JSON body was validated.
    fn compare(
        &self,
        route: &str,
        status: u16,
        media_type: Option<&str>,
        body: &[u8],
        json: &Value,
    ) -> Result<bool, Vec<String>> {
        let documented = &self.operation(route)["responses"][status.to_string()];
        if !documented.is_object() {
            return Err(vec![format!(
                "the document does not list this status; the server sent {}",
                String::from_utf8_lossy(body)
            )]);
        }
        let Some(content) = documented["content"].as_object() else {
            return if body.is_empty() {
                Ok(false)
            } else {
                Err(vec![format!(
                    "the document lists no body; the server sent {media_type:?}: {}",
                    String::from_utf8_lossy(body)
                )])
            };
        };
        let listed: Vec<&String> = content.keys().collect();
        let Some((media_type, media)) = media_type.and_then(|m| content.get_key_value(m)) else {
            return Err(vec![format!(
                "the document lists {listed:?}; the server sent {media_type:?}"
            )]);
        };
        if body.is_empty() {
            return Err(vec![format!("an empty {media_type} body")]);
        }
        if !is_json(media_type) {
            return Ok(false);
        }
        let errors = self.errors(&media["schema"], json);
        if errors.is_empty() {
            Ok(true)
        } else {
            Err(errors)
        }
    }

    /// What is wrong with `instance` by `schema`: one line per error, naming the JSON pointer
    /// of the offending value and the schema keyword it failed. The schema is validated with
    /// the document's (closed) `components` embedded beside it, so its `#/components/...`
    /// references resolve in the same resource; nothing is fetched.
    fn errors(&self, schema: &Value, instance: &Value) -> Vec<String> {
        let mut root = schema.clone();
        close(&mut root, false);
        let Some(object) = root.as_object_mut() else {
            panic!("the documented schema {schema} is not an object")
        };
        object.insert("components".into(), self.components.clone());
        let validator = jsonschema::options()
            .with_draft(Draft::Draft202012)
            .should_validate_formats(true)
            .build(&root)
            .unwrap_or_else(|e| panic!("the documented schema {schema} is invalid: {e}"));
        validator
            .iter_errors(instance)
            .map(|e| {
                format!(
                    "at {:?}: {e} (schema {})",
                    e.instance_path().as_str(),
                    e.evaluation_path()
                )
            })
            .collect()
    }

    /// Fails with everything found: the answers that disagreed with the document, every
    /// operation never answered with a documented success (with a validated JSON body unless
    /// it is in [`NO_JSON_SUCCESS`]), and every contract route the document lacks.
    fn finish(self) {
        let operations = self.operations();
        let mut problems = self.disagreements.clone();
        for route in &operations {
            let successes: Vec<&Agreed> = self
                .agreed
                .iter()
                .filter(|a| a.route == *route && (200..400).contains(&a.status))
                .collect();
            if NO_JSON_SUCCESS.contains(&route.as_str()) {
                if successes.is_empty() {
                    problems.push(format!("{route}: never answered with a documented success"));
                }
                if self.documents_a_json_success(route) {
                    problems.push(format!(
                        "{route}: documents a JSON success, so it has no place in NO_JSON_SUCCESS"
                    ));
                }
            } else if !successes.iter().any(|a| a.json) {
                problems.push(format!(
                    "{route}: never answered with a documented success whose JSON body was validated"
                ));
            }
        }
        for route in NO_JSON_SUCCESS {
            if !operations.iter().any(|o| o == route) {
                problems.push(format!("{route}: in NO_JSON_SUCCESS, not in the document"));
            }
        }
        assert!(
            problems.is_empty(),
            "{} problem(s) between the answers and /openapi.json:\n{}",
            problems.len(),
            problems.join("\n")
        );
    }

    fn documents_a_json_success(&self, route: &str) -> bool {
        self.operation(route)["responses"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(status, _)| status.starts_with('2') || status.starts_with('3'))
            .filter_map(|(_, response)| response["content"].as_object())
            .any(|content| content.keys().any(|m| is_json(m)))
    }
}

/// A `Content-Type` without its parameters, in lower case (`application/json`).
fn essence(content_type: &str) -> String {
    let essence = content_type.split(';').next().unwrap_or_default();
    essence.trim().to_ascii_lowercase()
}

fn is_json(media_type: &str) -> bool {
    media_type == "application/json" || media_type.ends_with("+json")
}

/// Closes `schema`, and every schema within it, to properties it does not name: an object
/// schema that lists `properties` (or is composed with `allOf`) and says nothing of other
/// properties gets `unevaluatedProperties: false`. A member of an `allOf` stays open (its
/// parent is closed instead), as does a component an `allOf` refers to (`open`): each names
/// only part of the object. A map (`additionalProperties` given) is left as it is.
fn close(schema: &mut Value, open: bool) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    let names_properties = object.contains_key("properties") || object.contains_key("allOf");
    let says_nothing_of_others = !object.contains_key("additionalProperties")
        && !object.contains_key("unevaluatedProperties");
    if !open && names_properties && says_nothing_of_others {
        object.insert("unevaluatedProperties".into(), false.into());
    }
    for (keyword, value) in object.iter_mut() {
        match keyword.as_str() {
            "properties" | "patternProperties" | "$defs" => {
                for member in value
                    .as_object_mut()
                    .into_iter()
                    .flat_map(|m| m.values_mut())
                {
                    close(member, false);
                }
            }
            "items" | "additionalProperties" | "unevaluatedItems" | "contains" | "not" => {
                close(value, false);
            }
            "prefixItems" | "oneOf" | "anyOf" | "allOf" => {
                for member in value.as_array_mut().into_iter().flatten() {
                    close(member, keyword == "allOf");
                }
            }
            _ => {}
        }
    }
}

/// Adds to `into` the name of every component an `allOf` in `value` refers to.
fn composed(value: &Value, into: &mut BTreeSet<String>) {
    match value {
        Value::Object(object) => {
            for member in object
                .get("allOf")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(reference) = member["$ref"].as_str() {
                    into.insert(reference.rsplit('/').next().unwrap().to_owned());
                }
            }
            object.values().for_each(|v| composed(v, into));
        }
        Value::Array(items) => items.iter().for_each(|v| composed(v, into)),
        _ => {}
    }
}

#[tokio::test]
async fn every_operation_answers_as_the_document_says() {
    let app = spawn_app().await;
    let mut c = Conformance::of(&app).await;
    let browser = |who: &reqwest::Client, method: Method, path: &str| {
        who.request(method, app.url(path))
            .header("Origin", app.origin())
    };

    // Open to everyone.
    for route in [
        "GET /healthz",
        "GET /readyz",
        "GET /metrics",
        "GET /discovery/prompts",
        "GET /api/auth/config",
    ] {
        let path = route.split_once(' ').unwrap().1;
        c.expect(route, 200, app.api.get(app.url(path))).await;
    }
    // Without an identity provider both redirects lead to the sign-in page with an error.
    c.expect(
        "GET /api/auth/login",
        302,
        app.api.get(app.url("/api/auth/login?redirect=/profile")),
    )
    .await;
    c.expect(
        "GET /api/auth/callback",
        302,
        app.api.get(app.url("/api/auth/callback?code=x&state=y")),
    )
    .await;

    // Dev login: refused shapes, then the admin (a browser with cookies) and Ada (Bearer).
    let admin = client();
    let login = "POST /api/auth/dev-login";
    let dev_login = |body: &str| {
        admin
            .post(app.url("/api/auth/dev-login"))
            .header("Origin", app.origin())
            .header("Content-Type", "application/json")
            .body(body.to_owned())
    };
    c.expect(login, 422, dev_login(r#"{"email": "no-at-sign"}"#))
        .await;
    c.expect(login, 400, dev_login(r#"{"email": "#)).await;
    c.expect(
        login,
        413,
        dev_login(&format!(r#"{{"email": "{}@b.org"}}"#, "a".repeat(70_000))),
    )
    .await;
    c.expect(
        login,
        415,
        browser(&admin, Method::POST, "/api/auth/dev-login").body("email=a@b"),
    )
    .await;
    let admin_user = c
        .expect(
            login,
            200,
            dev_login(&json!({"email": ADMIN_EMAIL}).to_string()),
        )
        .await;
    // Dev login never makes an admin: the account becomes an identity provider's, and a
    // refresh brings tokens that say admin (see `TestApp::admin_login`).
    app.make_admin(admin_user["id"].as_str().unwrap());
    c.expect(
        "POST /api/auth/refresh",
        204,
        browser(&admin, Method::POST, "/api/auth/refresh"),
    )
    .await;
    let ada = app.dev_login("ada@example.org").await;
    let bearer = |method: Method, path: &str| app.with_bearer(&ada.access_jwt, method, path);
    // Credential and account management take Ada's browser session (docs/api.md, "Least privilege").
    let ada_browser = |method: Method, path: &str| app.as_browser(&ada, method, path);
    c.expect("GET /api/me", 401, app.api.get(app.url("/api/me")))
        .await;
    c.expect("GET /api/me", 200, bearer(Method::GET, "/api/me"))
        .await;

    // Discovery: the conversation.
    let conversation = "GET /discovery/conversation/me";
    let answer = "PUT /discovery/conversation/me/answers/{step}";
    let complete = "POST /discovery/conversation/me/complete";
    c.expect(
        conversation,
        404,
        bearer(Method::GET, "/discovery/conversation/me"),
    )
    .await;
    c.expect(
        answer,
        404,
        bearer(Method::PUT, "/discovery/conversation/me/answers/1").json(&json!({"text": "x"})),
    )
    .await;
    c.expect(
        "POST /discovery/conversation",
        201,
        bearer(Method::POST, "/discovery/conversation"),
    )
    .await;
    c.expect(
        "POST /discovery/conversation",
        200,
        bearer(Method::POST, "/discovery/conversation"),
    )
    .await;
    c.expect(
        answer,
        422,
        bearer(Method::PUT, "/discovery/conversation/me/answers/9").json(&json!({"text": "x"})),
    )
    .await;
    c.expect(
        complete,
        409,
        bearer(Method::POST, "/discovery/conversation/me/complete"),
    )
    .await;
    for (step, text) in GUT_ANSWERS.iter().enumerate() {
        let path = format!("/discovery/conversation/me/answers/{}", step + 1);
        c.expect(
            answer,
            200,
            bearer(Method::PUT, &path).json(&json!({ "text": text })),
        )
        .await;
    }
    c.expect(
        conversation,
        200,
        bearer(Method::GET, "/discovery/conversation/me"),
    )
    .await;

    // Nothing of the profile before the conversation is completed.
    let profile = "GET /discovery/profile/me";
    let reflect = "POST /discovery/profile/me/reflect";
    c.expect(profile, 404, bearer(Method::GET, "/discovery/profile/me"))
        .await;
    c.expect(
        reflect,
        404,
        bearer(Method::POST, "/discovery/profile/me/reflect").json(&json!({"opener": true})),
    )
    .await;
    c.expect(
        "GET /coaching/preferences",
        404,
        bearer(Method::GET, "/coaching/preferences"),
    )
    .await;
    c.expect(
        complete,
        201,
        bearer(Method::POST, "/discovery/conversation/me/complete"),
    )
    .await;
    c.expect(
        answer,
        409,
        bearer(Method::PUT, "/discovery/conversation/me/answers/1").json(&json!({"text": "x"})),
    )
    .await;

    // The profile and the reflection coach.
    let version = c
        .expect(profile, 200, bearer(Method::GET, "/discovery/profile/me"))
        .await["version"]
        .clone();
    let edit = "PATCH /discovery/profile/me";
    c.expect(
        edit,
        422,
        bearer(Method::PATCH, "/discovery/profile/me").json(&json!({"triad": "head"})),
    )
    .await;
    c.expect(
        edit,
        400,
        bearer(Method::PATCH, "/discovery/profile/me")
            .header("Content-Type", "application/json")
            .body("{\"love_summary\": "),
    )
    .await;
    c.expect(
        edit,
        409,
        bearer(Method::PATCH, "/discovery/profile/me")
            .header("If-Match", "\"99\"")
            .json(&json!({"love_summary": "Soup."})),
    )
    .await;
    c.expect(
        edit,
        200,
        bearer(Method::PATCH, "/discovery/profile/me")
            .header("If-Match", format!("\"{version}\""))
            .json(&json!({"love_summary": "Cooking soup for friends.", "near_term_goal_summary": null})),
    )
    .await;
    c.expect(
        reflect,
        422,
        bearer(Method::POST, "/discovery/profile/me/reflect").json(&json!({"opener": false})),
    )
    .await;
    c.expect(
        reflect,
        200,
        bearer(Method::POST, "/discovery/profile/me/reflect").json(&json!({"opener": true})),
    )
    .await;
    c.expect(
        reflect,
        200,
        bearer(Method::POST, "/discovery/profile/me/reflect")
            .json(&json!({"message": "Actually, what I love most is teaching."})),
    )
    .await;
    let preview = "GET /discovery/profile/me/reflect/preview";
    c.expect(
        preview,
        200,
        bearer(
            Method::GET,
            "/discovery/profile/me/reflect/preview?message=Hello%20coach",
        ),
    )
    .await;
    c.expect(
        preview,
        422,
        bearer(Method::GET, "/discovery/profile/me/reflect/preview"),
    )
    .await;
    c.expect(
        "POST /discovery/profile/me/reflect/preview",
        200,
        bearer(Method::POST, "/discovery/profile/me/reflect/preview")
            .json(&json!({"opener": true})),
    )
    .await;
    c.expect(
        "GET /discovery/profile/me/reflection",
        200,
        bearer(Method::GET, "/discovery/profile/me/reflection"),
    )
    .await;
    c.expect(
        "GET /discovery/profile/me/revisions",
        200,
        bearer(Method::GET, "/discovery/profile/me/revisions"),
    )
    .await;

    // Coaching: preferences, then check-ins once the profile is affirmed.
    c.expect(
        "GET /coaching/preferences",
        200,
        bearer(Method::GET, "/coaching/preferences"),
    )
    .await;
    let preferences = json!({
        "coaching_frequency": "monthly", "coaching_style": "warm", "misalignment_threshold": 0.5,
        "friction_tolerance": "low", "prefer_questions_over_directives": true,
        "time_of_day_preference": "evening"
    });
    c.expect(
        "PUT /coaching/preferences",
        200,
        bearer(Method::PUT, "/coaching/preferences").json(&preferences),
    )
    .await;
    c.expect(
        "PUT /coaching/preferences",
        422,
        bearer(Method::PUT, "/coaching/preferences").json(&json!({"coaching_frequency": "daily"})),
    )
    .await;
    c.expect(
        "POST /coaching/preferences/regenerate",
        200,
        bearer(Method::POST, "/coaching/preferences/regenerate"),
    )
    .await;
    c.expect(
        "POST /coaching/checkins",
        409,
        bearer(Method::POST, "/coaching/checkins"),
    )
    .await;
    let restore = "POST /discovery/profile/me/revisions/{number}/restore";
    c.expect(
        restore,
        200,
        bearer(Method::POST, "/discovery/profile/me/revisions/1/restore"),
    )
    .await;
    c.expect(
        restore,
        404,
        bearer(Method::POST, "/discovery/profile/me/revisions/999/restore"),
    )
    .await;
    c.expect(
        restore,
        422,
        bearer(Method::POST, "/discovery/profile/me/revisions/1/restore")
            .header("If-Match", "yesterday"),
    )
    .await;
    c.expect(
        "POST /discovery/profile/me/affirm",
        200,
        bearer(Method::POST, "/discovery/profile/me/affirm"),
    )
    .await;
    c.expect(
        edit,
        409,
        bearer(Method::PATCH, "/discovery/profile/me").json(&json!({"love_summary": "x"})),
    )
    .await;
    c.expect(
        restore,
        409,
        bearer(Method::POST, "/discovery/profile/me/revisions/1/restore"),
    )
    .await;
    let reopen = "POST /discovery/profile/me/reopen";
    c.expect(
        reopen,
        200,
        bearer(Method::POST, "/discovery/profile/me/reopen"),
    )
    .await;
    c.expect(
        "POST /discovery/profile/me/affirm",
        200,
        bearer(Method::POST, "/discovery/profile/me/affirm"),
    )
    .await;
    c.expect(
        reflect,
        409,
        bearer(Method::POST, "/discovery/profile/me/reflect").json(&json!({"opener": true})),
    )
    .await;

    // Time tracking, logged before the check-in so it carries an observation.
    c.expect(
        "GET /integration/foundations",
        200,
        bearer(Method::GET, "/integration/foundations"),
    )
    .await;
    let now = time::OffsetDateTime::now_utc();
    let at = |hours: i64| {
        (now - time::Duration::hours(hours))
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap()
    };
    let entry = |id: &str, foundation: &str| {
        json!({"external_task_id": id, "task_label": "Writing, \"drafts\"", "foundation": foundation,
               "minutes": 45, "occurred_at": at(3)})
    };
    let upsert = "POST /integration/task-mappings";
    c.expect(
        upsert,
        201,
        bearer(Method::POST, "/integration/task-mappings").json(&entry("t-1", "mission")),
    )
    .await;
    c.expect(
        upsert,
        200,
        bearer(Method::POST, "/integration/task-mappings").json(&entry("t-1", "vocation")),
    )
    .await;
    c.expect(
        upsert,
        422,
        bearer(Method::POST, "/integration/task-mappings").json(&json!({
            "external_task_id": "x", "foundation": "love", "minutes": 1441, "occurred_at": at(1)
        })),
    )
    .await;
    let batch = json!({"items": [entry("t-2", "love"), entry("batch", "strength"), entry("t-3", "long_term")]});
    c.expect(
        "POST /integration/task-mappings/batch",
        200,
        bearer(Method::POST, "/integration/task-mappings/batch").json(&batch),
    )
    .await;
    let list = "GET /integration/task-mappings";
    c.expect(
        list,
        200,
        bearer(
            Method::GET,
            "/integration/task-mappings?foundation=love&limit=2",
        ),
    )
    .await;
    c.expect(
        list,
        422,
        bearer(Method::GET, "/integration/task-mappings?from=yesterday"),
    )
    .await;
    let forget = "DELETE /integration/task-mappings/{external_task_id}";
    c.expect(
        forget,
        204,
        bearer(Method::DELETE, "/integration/task-mappings/t-3"),
    )
    .await;
    c.expect(
        forget,
        404,
        bearer(Method::DELETE, "/integration/task-mappings/t-3"),
    )
    .await;
    // The task whose external id is `batch` has a path of its own beside the batch upload.
    c.expect(
        "DELETE /integration/task-mappings/batch",
        204,
        bearer(Method::DELETE, "/integration/task-mappings/batch"),
    )
    .await;
    // An importer's sweep: the entries of one prefix, in a range, not sent since a moment.
    let sweep = "POST /integration/task-mappings/sweep";
    let swept = json!({"external_task_id_prefix": "t-", "from": at(4), "to": at(0),
                       "not_sent_since": at(0)});
    c.expect(
        sweep,
        200,
        bearer(Method::POST, "/integration/task-mappings/sweep").json(&swept),
    )
    .await;
    let reversed = json!({"external_task_id_prefix": "t-", "from": at(0), "to": at(4),
                          "not_sent_since": at(0)});
    c.expect(
        sweep,
        422,
        bearer(Method::POST, "/integration/task-mappings/sweep").json(&reversed),
    )
    .await;
    // Entries the rules decide, the rules themselves, and the unmapped time.
    let open = json!({"items": [
        {"external_task_id": "u-1", "task_label": "Inbox", "tags": ["mail", "project:Ops"],
         "minutes": 20, "occurred_at": at(2)},
        {"external_task_id": "u-2", "task_label": null, "foundation": null, "minutes": 15,
         "occurred_at": at(2)},
    ]});
    c.expect(
        "POST /integration/task-mappings/batch",
        200,
        bearer(Method::POST, "/integration/task-mappings/batch").json(&open),
    )
    .await;
    c.expect(
        list,
        200,
        bearer(
            Method::GET,
            "/integration/task-mappings?foundation=unmapped",
        ),
    )
    .await;
    let unmapped = "GET /integration/unmapped";
    c.expect(
        unmapped,
        200,
        bearer(Method::GET, "/integration/unmapped?days=7"),
    )
    .await;
    c.expect(
        unmapped,
        422,
        bearer(Method::GET, "/integration/unmapped?limit=0"),
    )
    .await;
    let rules = "GET /integration/rules";
    let add = "POST /integration/rules";
    let rule = c
        .expect(
            add,
            201,
            bearer(Method::POST, "/integration/rules")
                .json(&json!({"match": {"tag": "mail"}, "foundation": "vocation"})),
        )
        .await;
    c.expect(
        "GET /integration/reclassification",
        200,
        bearer(Method::GET, "/integration/reclassification"),
    )
    .await;
    c.expect(
        add,
        422,
        bearer(Method::POST, "/integration/rules")
            .json(&json!({"match": {"tag": "mail", "label_equals": "x"}, "foundation": "love"})),
    )
    .await;
    c.expect(rules, 200, bearer(Method::GET, "/integration/rules"))
        .await;
    let rule_path = format!("/integration/rules/{}", rule["id"].as_str().unwrap());
    let replace = "PUT /integration/rules/{id}";
    c.expect(
        replace,
        200,
        bearer(Method::PUT, &rule_path).json(
            &json!({"match": {"label_contains": "inbox"}, "foundation": "strength", "position": 1}),
        ),
    )
    .await;
    c.expect(
        replace,
        404,
        bearer(
            Method::PUT,
            "/integration/rules/00000000-0000-7000-8000-000000000000",
        )
        .json(&json!({"match": {"tag": "x"}, "foundation": "love"})),
    )
    .await;
    let drop_rule = "DELETE /integration/rules/{id}";
    c.expect(drop_rule, 204, bearer(Method::DELETE, &rule_path))
        .await;
    c.expect(drop_rule, 404, bearer(Method::DELETE, &rule_path))
        .await;
    let patterns = "GET /integration/work-patterns";
    c.expect(
        patterns,
        200,
        bearer(Method::GET, "/integration/work-patterns?days=7"),
    )
    .await;
    c.expect(
        patterns,
        422,
        bearer(Method::GET, "/integration/work-patterns?days=0"),
    )
    .await;
    let weekly = "GET /integration/work-patterns/weekly";
    c.expect(
        weekly,
        200,
        bearer(Method::GET, "/integration/work-patterns/weekly?weeks=3"),
    )
    .await;
    c.expect(
        weekly,
        422,
        bearer(Method::GET, "/integration/work-patterns/weekly?weeks=105"),
    )
    .await;

    // Check-ins and the batch run.
    let checkin = c
        .expect(
            "POST /coaching/checkins",
            201,
            bearer(Method::POST, "/coaching/checkins"),
        )
        .await;
    c.expect(
        "GET /coaching/checkins",
        200,
        bearer(Method::GET, "/coaching/checkins?limit=1"),
    )
    .await;
    let respond = format!(
        "/coaching/checkins/{}/response",
        checkin["id"].as_str().unwrap()
    );
    let response = "POST /coaching/checkins/{id}/response";
    c.expect(
        response,
        200,
        bearer(Method::POST, &respond).json(&json!({"still_valid": true, "note": "Yes."})),
    )
    .await;
    c.expect(
        response,
        409,
        bearer(Method::POST, &respond).json(&json!({"still_valid": false})),
    )
    .await;
    c.expect(
        response,
        404,
        bearer(Method::POST, "/coaching/checkins/not-an-id/response")
            .json(&json!({"still_valid": true})),
    )
    .await;
    let run = "POST /coaching/run";
    c.expect(run, 403, bearer(Method::POST, "/coaching/run"))
        .await;
    c.expect(
        run,
        403,
        admin
            .post(app.url("/coaching/run"))
            .header("Origin", "https://evil.example"),
    )
    .await;
    c.expect(run, 200, browser(&admin, Method::POST, "/coaching/run"))
        .await;

    // The account: keys, sessions, stats, export, activity.
    let key = c
        .expect(
            "POST /api/me/api-keys",
            201,
            ada_browser(Method::POST, "/api/me/api-keys").json(&json!({"name": "Timewarrior"})),
        )
        .await;
    c.expect(
        "POST /api/me/api-keys",
        201,
        ada_browser(Method::POST, "/api/me/api-keys").json(&json!({
            "name": "Assistant", "scopes": ["profile:read", "coaching"], "expires_in_days": 30
        })),
    )
    .await;
    c.expect(
        "POST /api/me/api-keys",
        422,
        ada_browser(Method::POST, "/api/me/api-keys").json(&json!({"name": "  "})),
    )
    .await;
    c.expect(
        "POST /api/me/api-keys",
        403,
        bearer(Method::POST, "/api/me/api-keys").json(&json!({"name": "From a script"})),
    )
    .await;
    // A key outside its scopes.
    let integration_only = key["key"].as_str().unwrap().to_owned();
    c.expect(
        "GET /discovery/profile/me",
        403,
        app.with_key(&integration_only, Method::GET, "/discovery/profile/me"),
    )
    .await;
    c.expect(
        "GET /api/me",
        200,
        app.with_key(&integration_only, Method::GET, "/api/me"),
    )
    .await;
    c.expect(
        "GET /api/me/api-keys",
        200,
        bearer(Method::GET, "/api/me/api-keys"),
    )
    .await;
    let revoke_key = format!("/api/me/api-keys/{}", key["id"].as_str().unwrap());
    c.expect(
        "DELETE /api/me/api-keys/{id}",
        403,
        bearer(Method::DELETE, &revoke_key),
    )
    .await;
    c.expect(
        "DELETE /api/me/api-keys/{id}",
        204,
        ada_browser(Method::DELETE, &revoke_key),
    )
    .await;
    c.expect(
        "DELETE /api/me/api-keys/{id}",
        404,
        ada_browser(Method::DELETE, &revoke_key),
    )
    .await;
    let other_session = app.dev_login("ada@example.org").await;
    c.expect(
        "GET /api/me/sessions",
        200,
        bearer(Method::GET, "/api/me/sessions"),
    )
    .await;
    let revoke_session = format!("/api/me/sessions/{}", other_session.session_id);
    c.expect(
        "DELETE /api/me/sessions/{id}",
        403,
        bearer(Method::DELETE, &revoke_session),
    )
    .await;
    c.expect(
        "DELETE /api/me/sessions/{id}",
        204,
        ada_browser(Method::DELETE, &revoke_session),
    )
    .await;
    c.expect(
        "DELETE /api/me/sessions/{id}",
        404,
        ada_browser(Method::DELETE, "/api/me/sessions/nope"),
    )
    .await;
    c.expect(
        "GET /api/me/stats",
        200,
        bearer(Method::GET, "/api/me/stats"),
    )
    .await;
    c.expect(
        "GET /api/me/export",
        403,
        bearer(Method::GET, "/api/me/export"),
    )
    .await;
    c.expect(
        "GET /api/me/export",
        200,
        ada_browser(Method::GET, "/api/me/export"),
    )
    .await;
    c.expect(
        "GET /api/activity",
        200,
        bearer(Method::GET, "/api/activity?limit=5"),
    )
    .await;
    c.expect(
        "GET /api/activity",
        422,
        bearer(Method::GET, "/api/activity?limit=0"),
    )
    .await;
    c.expect(
        "GET /api/activity/summary",
        200,
        bearer(Method::GET, "/api/activity/summary?days=7"),
    )
    .await;
    c.expect(
        "GET /api/admin/activity",
        403,
        bearer(Method::GET, "/api/admin/activity"),
    )
    .await;
    c.expect(
        "GET /api/admin/activity",
        200,
        app.with_key(
            OPERATOR_KEY,
            Method::GET,
            &format!("/api/admin/activity?user_id={}", ada.user_id),
        ),
    )
    .await;

    // The account's settings: the time zone.
    c.expect(
        "GET /api/me/settings",
        200,
        bearer(Method::GET, "/api/me/settings"),
    )
    .await;
    c.expect(
        "PUT /api/me/settings",
        200,
        bearer(Method::PUT, "/api/me/settings").json(&json!({"time_zone": "Asia/Tokyo"})),
    )
    .await;
    c.expect(
        "PUT /api/me/settings",
        422,
        bearer(Method::PUT, "/api/me/settings").json(&json!({"time_zone": "Mars/Olympus"})),
    )
    .await;

    // Notifications: the e-mail setting (this server has no SMTP) and a webhook's life.
    c.expect(
        "GET /api/me/notifications",
        200,
        bearer(Method::GET, "/api/me/notifications"),
    )
    .await;
    c.expect(
        "PUT /api/me/notifications",
        200,
        bearer(Method::PUT, "/api/me/notifications").json(&json!({"email_checkins": false})),
    )
    .await;
    c.expect(
        "PUT /api/me/notifications",
        409,
        bearer(Method::PUT, "/api/me/notifications").json(&json!({"email_checkins": true})),
    )
    .await;
    let webhooks = "POST /api/me/webhooks";
    let hook = c
        .expect(
            webhooks,
            201,
            ada_browser(Method::POST, "/api/me/webhooks").json(&json!({
                "url": "https://93.184.215.14/hook", "events": ["checkin.created", "ping"]
            })),
        )
        .await;
    c.expect(
        webhooks,
        422,
        ada_browser(Method::POST, "/api/me/webhooks")
            .json(&json!({"url": "https://127.0.0.1/", "events": ["ping"]})),
    )
    .await;
    c.expect(
        webhooks,
        403,
        bearer(Method::POST, "/api/me/webhooks")
            .json(&json!({"url": "https://93.184.215.14/hook", "events": ["ping"]})),
    )
    .await;
    c.expect(
        "GET /api/me/webhooks",
        200,
        ada_browser(Method::GET, "/api/me/webhooks"),
    )
    .await;
    let hook_path = format!("/api/me/webhooks/{}", hook["id"].as_str().unwrap());
    c.expect(
        "POST /api/me/webhooks/{id}/test",
        202,
        ada_browser(Method::POST, &format!("{hook_path}/test")),
    )
    .await;
    c.expect(
        "POST /api/me/webhooks/{id}/test",
        404,
        ada_browser(Method::POST, "/api/me/webhooks/nope/test"),
    )
    .await;
    c.expect(
        "GET /api/me/webhooks/{id}/deliveries",
        200,
        ada_browser(Method::GET, &format!("{hook_path}/deliveries?limit=5")),
    )
    .await;
    c.expect(
        "GET /api/me/webhooks/{id}/deliveries",
        404,
        ada_browser(Method::GET, "/api/me/webhooks/nope/deliveries"),
    )
    .await;
    c.expect(
        "DELETE /api/me/webhooks/{id}",
        204,
        ada_browser(Method::DELETE, &hook_path),
    )
    .await;
    c.expect(
        "DELETE /api/me/webhooks/{id}",
        404,
        ada_browser(Method::DELETE, &hook_path),
    )
    .await;

    // The e-mails' one-click unsubscribe: no sign-in, a signed token.
    let links =
        adapters_delivery::SignedLinks::new("http://unused", crate::helpers::JWT_SECRET.as_bytes());
    let token = links.unsubscribe_token(ada.user_id.parse().unwrap());
    let unsubscribe = "POST /api/notifications/unsubscribe";
    c.expect(
        unsubscribe,
        200,
        client()
            .post(app.url("/api/notifications/unsubscribe"))
            .query(&[("token", token.as_str())]),
    )
    .await;
    c.expect(
        unsubscribe,
        404,
        client()
            .post(app.url("/api/notifications/unsubscribe"))
            .query(&[("token", "email_checkins.forged.x")]),
    )
    .await;

    // Sessions end: the admin's browser refreshes, then signs out; an unknown refresh token
    // is refused; Ada deletes her account, and her token no longer signs her in.
    let refresh = "POST /api/auth/refresh";
    c.expect(
        refresh,
        204,
        browser(&admin, Method::POST, "/api/auth/refresh"),
    )
    .await;
    c.expect(
        refresh,
        401,
        client()
            .post(app.url("/api/auth/refresh"))
            .header("Origin", app.origin())
            .header("Cookie", "ds_refresh=not-a-token"),
    )
    .await;
    c.expect(
        "POST /api/auth/logout",
        204,
        browser(&admin, Method::POST, "/api/auth/logout"),
    )
    .await;
    c.expect("DELETE /api/me", 403, bearer(Method::DELETE, "/api/me"))
        .await;
    c.expect(
        "DELETE /api/me",
        204,
        ada_browser(Method::DELETE, "/api/me"),
    )
    .await;
    c.expect("GET /api/me", 401, bearer(Method::GET, "/api/me"))
        .await;

    c.finish();
}

#[tokio::test]
async fn the_check_refuses_an_answer_the_document_does_not_describe() {
    let app = spawn_app().await;
    let c = Conformance::of(&app).await;
    let profile = json!({"$ref": "#/components/schemas/Profile"});
    let valid = json!({
        "id": "0193b1c2-7d4e-7a00-8000-000000000001", "enneagram_type": 8, "triad": "gut",
        "love_summary": "a", "strength_summary": "b", "mission_summary": "c",
        "vocation_summary": "d", "overlap_narrative": "e", "near_term_goal_summary": null,
        "sources": {"love_summary": [{"step": 1, "quote": "a"}],
                    "strength_summary": [{"reflection_message_id": "0193b1c2-7d4e-7a00-8000-000000000002", "quote": "b"}],
                    "mission_summary": [], "vocation_summary": [], "overlap_narrative": [],
                    "near_term_goal_summary": [], "long_term_goal_summary": []},
        "locked": false, "version": 1,
        "created_at": "2026-11-22T10:00:00Z", "updated_at": "2026-11-22T10:00:00Z"
    });
    assert_eq!(c.errors(&profile, &valid), Vec::<String>::new());
    for (field, wrong) in [
        ("triad", json!("belly")),
        ("enneagram_type", json!(10)),
        ("id", json!("not-a-uuid")),
        ("created_at", json!("yesterday")),
        ("love_summary", json!(null)),
        ("mood", json!("a field the document does not name")),
        (
            "sources",
            json!({"love_summary": [{"step": 8, "quote": "a"}]}),
        ),
    ] {
        let mut answer = valid.clone();
        answer[field] = wrong;
        let errors = c.errors(&profile, &answer);
        assert!(
            errors.iter().any(|e| e.contains(&format!("/{field}"))
                || e.contains(&format!("'{field}'"))
                || e.contains(&format!("\"{field}\""))),
            "{field}: {errors:?}"
        );
    }
    let mut missing = valid.clone();
    missing.as_object_mut().unwrap().remove("version");
    assert!(!c.errors(&profile, &missing).is_empty());

    // A map stays open, and a part of an `allOf` names only part of the object.
    let mut schema = json!({
        "type": "object",
        "properties": {"by_day": {"type": "object", "additionalProperties": {"type": "integer"}}},
        "allOf": [{"properties": {"extra": {"type": "string"}}}]
    });
    close(&mut schema, false);
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    assert!(validator.is_valid(&json!({"by_day": {"mon": 1}, "extra": "x"})));
    assert!(!validator.is_valid(&json!({"by_day": {}, "other": "x"})));
}
