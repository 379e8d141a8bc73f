//! Operations: the probes, `X-Request-Id` on every response, JSON for unknown routes, and dev
//! login only where it belongs.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{
    JWT_SECRET, assert_error, count, send, spawn_app, spawn_app_configured, spawn_app_with,
};

#[tokio::test]
async fn healthz_says_ok() {
    let app = spawn_app().await;

    let response = send(app.api.get(app.url("/healthz"))).await;

    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body, json!({"status": "ok"}));
}

#[tokio::test]
async fn readyz_is_ok_while_the_database_answers() {
    let app = spawn_app().await;

    let response = send(app.api.get(app.url("/readyz"))).await;

    assert_eq!(response.status(), StatusCode::OK);
}

fn request_id(response: &reqwest::Response) -> String {
    response
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_else(|| {
            panic!(
                "no X-Request-Id on {} {}",
                response.status(),
                response.url()
            )
        })
        .to_owned()
}

#[tokio::test]
async fn every_response_carries_a_fresh_request_id() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    let requests = [
        app.api.get(app.url("/healthz")),
        app.api.get(app.url("/readyz")),
        app.api.get(app.url("/api/me")),
        app.api.get(app.url("/no/such/route")),
        app.with_bearer(&ada.access_jwt, Method::GET, "/api/me"),
        app.api.get(app.url("/api/auth/login")),
        app.api
            .post(app.url("/api/auth/dev-login"))
            .header("Content-Type", "application/json")
            .body("{"),
    ];
    let mut seen = Vec::new();
    for request in requests {
        let response = send(request).await;
        let id = request_id(&response);
        assert!(uuid::Uuid::parse_str(&id).is_ok(), "{id}");
        assert!(!seen.contains(&id), "request ids are unique");
        seen.push(id);
    }
}

#[tokio::test]
async fn a_request_id_sent_by_the_caller_is_echoed() {
    let app = spawn_app().await;

    for path in ["/healthz", "/api/me", "/nowhere"] {
        let response = send(
            app.api
                .get(app.url(path))
                .header("X-Request-Id", "trace-abc.123:x_y"),
        )
        .await;
        assert_eq!(request_id(&response), "trace-abc.123:x_y", "{path}");
    }
}

#[tokio::test]
async fn an_unusable_request_id_is_replaced_by_a_fresh_one() {
    let app = spawn_app().await;

    let long = "a".repeat(500);
    for sent in ["has spaces in it", "<script>", long.as_str()] {
        let response = send(
            app.api
                .get(app.url("/healthz"))
                .header("X-Request-Id", sent),
        )
        .await;
        let id = request_id(&response);
        assert_ne!(id, sent);
        assert!(uuid::Uuid::parse_str(&id).is_ok(), "{id}");
    }
}

#[tokio::test]
async fn an_unknown_route_is_a_json_not_found() {
    let app = spawn_app().await;

    for path in ["/nowhere", "/api/nothing", "/api/me/nothing/here"] {
        let response = send(app.api.get(app.url(path))).await;
        assert_error(response, 404, "not_found").await;
    }
}

#[tokio::test]
async fn a_known_route_called_with_another_method_answers_in_the_error_shape() {
    let app = spawn_app().await;

    for (method, path) in [
        (Method::PUT, "/api/me"),
        (Method::POST, "/healthz"),
        (Method::GET, "/api/auth/logout"),
    ] {
        let response = send(app.api.request(method.clone(), app.url(path))).await;
        let status = response.status().as_u16();
        let text = response.text().await.unwrap();
        assert!(status == 404 || status == 405, "{method} {path}: {status}");
        let body: Value = serde_json::from_str(&text).unwrap_or_else(|_| {
            panic!("{method} {path}: {status} with a body that is not JSON: {text:?}")
        });
        assert!(
            body["error"]["code"]
                .as_str()
                .is_some_and(|c| !c.is_empty()),
            "{body}"
        );
        assert!(
            body["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{body}"
        );
    }
}

#[tokio::test]
async fn dev_login_is_not_found_outside_dev_mode() {
    let app = spawn_app_configured(&[], &[("JWT_SECRET", JWT_SECRET)]).await;

    let response = send(
        app.api
            .post(app.url("/api/auth/dev-login"))
            .header("Origin", app.origin())
            .json(&json!({"email": "ada@example.org"})),
    )
    .await;

    let cookies = response.headers().get_all("set-cookie").iter().count();
    assert_error(response, 404, "not_found").await;
    assert_eq!(cookies, 0);
    // The service itself runs.
    assert_eq!(
        send(app.api.get(app.url("/healthz"))).await.status(),
        StatusCode::OK
    );
}

/// What `/api/auth/config` says, as the sign-in page reads it.
async fn sign_in_config(app: &crate::helpers::TestApp) -> serde_json::Value {
    let response = send(app.api.get(app.url("/api/auth/config"))).await;
    crate::helpers::json_body(response, 200).await
}

#[tokio::test]
async fn the_sign_in_config_says_whether_dev_login_is_on_without_signing_anyone_in() {
    let on = spawn_app().await;
    assert_eq!(
        sign_in_config(&on).await,
        json!({"sign_in": false, "dev_login": true})
    );
    let off = spawn_app_with(&[("AUTH_DEV_LOGIN", "false")]).await;
    assert_eq!(
        sign_in_config(&off).await,
        json!({"sign_in": false, "dev_login": false})
    );
}

#[tokio::test]
async fn dev_login_refuses_an_address_with_white_space_around_it() {
    let app = spawn_app().await;
    for email in [" ada@example.org", "ada@example.org\n"] {
        let response = send(
            app.api
                .post(app.url("/api/auth/dev-login"))
                .header("Origin", app.origin())
                .json(&json!({ "email": email })),
        )
        .await;
        let body = assert_error(response, 422, "validation_failed").await;
        assert_eq!(body["error"]["details"][0]["field"], "email", "{email:?}");
    }
}

#[tokio::test]
async fn dev_login_is_not_found_when_switched_off_in_dev_mode() {
    let app = spawn_app_with(&[("AUTH_DEV_LOGIN", "false")]).await;

    let response = send(
        app.api
            .post(app.url("/api/auth/dev-login"))
            .header("Origin", app.origin())
            .json(&json!({"email": "ada@example.org"})),
    )
    .await;

    assert_error(response, 404, "not_found").await;
}

#[tokio::test]
async fn dev_login_switched_on_without_dev_mode_stops_start_up_with_one_line() {
    let refused =
        settings::api::ApiSettings::from_lookup(Vec::<String>::new(), |name| match name {
            "JWT_SECRET" => Some(JWT_SECRET.to_owned()),
            "AUTH_DEV_LOGIN" => Some("true".to_owned()),
            _ => None,
        })
        .unwrap_err()
        .to_string();
    assert!(refused.starts_with("AUTH_DEV_LOGIN"), "{refused}");
    assert!(
        refused.contains("--dev") && !refused.contains('\n'),
        "{refused}"
    );
}

#[tokio::test]
async fn dev_login_relayed_by_a_proxy_is_not_found_and_signs_no_one_in() {
    let app = spawn_app().await;
    for (name, value) in [
        ("X-Forwarded-For", "203.0.113.9"),
        ("Forwarded", "for=203.0.113.9"),
        ("X-Forwarded-For", "127.0.0.1"),
    ] {
        let response = send(
            app.api
                .post(app.url("/api/auth/dev-login"))
                .header("Origin", app.origin())
                .header(name, value)
                .json(&json!({"email": "ada@example.org"})),
        )
        .await;
        assert!(response.headers().get("set-cookie").is_none(), "{name}");
        assert_error(response, 404, "not_found").await;
    }
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) AS n FROM users WHERE email = 'ada@example.org'"
        ),
        0
    );
}

#[tokio::test]
async fn sign_in_without_an_identity_provider_redirects_to_the_login_page_with_an_error() {
    let app = spawn_app().await;

    let response = send(
        app.api
            .get(app.url("/api/auth/login?redirect=/profile.html")),
    )
    .await;

    assert_eq!(response.status(), StatusCode::FOUND);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    assert!(location.starts_with("/login?error="), "{location}");
}

#[tokio::test]
async fn the_suite_runs_on_the_database_it_was_asked_for() {
    let app = spawn_app().await;

    let expected = match std::env::var("TEST_DATABASE_URL") {
        Ok(url) if !url.is_empty() => adapters_diesel::Backend::Postgres,
        _ => adapters_diesel::Backend::Sqlite,
    };
    assert_eq!(app.backend, expected);
    assert_eq!(
        send(app.api.get(app.url("/readyz"))).await.status(),
        StatusCode::OK
    );
}
