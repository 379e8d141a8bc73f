//! Notifications over HTTP: the e-mail setting (only where the server sends e-mail), webhook
//! endpoints (the secret shown once, https to public addresses only, at most ten, owner-scoped,
//! session-only), the test ping and the delivery log, and events queued by real changes.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{
    GUT_ANSWERS, SignedIn, TestApp, affirm, assert_error, discover, json_body, send, spawn_app,
    spawn_app_with,
};

/// A destination that passes every rule without a name lookup: a public address literal
/// (documentation ranges are refused, so this is an ordinary public one). Nothing is sent to
/// it: these tests run no delivery.
const PUBLIC_URL: &str = "https://93.184.215.14/discovery-hook";

async fn register(app: &TestApp, who: &SignedIn, body: Value) -> reqwest::Response {
    send(
        app.as_browser(who, Method::POST, "/api/me/webhooks")
            .json(&body),
    )
    .await
}

async fn registered(app: &TestApp, who: &SignedIn, events: &[&str]) -> Value {
    json_body(
        register(app, who, json!({"url": PUBLIC_URL, "events": events})).await,
        201,
    )
    .await
}

async fn delivery_log(app: &TestApp, who: &SignedIn, id: &str) -> Vec<Value> {
    let path = format!("/api/me/webhooks/{id}/deliveries");
    let page = json_body(send(app.as_browser(who, Method::GET, &path)).await, 200).await;
    page["items"].as_array().unwrap().clone()
}

#[tokio::test]
async fn e_mail_is_off_by_default_and_cannot_be_turned_on_without_smtp() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    let setting = json_body(
        send(app.as_browser(&ada, Method::GET, "/api/me/notifications")).await,
        200,
    )
    .await;
    assert_eq!(
        setting,
        json!({"email_checkins": false, "email": "ada@example.org", "email_available": false})
    );
    let refused = send(
        app.as_browser(&ada, Method::PUT, "/api/me/notifications")
            .json(&json!({"email_checkins": true})),
    )
    .await;
    assert_error(refused, 409, "email_unavailable").await;
    let still = json_body(
        send(app.as_browser(&ada, Method::GET, "/api/me/notifications")).await,
        200,
    )
    .await;
    assert_eq!(still["email_checkins"], false);
}

#[tokio::test]
async fn with_smtp_configured_e_mail_is_turned_on_and_off() {
    let app = spawn_app_with(&[
        ("SMTP_URL", "smtp://127.0.0.1:2525"),
        ("SMTP_FROM", "Discovery <discovery@example.org>"),
        ("DELIVERY_WORKER", "false"),
    ])
    .await;
    let ada = app.dev_login("ada@example.org").await;
    for on in [true, false, true] {
        let put = json_body(
            send(
                app.as_browser(&ada, Method::PUT, "/api/me/notifications")
                    .json(&json!({"email_checkins": on})),
            )
            .await,
            200,
        )
        .await;
        assert_eq!(put["email_checkins"], on);
        assert_eq!(put["email_available"], true);
        let get = json_body(
            send(app.as_browser(&ada, Method::GET, "/api/me/notifications")).await,
            200,
        )
        .await;
        assert_eq!(get, put);
    }
    for bad in [
        json!({"email_checkins": "yes"}),
        json!({}),
        json!({"email_checkins": true, "sms": true}),
    ] {
        let response = send(
            app.as_browser(&ada, Method::PUT, "/api/me/notifications")
                .json(&bad),
        )
        .await;
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
    }
}

#[tokio::test]
async fn a_webhook_shows_its_secret_once_and_lists_without_it() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    let created = registered(&app, &ada, &["profile.revised", "checkin.created"]).await;

    let secret = created["secret"].as_str().unwrap();
    let key = secret.strip_prefix("whsec_").expect("whsec_ prefix");
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(key)
        .unwrap();
    assert_eq!(bytes.len(), 32, "{created}");
    assert_eq!(created["url"], PUBLIC_URL);
    assert_eq!(
        created["events"],
        json!(["checkin.created", "profile.revised"]),
        "in the contract's order"
    );
    assert!(created["disabled_at"].is_null());
    let other = registered(&app, &ada, &["ping"]).await;
    assert_ne!(other["secret"], created["secret"]);

    let response = send(app.as_browser(&ada, Method::GET, "/api/me/webhooks")).await;
    let text = response.text().await.unwrap();
    assert!(!text.contains(key), "the list never shows a secret: {text}");
    let listed: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0]["id"], other["id"], "newest first");
    for hook in &listed {
        assert!(hook.get("secret").is_none(), "{hook}");
        for field in ["id", "url", "events", "created_at", "disabled_at"] {
            assert!(hook.get(field).is_some(), "{field} in {hook}");
        }
    }
}

#[tokio::test]
async fn private_loopback_and_plain_http_destinations_are_refused_and_nothing_is_stored() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    for url in [
        "https://127.0.0.1/",
        "https://10.0.0.1/",
        "https://[::1]/",
        "https://[::ffff:127.0.0.1]/",
        "https://169.254.169.254/latest/meta-data",
        "https://localhost/",
        "https://2130706433/",
        "http://93.184.215.14/",
        "https://does-not-exist.invalid/",
        "not a url",
    ] {
        let response = register(&app, &ada, json!({"url": url, "events": ["ping"]})).await;
        let body = assert_error(response, 422, "validation_failed").await;
        assert_eq!(body["error"]["details"][0]["field"], "url", "{url}: {body}");
    }
    for (events, field) in [
        (json!([]), "events"),
        (json!(["checkin.deleted"]), "events[0]"),
        (json!(["ping", 7]), "events[1]"),
    ] {
        let response = register(&app, &ada, json!({"url": PUBLIC_URL, "events": events})).await;
        let body = assert_error(response, 422, "validation_failed").await;
        assert_eq!(body["error"]["details"][0]["field"], field, "{body}");
    }
    let listed = json_body(
        send(app.as_browser(&ada, Method::GET, "/api/me/webhooks")).await,
        200,
    )
    .await;
    assert_eq!(listed, json!([]));
}

#[tokio::test]
async fn with_private_destinations_allowed_a_loopback_http_endpoint_registers() {
    let app = spawn_app_with(&[
        ("WEBHOOK_ALLOW_PRIVATE", "true"),
        ("DELIVERY_WORKER", "false"),
    ])
    .await;
    let ada = app.dev_login("ada@example.org").await;
    let response = register(
        &app,
        &ada,
        json!({"url": "http://127.0.0.1:9/hook", "events": ["ping"]}),
    )
    .await;
    assert_eq!(response.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn a_person_has_at_most_ten_webhooks() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    for _ in 0..10 {
        registered(&app, &ada, &["ping"]).await;
    }
    let refused = register(&app, &ada, json!({"url": PUBLIC_URL, "events": ["ping"]})).await;
    assert_error(refused, 409, "too_many_webhooks").await;
}

#[tokio::test]
async fn a_test_queues_a_ping_in_the_log_and_only_the_owner_reaches_the_endpoint() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let eve = app.dev_login("eve@example.org").await;
    let hook = registered(&app, &ada, &["checkin.created"]).await;
    let id = hook["id"].as_str().unwrap();
    let test = format!("/api/me/webhooks/{id}/test");

    let queued = send(app.as_browser(&ada, Method::POST, &test)).await;
    assert_eq!(queued.status(), StatusCode::ACCEPTED);

    let log = delivery_log(&app, &ada, id).await;
    assert_eq!(log.len(), 1, "{log:?}");
    let ping = &log[0];
    assert_eq!(ping["event_type"], "ping");
    assert_eq!(ping["status"], "pending");
    assert_eq!(ping["attempt"], 0);
    assert!(ping["next_attempt_at"].is_string(), "{ping}");
    for field in [
        "id",
        "event_id",
        "response_status",
        "error",
        "created_at",
        "last_attempt_at",
    ] {
        assert!(ping.get(field).is_some(), "{field} in {ping}");
    }

    // Eve cannot test, read or delete Ada's endpoint: it does not exist for her.
    for (method, path) in [
        (Method::POST, test.clone()),
        (Method::GET, format!("/api/me/webhooks/{id}/deliveries")),
        (Method::DELETE, format!("/api/me/webhooks/{id}")),
        (Method::DELETE, "/api/me/webhooks/not-an-id".to_owned()),
    ] {
        let response = send(app.as_browser(&eve, method.clone(), &path)).await;
        assert_error(response, 404, "not_found").await;
    }
    assert_eq!(delivery_log(&app, &ada, id).await.len(), 1);

    let deleted =
        send(app.as_browser(&ada, Method::DELETE, &format!("/api/me/webhooks/{id}"))).await;
    assert_eq!(deleted.status(), StatusCode::NO_CONTENT);
    let again = send(app.as_browser(&ada, Method::POST, &test)).await;
    assert_error(again, 404, "not_found").await;
}

#[tokio::test]
async fn webhooks_need_a_session_cookie() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let key = app
        .create_scoped_key(
            &ada,
            "everything",
            &["integration", "profile:read", "coaching"],
        )
        .await;
    let hook = registered(&app, &ada, &["ping"]).await;
    let id = hook["id"].as_str().unwrap();
    for (method, path) in [
        (Method::POST, "/api/me/webhooks".to_owned()),
        (Method::GET, "/api/me/webhooks".to_owned()),
        (Method::DELETE, format!("/api/me/webhooks/{id}")),
        (Method::POST, format!("/api/me/webhooks/{id}/test")),
        (Method::GET, format!("/api/me/webhooks/{id}/deliveries")),
    ] {
        let body = json!({"url": PUBLIC_URL, "events": ["ping"]});
        let with_key = app.with_key(&key.key, method.clone(), &path).json(&body);
        assert_error(send(with_key).await, 403, "session_required").await;
        let with_bearer = app
            .with_bearer(&ada.access_jwt, method.clone(), &path)
            .json(&body);
        assert_error(send(with_bearer).await, 403, "session_required").await;
    }
    assert_eq!(delivery_log(&app, &ada, id).await.len(), 0);
}

#[tokio::test]
async fn profile_changes_queue_events_for_subscribed_endpoints_only() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let profile_hook = registered(&app, &ada, &["profile.revised", "profile.affirmed"]).await;
    let checkin_hook = registered(&app, &ada, &["checkin.created"]).await;

    discover(&app, &ada.access_jwt, GUT_ANSWERS).await;
    affirm(&app, &ada.access_jwt).await;
    let created = send(app.with_bearer(&ada.access_jwt, Method::POST, "/coaching/checkins")).await;
    assert_eq!(created.status(), StatusCode::CREATED);

    let profile_log = delivery_log(&app, &ada, profile_hook["id"].as_str().unwrap()).await;
    let types: Vec<&str> = profile_log
        .iter()
        .map(|d| d["event_type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        ["profile.affirmed", "profile.revised"],
        "newest first"
    );
    let checkin_log = delivery_log(&app, &ada, checkin_hook["id"].as_str().unwrap()).await;
    let types: Vec<&str> = checkin_log
        .iter()
        .map(|d| d["event_type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["checkin.created"]);
}
