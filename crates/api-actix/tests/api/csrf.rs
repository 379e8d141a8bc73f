//! CSRF defence and CORS: a cookie-authenticated POST/PUT/PATCH/DELETE must come from the
//! service's own origin (or one of `CORS_ALLOWED_ORIGINS`), as `Origin` — or, without it,
//! `Referer` — shows; Bearer and API-key calls are exempt.

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::helpers::{SignedIn, TestApp, assert_error, send, spawn_app, spawn_app_with};

const PARTNER: &str = "https://partner.example";

/// How many API keys `who` has, asked with the Bearer token (no CSRF question).
async fn key_count(app: &TestApp, who: &SignedIn) -> usize {
    let response = send(app.with_bearer(&who.access_jwt, Method::GET, "/api/me/api-keys")).await;
    assert_eq!(response.status(), StatusCode::OK);
    response
        .json::<Vec<serde_json::Value>>()
        .await
        .unwrap()
        .len()
}

/// A cookie-authenticated `POST /api/me/api-keys` with these extra headers.
async fn create_key_with_cookie(
    app: &TestApp,
    who: &SignedIn,
    headers: &[(&str, &str)],
) -> reqwest::Response {
    let mut request = who
        .client
        .post(app.url("/api/me/api-keys"))
        .json(&json!({"name": "from the browser"}));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    send(request).await
}

#[tokio::test]
async fn a_cookie_authenticated_write_without_origin_or_referer_is_forbidden() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    let response = create_key_with_cookie(&app, &ada, &[]).await;
    assert_error(response, 403, "forbidden").await;
    assert_eq!(key_count(&app, &ada).await, 0, "nothing was created");
}

#[tokio::test]
async fn a_cookie_authenticated_write_from_a_foreign_origin_is_forbidden() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    let foreign_port = format!("http://127.0.0.1:{}", app.port + 1);
    let foreign = [
        vec![("Origin", "https://evil.example")],
        vec![("Origin", "null")],
        vec![("Origin", foreign_port.as_str())],
        vec![("Origin", "https://127.0.0.1.evil.example")],
        vec![("Referer", "https://evil.example/page.html")],
        // An Origin, when present, decides, even if the Referer would pass.
        vec![
            ("Origin", "https://evil.example"),
            ("Referer", app.address.as_str()),
        ],
    ];
    for headers in foreign {
        let response = create_key_with_cookie(&app, &ada, &headers).await;
        assert_error(response, 403, "forbidden").await;
    }
    assert_eq!(key_count(&app, &ada).await, 0, "nothing was created");
}

#[tokio::test]
async fn every_unsafe_account_route_is_guarded_for_cookies() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let phone = app.dev_login("ada@example.org").await;
    let key = app.create_api_key(&ada, "tracker").await;

    let attempts = [
        (Method::DELETE, "/api/me".to_owned()),
        (
            Method::DELETE,
            format!("/api/me/sessions/{}", phone.session_id),
        ),
        (Method::DELETE, format!("/api/me/api-keys/{}", key.id)),
        (Method::POST, "/api/auth/logout".to_owned()),
        (Method::POST, "/api/auth/refresh".to_owned()),
    ];
    for (method, path) in attempts {
        let response = send(
            ada.client
                .request(method.clone(), app.url(&path))
                .header("Origin", "https://evil.example"),
        )
        .await;
        assert_error(response, 403, "forbidden").await;
    }

    // Nothing happened: the account, both sessions and the key are all still there.
    assert_eq!(
        app.me_status_with_bearer(&ada.access_jwt).await,
        StatusCode::OK
    );
    assert_eq!(
        app.me_status_with_bearer(&phone.access_jwt).await,
        StatusCode::OK
    );
    assert_eq!(key_count(&app, &ada).await, 1);
    let response = send(app.with_key(&key.key, Method::GET, "/api/me")).await;
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_cookie_authenticated_write_from_the_services_own_pages_is_allowed() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    let localhost = format!("http://localhost:{}", app.port);
    let page = format!("{}/profile.html?tab=keys", app.address);
    let own = [
        vec![("Origin", app.address.as_str())],
        vec![("Origin", localhost.as_str())],
        vec![("Referer", page.as_str())],
    ];
    for headers in own {
        let response = create_key_with_cookie(&app, &ada, &headers).await;
        assert_eq!(response.status(), StatusCode::CREATED, "{headers:?}");
    }
    assert_eq!(key_count(&app, &ada).await, 3);
}

#[tokio::test]
async fn a_cookie_authenticated_write_from_an_allowed_cors_origin_or_the_public_base_url_is_allowed()
 {
    let app = spawn_app_with(&[
        (
            "CORS_ALLOWED_ORIGINS",
            &format!("{PARTNER}, https://other.example"),
        ),
        ("PUBLIC_BASE_URL", "https://discovery.example"),
    ])
    .await;
    let ada = app.dev_login("ada@example.org").await;

    for origin in [
        PARTNER,
        "https://other.example",
        "https://discovery.example",
    ] {
        let response = create_key_with_cookie(&app, &ada, &[("Origin", origin)]).await;
        assert_eq!(response.status(), StatusCode::CREATED, "{origin}");
    }
    let response =
        create_key_with_cookie(&app, &ada, &[("Origin", "https://not-a-partner.example")]).await;
    assert_error(response, 403, "forbidden").await;
}

/// A task mapping with this external id.
fn mapping(external_task_id: &str) -> serde_json::Value {
    json!({
        "external_task_id": external_task_id,
        "foundation": "love",
        "minutes": 30,
        "occurred_at": "2026-11-20T10:00:00Z",
    })
}

#[tokio::test]
async fn bearer_and_api_key_writes_need_no_origin_but_cannot_manage_credentials() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let key = app.create_api_key(&ada, "tracker").await;

    // Writes within their reach need no Origin, and a foreign one does not matter.
    let bearer = app
        .with_bearer(&ada.access_jwt, Method::POST, "/integration/task-mappings")
        .json(&mapping("bearer"));
    assert_eq!(send(bearer).await.status(), StatusCode::CREATED);
    let bearer_foreign = app
        .with_bearer(&ada.access_jwt, Method::POST, "/integration/task-mappings")
        .header("Origin", "https://evil.example")
        .json(&mapping("bearer, foreign origin"));
    assert_eq!(send(bearer_foreign).await.status(), StatusCode::CREATED);
    let with_key = app
        .with_key(&key.key, Method::POST, "/integration/task-mappings")
        .json(&mapping("api key"));
    assert_eq!(send(with_key).await.status(), StatusCode::CREATED);
    let with_key_foreign = app
        .with_key(
            &key.key,
            Method::DELETE,
            "/integration/task-mappings/bearer",
        )
        .header("Origin", "https://evil.example");
    assert_eq!(
        send(with_key_foreign).await.status(),
        StatusCode::NO_CONTENT
    );

    // Managing credentials is the browser session's alone (docs/api.md, "Least privilege"): with a
    // Bearer token or a key it is 403 `session_required`, Origin or not, and nothing happens.
    let refused = [
        app.with_bearer(&ada.access_jwt, Method::POST, "/api/me/api-keys")
            .json(&json!({"name": "bearer"})),
        app.with_bearer(&ada.access_jwt, Method::POST, "/api/me/api-keys")
            .header("Origin", app.origin())
            .json(&json!({"name": "bearer, own origin"})),
        app.with_bearer(&ada.access_jwt, Method::POST, "/api/me/api-keys")
            .header("Origin", "https://evil.example")
            .json(&json!({"name": "bearer, foreign origin"})),
        app.with_key(&key.key, Method::POST, "/api/me/api-keys")
            .json(&json!({"name": "api key"})),
        app.with_key(
            &key.key,
            Method::DELETE,
            &format!("/api/me/sessions/{}", ada.session_id),
        )
        .header("Origin", "https://evil.example"),
        app.with_key(
            &key.key,
            Method::DELETE,
            &format!("/api/me/sessions/{}", ada.session_id),
        ),
    ];
    for request in refused {
        assert_error(send(request).await, 403, "session_required").await;
    }
    assert_eq!(key_count(&app, &ada).await, 1, "no key was made");
    assert_eq!(
        app.me_status_with_bearer(&ada.access_jwt).await,
        StatusCode::OK,
        "the session was not revoked"
    );
}

#[tokio::test]
async fn cookie_authenticated_reads_need_no_origin() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    for path in [
        "/api/me",
        "/api/me/sessions",
        "/api/me/api-keys",
        "/api/activity",
    ] {
        let response = send(ada.client.get(app.url(path))).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
    }
}

#[tokio::test]
async fn dev_login_from_a_foreign_page_is_forbidden() {
    let app = spawn_app().await;

    let response = send(
        app.api
            .post(app.url("/api/auth/dev-login"))
            .header("Origin", "https://evil.example")
            .json(&json!({"email": "victim@example.org"})),
    )
    .await;
    assert_error(response, 403, "forbidden").await;
}

#[tokio::test]
async fn an_allowed_cors_origin_may_call_with_credentials_and_a_foreign_one_gets_no_cors_headers() {
    let app = spawn_app_with(&[("CORS_ALLOWED_ORIGINS", PARTNER)]).await;
    let ada = app.dev_login("ada@example.org").await;

    // The browser's preflight for a credentialed JSON write.
    let preflight = send(
        app.api
            .request(Method::OPTIONS, app.url("/api/me/api-keys"))
            .header("Origin", PARTNER)
            .header("Access-Control-Request-Method", "POST")
            .header("Access-Control-Request-Headers", "content-type"),
    )
    .await;
    assert!(
        preflight.status().is_success(),
        "preflight: {}",
        preflight.status()
    );
    let headers = preflight.headers();
    assert_eq!(
        headers
            .get("access-control-allow-origin")
            .and_then(|v| v.to_str().ok()),
        Some(PARTNER)
    );
    assert_eq!(
        headers
            .get("access-control-allow-credentials")
            .and_then(|v| v.to_str().ok()),
        Some("true")
    );

    // The actual request.
    let response = send(ada.client.get(app.url("/api/me")).header("Origin", PARTNER)).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response
            .headers()
            .get("access-control-allow-origin")
            .and_then(|v| v.to_str().ok()),
        Some(PARTNER)
    );

    // Another origin is not told it may read.
    let response = send(
        ada.client
            .get(app.url("/api/me"))
            .header("Origin", "https://evil.example"),
    )
    .await;
    assert!(
        response
            .headers()
            .get("access-control-allow-origin")
            .is_none()
    );
}
