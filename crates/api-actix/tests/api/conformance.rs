//! The document is true by test as well as by construction: every operation of `/openapi.json`
//! is called for real, and each answer's status, content type and body are checked against what
//! the document says of that operation (the body with a JSON Schema validator). The walk must
//! reach a documented success of every operation, so a route added without a case here fails.

use std::collections::BTreeSet;

use jsonschema::Draft;
use reqwest::{Method, RequestBuilder};
use serde_json::{Value, json};

use crate::helpers::{ADMIN_EMAIL, OPERATOR_KEY, TestApp, client, spawn_app};

/// The document, and every `(METHOD path, status)` whose answer was checked against it.
struct Conformance {
    doc: Value,
    checked: BTreeSet<(String, u16)>,
}

impl Conformance {
    async fn of(app: &TestApp) -> Self {
        let doc = app
            .api
            .get(app.url("/openapi.json"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        Self {
            doc,
            checked: BTreeSet::new(),
        }
    }

    /// Sends `request` for the documented operation `route` ("METHOD /path/{template}"),
    /// checks the answer against the document, and returns its status and JSON body
    /// (`Value::Null` when it has none).
    async fn check(&mut self, route: &str, request: RequestBuilder) -> (u16, Value) {
        let (method, path) = route.split_once(' ').unwrap();
        let operation = &self.doc["paths"][path][method.to_lowercase()];
        assert!(operation.is_object(), "{route} is not in the document");

        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_owned());
        let body = response.bytes().await.unwrap();

        let documented = &operation["responses"][status.to_string()];
        assert!(
            documented.is_object(),
            "{route} answered {status}, which the document does not list: {}",
            String::from_utf8_lossy(&body)
        );
        let Some(content) = documented["content"].as_object() else {
            assert!(
                body.is_empty(),
                "{route} {status}: the document lists no body, the server sent one"
            );
            self.checked.insert((route.to_owned(), status));
            return (status, Value::Null);
        };
        let content_type = content_type
            .unwrap_or_else(|| panic!("{route} {status}: a body without a content type"));
        let (media_type, media) = content
            .iter()
            .find(|(media_type, _)| content_type.starts_with(media_type.as_str()))
            .unwrap_or_else(|| {
                panic!("{route} {status}: {content_type} is not documented ({content:?})")
            });
        let json = if media_type == "application/json" {
            let json: Value = serde_json::from_slice(&body)
                .unwrap_or_else(|e| panic!("{route} {status}: the body is not JSON: {e}"));
            let errors = self.errors(&media["schema"], &json);
            assert!(
                errors.is_empty(),
                "{route} {status}: the answer disagrees with the document:\n{}\n{json:#}",
                errors.join("\n")
            );
            json
        } else {
            assert!(
                !body.is_empty(),
                "{route} {status}: an empty {media_type} body"
            );
            Value::Null
        };
        self.checked.insert((route.to_owned(), status));
        (status, json)
    }

    /// As [`Self::check`], and the answer must have this status.
    async fn expect(&mut self, route: &str, status: u16, request: RequestBuilder) -> Value {
        let (actual, body) = self.check(route, request).await;
        assert_eq!(actual, status, "{route}: {body}");
        body
    }

    /// What is wrong with `instance` by `schema`, resolving `#/components/...` in the document
    /// and checking formats (`date-time`, `uuid`...) too.
    fn errors(&self, schema: &Value, instance: &Value) -> Vec<String> {
        let mut root = schema.as_object().cloned().unwrap();
        root.insert("components".into(), self.doc["components"].clone());
        let validator = jsonschema::options()
            .with_draft(Draft::Draft202012)
            .should_validate_formats(true)
            .build(&Value::Object(root))
            .unwrap_or_else(|e| panic!("the documented schema {schema} is invalid: {e}"));
        validator
            .iter_errors(instance)
            .map(|e| format!("at {}: {e}", e.instance_path()))
            .collect()
    }

    /// Every operation of the document answered with a documented success at least once.
    fn assert_every_operation_succeeded(&self) {
        let mut missing = Vec::new();
        for (path, item) in self.doc["paths"].as_object().unwrap() {
            for method in item.as_object().unwrap().keys() {
                let route = format!("{} {path}", method.to_uppercase());
                let succeeded = self
                    .checked
                    .iter()
                    .any(|(r, status)| *r == route && (200..400).contains(status));
                if !succeeded {
                    missing.push(route);
                }
            }
        }
        assert!(
            missing.is_empty(),
            "never answered with success: {missing:#?}"
        );
    }
}

#[tokio::test]
async fn every_operation_answers_as_the_document_says() {
    let app = spawn_app().await;
    let mut c = Conformance::of(&app).await;
    let origin = app.origin();
    let browser = |who: &reqwest::Client, method: Method, path: &str| {
        who.request(method, app.url(path))
            .header("Origin", origin.clone())
    };

    // Open to everyone.
    for route in [
        "GET /healthz",
        "GET /readyz",
        "GET /metrics",
        "GET /discovery/prompts",
    ] {
        let path = route.split_once(' ').unwrap().1;
        c.expect(route, 200, app.api.get(app.url(path))).await;
    }
    c.expect(
        "GET /api/auth/config",
        200,
        app.api.get(app.url("/api/auth/config")),
    )
    .await;
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

    // Dev login: refused shapes, then the admin (a browser with cookies) and a second person.
    let admin = client();
    let login = |who: &reqwest::Client, body: Value| {
        who.post(app.url("/api/auth/dev-login"))
            .header("Origin", app.origin())
            .json(&body)
    };
    c.expect(
        "POST /api/auth/dev-login",
        422,
        login(&admin, json!({"email": "no-at-sign"})),
    )
    .await;
    c.expect(
        "POST /api/auth/dev-login",
        415,
        admin
            .post(app.url("/api/auth/dev-login"))
            .header("Origin", app.origin())
            .body("email=a@b"),
    )
    .await;
    c.expect(
        "POST /api/auth/dev-login",
        200,
        login(&admin, json!({"email": ADMIN_EMAIL})),
    )
    .await;
    let ada = app.dev_login("ada@example.org").await;
    let bearer = |method: Method, path: &str| app.with_bearer(&ada.access_jwt, method, path);
    c.expect("GET /api/me", 401, app.api.get(app.url("/api/me")))
        .await;
    c.expect("GET /api/me", 200, bearer(Method::GET, "/api/me"))
        .await;

    // Discovery.
    c.expect(
        "GET /discovery/conversation/me",
        404,
        bearer(Method::GET, "/discovery/conversation/me"),
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
    let answer = "PUT /discovery/conversation/me/answers/{step}";
    c.expect(
        answer,
        422,
        bearer(Method::PUT, "/discovery/conversation/me/answers/9").json(&json!({"text": "x"})),
    )
    .await;
    c.expect(
        "POST /discovery/conversation/me/complete",
        409,
        bearer(Method::POST, "/discovery/conversation/me/complete"),
    )
    .await;
    for (step, text) in crate::helpers::GUT_ANSWERS.iter().enumerate() {
        let path = format!("/discovery/conversation/me/answers/{}", step + 1);
        c.expect(
            answer,
            200,
            bearer(Method::PUT, &path).json(&json!({ "text": text })),
        )
        .await;
    }
    c.expect(
        "GET /discovery/conversation/me",
        200,
        bearer(Method::GET, "/discovery/conversation/me"),
    )
    .await;
    c.expect(
        "GET /discovery/profile/me",
        404,
        bearer(Method::GET, "/discovery/profile/me"),
    )
    .await;
    c.expect(
        "POST /discovery/conversation/me/complete",
        201,
        bearer(Method::POST, "/discovery/conversation/me/complete"),
    )
    .await;

    // The profile and the reflection coach.
    let profile = c
        .expect(
            "GET /discovery/profile/me",
            200,
            bearer(Method::GET, "/discovery/profile/me"),
        )
        .await;
    let edit = "PATCH /discovery/profile/me";
    c.expect(
        edit,
        422,
        bearer(Method::PATCH, "/discovery/profile/me").json(&json!({"triad": "head"})),
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
            .header("If-Match", format!("\"{}\"", profile["version"]))
            .json(&json!({"love_summary": "Cooking soup for friends.", "near_term_goal_summary": null})),
    )
    .await;
    let reflect = "POST /discovery/profile/me/reflect";
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
    c.expect(
        "GET /discovery/profile/me/reflect/preview",
        200,
        bearer(
            Method::GET,
            "/discovery/profile/me/reflect/preview?message=Hello%20coach",
        ),
    )
    .await;
    c.expect(
        "GET /discovery/profile/me/reflect/preview",
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
        bearer(Method::POST, "/integration/task-mappings").json(&json!({"external_task_id": "x", "foundation": "love", "minutes": 1441, "occurred_at": at(1)})),
    )
    .await;
    let batch = json!({"items": [entry("t-2", "love"), entry("batch", "strength"), entry("t-3", "long_term")]});
    c.expect(
        "POST /integration/task-mappings/batch",
        200,
        bearer(Method::POST, "/integration/task-mappings/batch").json(&batch),
    )
    .await;
    c.expect(
        "GET /integration/task-mappings",
        200,
        bearer(
            Method::GET,
            "/integration/task-mappings?foundation=love&limit=2",
        ),
    )
    .await;
    c.expect(
        "GET /integration/task-mappings",
        422,
        bearer(Method::GET, "/integration/task-mappings?from=yesterday"),
    )
    .await;
    c.expect(
        "DELETE /integration/task-mappings/{external_task_id}",
        204,
        bearer(Method::DELETE, "/integration/task-mappings/t-3"),
    )
    .await;
    c.expect(
        "DELETE /integration/task-mappings/{external_task_id}",
        404,
        bearer(Method::DELETE, "/integration/task-mappings/t-3"),
    )
    .await;
    c.expect(
        "DELETE /integration/task-mappings/batch",
        204,
        bearer(Method::DELETE, "/integration/task-mappings/batch"),
    )
    .await;
    c.expect(
        "GET /integration/work-patterns",
        200,
        bearer(Method::GET, "/integration/work-patterns?days=7"),
    )
    .await;
    c.expect(
        "GET /integration/work-patterns",
        422,
        bearer(Method::GET, "/integration/work-patterns?days=0"),
    )
    .await;

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
    c.expect(
        "POST /coaching/run",
        403,
        bearer(Method::POST, "/coaching/run"),
    )
    .await;
    c.expect(
        "POST /coaching/run",
        200,
        browser(&admin, Method::POST, "/coaching/run"),
    )
    .await;

    // The account: keys, sessions, stats, export, activity.
    let key = c
        .expect(
            "POST /api/me/api-keys",
            201,
            bearer(Method::POST, "/api/me/api-keys").json(&json!({"name": "Timewarrior"})),
        )
        .await;
    c.expect(
        "POST /api/me/api-keys",
        422,
        bearer(Method::POST, "/api/me/api-keys").json(&json!({"name": "  "})),
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
        204,
        bearer(Method::DELETE, &revoke_key),
    )
    .await;
    c.expect(
        "DELETE /api/me/api-keys/{id}",
        404,
        bearer(Method::DELETE, &revoke_key),
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
        204,
        bearer(Method::DELETE, &revoke_session),
    )
    .await;
    c.expect(
        "DELETE /api/me/sessions/{id}",
        404,
        bearer(Method::DELETE, "/api/me/sessions/nope"),
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
        200,
        bearer(Method::GET, "/api/me/export"),
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

    // Sessions end: the admin's browser refreshes, then signs out; a refresh token used twice
    // outside the grace window ends its session; Ada deletes her account.
    c.expect(
        "POST /api/auth/refresh",
        204,
        browser(&admin, Method::POST, "/api/auth/refresh"),
    )
    .await;
    c.expect(
        "POST /api/auth/refresh",
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
    c.expect("DELETE /api/me", 204, bearer(Method::DELETE, "/api/me"))
        .await;
    c.expect("GET /api/me", 401, bearer(Method::GET, "/api/me"))
        .await;

    c.assert_every_operation_succeeded();
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
    ] {
        let mut answer = valid.clone();
        answer[field] = wrong;
        let errors = c.errors(&profile, &answer);
        assert!(
            errors.iter().any(|e| e.contains(&format!("/{field}"))),
            "{field}: {errors:?}"
        );
    }
    let mut missing = valid.clone();
    missing.as_object_mut().unwrap().remove("version");
    assert!(!c.errors(&profile, &missing).is_empty());
}
