//! Bad requests answer in the contract's error shape, never with actix's plain-text defaults:
//! 400 for a body that is not JSON or a malformed query, 415 for another content type, 422 for
//! well-formed JSON of the wrong shape, 413 beyond 64 KiB.

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::helpers::{TestApp, assert_error, count, send, set_cookies, spawn_app};

fn dev_login(app: &TestApp) -> reqwest::RequestBuilder {
    app.api
        .post(app.url("/api/auth/dev-login"))
        .header("Origin", app.origin())
}

#[tokio::test]
async fn a_body_that_is_not_json_is_invalid_json() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    for body in ["{not json", "", "{\"email\": \"ada@example.org\""] {
        let response = send(
            dev_login(&app)
                .header("Content-Type", "application/json")
                .body(body),
        )
        .await;
        assert_error(response, 400, "invalid_json").await;
    }
    for body in ["{not json", "", "nul", "{\"name\": \"tracker\""] {
        let response = send(
            app.as_browser(&ada, Method::POST, "/api/me/api-keys")
                .header("Content-Type", "application/json")
                .body(body),
        )
        .await;
        assert_error(response, 400, "invalid_json").await;
    }
}

#[tokio::test]
async fn a_body_that_breaks_off_is_invalid_json_even_when_what_came_first_had_the_wrong_shape() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    // Not JSON at all, so 400 — not the 422 of well-formed JSON of the wrong shape.
    let response = send(
        dev_login(&app)
            .header("Content-Type", "application/json")
            .body("[1, 2"),
    )
    .await;
    assert_error(response, 400, "invalid_json").await;
    let response = send(
        app.as_browser(&ada, Method::POST, "/api/me/api-keys")
            .header("Content-Type", "application/json")
            .body("{\"email\": \"ada@example.org\""),
    )
    .await;
    assert_error(response, 400, "invalid_json").await;
}

#[tokio::test]
async fn a_body_of_another_content_type_is_unsupported() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    for content_type in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        None,
    ] {
        let mut request = app
            .as_browser(&ada, Method::POST, "/api/me/api-keys")
            .body(r#"{"name": "tracker"}"#);
        if let Some(content_type) = content_type {
            request = request.header("Content-Type", content_type);
        }
        assert_error(send(request).await, 415, "unsupported_media_type").await;
    }
    // `application/json; charset=utf-8` is JSON.
    let response = send(
        app.as_browser(&ada, Method::POST, "/api/me/api-keys")
            .header("Content-Type", "application/json; charset=utf-8")
            .body(r#"{"name": "tracker"}"#),
    )
    .await;
    assert_eq!(response.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn an_unknown_field_is_a_validation_error_naming_it() {
    let app = spawn_app().await;

    let response =
        send(dev_login(&app).json(&json!({"email": "ada@example.org", "is_admin": true}))).await;
    let body = assert_error(response, 422, "validation_failed").await;
    assert_eq!(body["error"]["details"][0]["field"], "is_admin", "{body}");
}

#[tokio::test]
async fn a_missing_field_is_a_validation_error_naming_it() {
    let app = spawn_app().await;

    let response = send(dev_login(&app).json(&json!({}))).await;
    let body = assert_error(response, 422, "validation_failed").await;
    assert_eq!(body["error"]["details"][0]["field"], "email", "{body}");
}

#[tokio::test]
async fn a_wrongly_typed_field_is_a_validation_error_naming_it() {
    let app = spawn_app().await;

    let response = send(dev_login(&app).json(&json!({"email": 42}))).await;
    let body = assert_error(response, 422, "validation_failed").await;
    assert_eq!(body["error"]["details"][0]["field"], "email", "{body}");
}

#[tokio::test]
async fn an_invalid_email_at_dev_login_is_a_validation_error() {
    let app = spawn_app().await;

    for email in ["not-an-email", "", "a@b@c", "two words@example.org"] {
        let response = send(dev_login(&app).json(&json!({"email": email}))).await;
        let body = assert_error(response, 422, "validation_failed").await;
        assert_eq!(body["error"]["details"][0]["field"], "email", "{body}");
    }
}

#[tokio::test]
async fn a_mailbox_expression_at_dev_login_is_refused_and_creates_no_account() {
    let app = spawn_app().await;
    let users = || count(&app, "SELECT COUNT(*) AS n FROM users");
    let before = users();

    for email in [
        "x<victim@evil.example>",
        "Victim <victim@evil.example>",
        "ada@example.org (Ada)",
        "\"ada\"@example.org",
        "ada@example.org,victim@evil.example",
        "ada@example.org;victim@evil.example",
        "ada\u{7}@example.org",
    ] {
        let response = send(dev_login(&app).json(&json!({"email": email}))).await;
        assert!(
            set_cookies(response.headers()).is_empty(),
            "no session for {email:?}"
        );
        let body = assert_error(response, 422, "validation_failed").await;
        assert_eq!(body["error"]["details"][0]["field"], "email", "{body}");
        assert!(
            !body.to_string().contains("victim@"),
            "the refusal does not echo the address: {body}"
        );
    }
    assert_eq!(users(), before, "no account was created");
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) AS n FROM users WHERE email LIKE '%victim%'"
        ),
        0
    );

    // An ordinary address with a tag and a subdomain still signs in.
    let response =
        send(dev_login(&app).json(&json!({"email": "First.Last+tag@sub.example.org"}))).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(users(), before + 1);
}

#[tokio::test]
async fn a_body_over_64_kib_is_too_large() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    let big = json!({"name": "x".repeat(70 * 1024)});
    let response = send(
        app.as_browser(&ada, Method::POST, "/api/me/api-keys")
            .json(&big),
    )
    .await;
    assert_error(response, 413, "payload_too_large").await;
    let response = send(
        dev_login(&app).json(&json!({"email": format!("{}@example.org", "a".repeat(65 * 1024))})),
    )
    .await;
    assert_error(response, 413, "payload_too_large").await;

    // Just under the limit is read (and then judged on its content, not its size).
    let under = json!({"name": "x".repeat(60 * 1024)});
    let response = send(
        app.as_browser(&ada, Method::POST, "/api/me/api-keys")
            .json(&under),
    )
    .await;
    assert_ne!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert!(
        response.status().is_client_error() || response.status().is_success(),
        "{}",
        response.status()
    );
}

#[tokio::test]
async fn a_malformed_query_string_is_invalid_json_and_an_out_of_range_one_a_validation_error() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    for path in ["/api/activity?limit=abc", "/api/activity/summary?days=many"] {
        let response = send(app.with_bearer(&ada.access_jwt, Method::GET, path)).await;
        assert_error(response, 400, "invalid_json").await;
    }
    for (path, field) in [
        ("/api/activity?limit=0", "limit"),
        ("/api/activity?limit=1001", "limit"),
        ("/api/activity?before=not-a-cursor", "before"),
        ("/api/activity/summary?days=0", "days"),
        ("/api/activity/summary?days=366", "days"),
    ] {
        let response = send(app.with_bearer(&ada.access_jwt, Method::GET, path)).await;
        let body = assert_error(response, 422, "validation_failed").await;
        assert_eq!(
            body["error"]["details"][0]["field"], field,
            "{path}: {body}"
        );
    }
}

#[tokio::test]
async fn errors_never_leak_internals() {
    let app = spawn_app().await;

    let response = send(
        dev_login(&app)
            .header("Content-Type", "application/json")
            .body("{\"email\": \"x\", "),
    )
    .await;
    let body = assert_error(response, 400, "invalid_json").await;
    let text = body.to_string().to_lowercase();
    for leak in [
        "serde", "line 1", "column", "actix", "panicked", "select ", "sqlite", "postgres",
    ] {
        assert!(!text.contains(leak), "{leak} in {body}");
    }
}

#[tokio::test]
async fn a_body_or_a_batch_item_sent_as_an_array_is_a_validation_error() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    // serde would read a struct from an array by field order; the contract's bodies are objects.
    for (path, body, field) in [
        ("/api/me/api-keys", json!(["laptop"]), "body"),
        ("/discovery/profile/me/reflect", json!([null, "hi"]), "body"),
        (
            "/integration/task-mappings/batch",
            json!({"items": [["t", null, "love", 5, "2026-11-22T10:00:00Z"]]}),
            "items[0]",
        ),
    ] {
        let response = send(app.as_person(&ada, Method::POST, path).json(&body)).await;
        let error = assert_error(response, 422, "validation_failed").await;
        assert_eq!(error["error"]["details"][0]["field"], field, "{path}");
    }
    let keys = send(app.with_bearer(&ada.access_jwt, Method::GET, "/api/me/api-keys")).await;
    assert_eq!(keys.json::<serde_json::Value>().await.unwrap(), json!([]));
}
