//! One person can never read or revoke another's sessions, keys or activity: another's ids
//! answer 404 (never 403, never the data) and lists hold only the caller's own.

use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::helpers::{SignedIn, TestApp, assert_error, send, spawn_app};

async fn list(app: &TestApp, who: &SignedIn, path: &str) -> Value {
    let response = send(app.with_bearer(&who.access_jwt, Method::GET, path)).await;
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    response.json().await.unwrap()
}

#[tokio::test]
async fn another_persons_session_cannot_be_listed_or_revoked() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;

    let sessions = list(&app, &ada, "/api/me/sessions").await;
    let ids: Vec<&str> = sessions
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [ada.session_id.as_str()]);

    let path = format!("/api/me/sessions/{}", bob.session_id);
    let response = send(app.as_browser(&ada, Method::DELETE, &path)).await;
    assert_error(response, 404, "not_found").await;
    // Ada's Bearer token is refused before Bob's id is even looked at.
    let response = send(app.with_bearer(&ada.access_jwt, Method::DELETE, &path)).await;
    assert_error(response, 403, "session_required").await;

    assert_eq!(
        app.me_status_with_bearer(&bob.access_jwt).await,
        StatusCode::OK,
        "Bob is still signed in"
    );
}

#[tokio::test]
async fn another_persons_api_key_cannot_be_listed_or_revoked() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;
    let ada_key = app.create_api_key(&ada, "ada's tracker").await;
    let bob_key = app.create_api_key(&bob, "bob's tracker").await;

    let keys = list(&app, &ada, "/api/me/api-keys").await;
    let ids: Vec<&str> = keys
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [ada_key.id.as_str()]);

    let path = format!("/api/me/api-keys/{}", bob_key.id);
    let response = send(app.as_browser(&ada, Method::DELETE, &path)).await;
    assert_error(response, 404, "not_found").await;
    // Not even with Ada's own key, which is refused before Bob's id is even looked at.
    let response = send(app.with_key(&ada_key.key, Method::DELETE, &path)).await;
    assert_error(response, 403, "session_required").await;

    let response = send(app.with_key(&bob_key.key, Method::GET, "/api/me")).await;
    assert_eq!(response.status(), StatusCode::OK, "Bob's key still works");
    let me: Value = response.json().await.unwrap();
    assert_eq!(me["id"], bob.user_id.as_str());
}

#[tokio::test]
async fn the_activity_list_and_summary_hold_only_the_callers_requests() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;
    for n in 0..3 {
        let request = app
            .with_bearer(&bob.access_jwt, Method::GET, "/api/me")
            .header("X-Request-Id", format!("bob-{n}"));
        assert_eq!(send(request).await.status(), StatusCode::OK);
    }
    let request = app
        .with_bearer(&ada.access_jwt, Method::GET, "/api/me")
        .header("X-Request-Id", "ada-0");
    assert_eq!(send(request).await.status(), StatusCode::OK);
    app.activity_entry(&bob.user_id, "bob-2").await;
    app.activity_entry(&ada.user_id, "ada-0").await;

    let mine = list(&app, &ada, "/api/activity?limit=1000").await;
    let items = mine["items"].as_array().unwrap();
    assert!(items.iter().any(|i| i["request_id"] == "ada-0"), "{mine:#}");
    for item in items {
        assert_ne!(item["user_id"], bob.user_id.as_str(), "{item}");
        assert!(
            !item["request_id"]
                .as_str()
                .unwrap_or_default()
                .starts_with("bob-"),
            "{item}"
        );
    }

    // Ada's summary counts Ada's requests only: her sign-in, one call and the list above.
    app.flush_activity().await;
    let summary = list(&app, &ada, "/api/activity/summary").await;
    let total: i64 = summary["by_day"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["count"].as_i64().unwrap())
        .sum();
    assert_eq!(total, 3, "{summary}");
    let from_sources: i64 = summary["by_source"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_i64().unwrap())
        .sum();
    assert_eq!(from_sources, total, "{summary}");

    // Asking for Bob's by id does not give them.
    let response = send(app.with_bearer(
        &ada.access_jwt,
        Method::GET,
        &format!("/api/activity?user_id={}", bob.user_id),
    ))
    .await;
    if response.status().is_success() {
        let body: Value = response.json().await.unwrap();
        assert!(
            body["items"]
                .as_array()
                .unwrap()
                .iter()
                .all(|i| i["user_id"] != bob.user_id.as_str()),
            "{body:#}"
        );
    } else {
        assert!(response.status().is_client_error());
    }
}

#[tokio::test]
async fn another_persons_stats_are_not_counted() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;
    for _ in 0..5 {
        assert_eq!(
            app.me_status_with_bearer(&bob.access_jwt).await,
            StatusCode::OK
        );
    }
    app.flush_activity().await;

    let stats = list(&app, &ada, "/api/me/stats").await;

    assert_eq!(stats["total_requests"], 1, "only Ada's sign-in: {stats}");
}
