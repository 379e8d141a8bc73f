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

pub(crate) async fn register(app: &TestApp, who: &SignedIn, body: Value) -> reqwest::Response {
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

pub(crate) async fn delivery_log(app: &TestApp, who: &SignedIn, id: &str) -> Vec<Value> {
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
async fn ipv6_forms_of_private_addresses_and_special_purpose_ranges_are_refused() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    for url in [
        // IPv6 forms embedding a loopback or private IPv4 address.
        "https://[::127.0.0.1]/",
        "https://[::ffff:7f00:1]/",
        "https://[::ffff:0:a00:1]/",
        "https://[64:ff9b::a00:1]/",
        "https://[64:ff9b:1::a9fe:a9fe]/",
        "https://[2002:7f00:1::]/",
        "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
        // IPv6 special-purpose ranges.
        "https://[100::1]/",
        "https://[2001:db8::1]/",
        "https://[3fff::1]/",
        "https://[ff02::1]/",
        // IPv4 special-purpose ranges.
        "https://0.1.2.3/",
        "https://100.64.0.1/",
        "https://192.0.0.8/",
        "https://192.0.2.1/",
        "https://198.18.0.1/",
        "https://198.51.100.7/",
        "https://203.0.113.9/",
        "https://240.0.0.1/",
        "https://255.255.255.255/",
        "https://239.1.2.3/",
    ] {
        let response = register(&app, &ada, json!({"url": url, "events": ["ping"]})).await;
        let body = assert_error(response, 422, "validation_failed").await;
        assert_eq!(body["error"]["details"][0]["field"], "url", "{url}: {body}");
    }
    let listed = json_body(
        send(app.as_browser(&ada, Method::GET, "/api/me/webhooks")).await,
        200,
    )
    .await;
    assert_eq!(listed, json!([]), "nothing was stored");

    // The same forms embedding a public address (93.184.215.14) are public.
    for url in [
        "https://[64:ff9b::5db8:d70e]/hook",
        "https://[2002:5db8:d70e::1]/hook",
    ] {
        let response = register(&app, &ada, json!({"url": url, "events": ["ping"]})).await;
        assert_eq!(response.status(), StatusCode::CREATED, "{url}");
    }
}

#[tokio::test]
async fn with_private_destinations_allowed_a_loopback_http_endpoint_registers() {
    let app = spawn_app_with(&[("WEBHOOK_ALLOW_PRIVATE", "true")]).await;
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

/// A receiver on loopback answering every POST with `status`, a service with its delivery worker
/// (private destinations allowed), Ada, and her webhook to the receiver for `events`.
async fn with_receiver(
    status: u16,
    events: &[&str],
) -> (wiremock::MockServer, TestApp, SignedIn, Value) {
    let receiver = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(wiremock::ResponseTemplate::new(status))
        .mount(&receiver)
        .await;
    let app = spawn_app_with(&[
        ("WEBHOOK_ALLOW_PRIVATE", "true"),
        ("DELIVERY_WORKER", "true"),
    ])
    .await;
    let ada = app.dev_login("ada@example.org").await;
    let url = format!("{}/hook", receiver.uri());
    let hook = json_body(
        register(&app, &ada, json!({"url": url, "events": events})).await,
        201,
    )
    .await;
    (receiver, app, ada, hook)
}

/// The in-process worker delivers a test ping to a real receiver on loopback, signed so that
/// the Standard Webhooks reference library verifies it, and the log shows it delivered.
#[tokio::test]
async fn the_worker_delivers_a_signed_ping_and_logs_it() {
    let (receiver, app, ada, hook) = with_receiver(204, &["checkin.created"]).await;
    let id = hook["id"].as_str().unwrap();
    let queued =
        send(app.as_browser(&ada, Method::POST, &format!("/api/me/webhooks/{id}/test"))).await;
    assert_eq!(queued.status(), StatusCode::ACCEPTED);

    let log = delivered_log(&app, &ada, id).await;
    let received = receiver.received_requests().await.unwrap();
    assert_eq!(received.len(), 1);
    let request = &received[0];
    let headers =
        http::HeaderMap::from_iter(request.headers.iter().map(|(k, v)| (k.clone(), v.clone())));
    standardwebhooks::Webhook::new(hook["secret"].as_str().unwrap())
        .unwrap()
        .verify(&request.body, &headers)
        .expect("the signature verifies");
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    assert_eq!(body["type"], "ping");
    assert_eq!(body["id"], log[0]["event_id"]);
    assert_eq!(headers["webhook-id"], log[0]["event_id"].as_str().unwrap());
    assert_eq!(log[0]["status"], "delivered");
    assert_eq!(log[0]["attempt"], 1);
    assert_eq!(log[0]["response_status"], 204);
}

/// Waits (up to 10 s) until the endpoint's newest delivery is no longer pending; its log.
async fn delivered_log(app: &TestApp, who: &SignedIn, id: &str) -> Vec<Value> {
    for _ in 0..100 {
        let log = delivery_log(app, who, id).await;
        if log.first().is_some_and(|d| d["status"] != "pending") {
            return log;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!(
        "nothing delivered within 10 s: {:?}",
        delivery_log(app, who, id).await
    );
}

/// A receiver that answers 500: the attempt is logged with its status and due again later.
#[tokio::test]
async fn a_failed_delivery_is_logged_with_the_answer_and_due_again() {
    let (_receiver, app, ada, hook) = with_receiver(500, &["ping"]).await;
    let id = hook["id"].as_str().unwrap();
    send(app.as_browser(&ada, Method::POST, &format!("/api/me/webhooks/{id}/test"))).await;

    let mut log = Vec::new();
    for _ in 0..100 {
        log = delivery_log(&app, &ada, id).await;
        if log[0]["attempt"] == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let d = &log[0];
    assert_eq!(d["attempt"], 1, "{d}");
    assert_eq!(d["status"], "pending");
    assert_eq!(d["response_status"], 500);
    assert_eq!(d["error"], "the endpoint answered 500");
    let last = time::OffsetDateTime::parse(
        d["last_attempt_at"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    let next = time::OffsetDateTime::parse(
        d["next_attempt_at"].as_str().unwrap(),
        &time::format_description::well_known::Rfc3339,
    )
    .unwrap();
    assert_eq!((next - last).whole_seconds(), 30, "{d}");
}

#[tokio::test]
async fn the_one_click_link_turns_e_mail_off_and_a_forged_one_is_404() {
    let app = spawn_app_with(&[
        ("SMTP_URL", "smtp://127.0.0.1:2525"),
        ("SMTP_FROM", "Discovery <discovery@example.org>"),
    ])
    .await;
    let ada = app.dev_login("ada@example.org").await;
    let eve = app.dev_login("eve@example.org").await;
    for who in [&ada, &eve] {
        send(
            app.as_browser(who, Method::PUT, "/api/me/notifications")
                .json(&json!({"email_checkins": true})),
        )
        .await;
    }
    let links =
        adapters_delivery::SignedLinks::new("http://unused", crate::helpers::JWT_SECRET.as_bytes());
    let ada_id: domain::ids::UserId = ada.user_id.parse().unwrap();
    let token = links.unsubscribe_token(ada_id);
    let forged = [
        token.replace(&ada.user_id, &eve.user_id),
        // The signature's last character changed; never to itself (a token ending in "A" would
        // have stayed valid, and the test failed one run in sixteen).
        format!(
            "{}{}",
            &token[..token.len() - 1],
            if token.ends_with('A') { 'Q' } else { 'A' }
        ),
        adapters_delivery::SignedLinks::new(
            "http://unused",
            b"another-secret-of-at-least-32-bytes",
        )
        .unsubscribe_token(ada_id),
        "x".to_owned(),
    ];
    // A mail program's one-click POST: no cookie, no Origin.
    let one_click = |token: &str| {
        crate::helpers::client()
            .post(app.url("/api/notifications/unsubscribe"))
            .query(&[("token", token)])
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body("List-Unsubscribe=One-Click")
    };
    for bad in &forged {
        assert_error(send(one_click(bad)).await, 404, "not_found").await;
    }
    let email_of = |who: &SignedIn| {
        let request = app.as_browser(who, Method::GET, "/api/me/notifications");
        async move { json_body(send(request).await, 200).await["email_checkins"].clone() }
    };
    assert_eq!(email_of(&ada).await, true, "nothing changed yet");
    assert_eq!(email_of(&eve).await, true);

    let done = json_body(send(one_click(&token)).await, 200).await;
    assert_eq!(done, json!({"email_checkins": false}));
    assert_eq!(email_of(&ada).await, false);
    assert_eq!(
        email_of(&eve).await,
        true,
        "only the person the token names"
    );
    // Clicking again is harmless.
    json_body(send(one_click(&token)).await, 200).await;
}

/// The export holds the setting and the endpoints, never a signing secret.
#[tokio::test]
async fn the_export_holds_the_webhooks_without_their_secrets() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let hook = registered(&app, &ada, &["checkin.created"]).await;

    let response = send(app.as_browser(&ada, Method::GET, "/api/me/export")).await;
    assert_eq!(response.status(), StatusCode::OK);
    let text = response.text().await.unwrap();
    let secret = hook["secret"].as_str().unwrap();
    assert!(
        !text.contains(&secret["whsec_".len()..]),
        "no secret in the export"
    );
    let export: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(export["notifications"], json!({"email_checkins": false}));
    assert_eq!(export["webhooks"].as_array().unwrap().len(), 1);
    assert_eq!(export["webhooks"][0]["id"], hook["id"]);
    assert_eq!(export["webhooks"][0]["url"], PUBLIC_URL);
    assert!(export["webhooks"][0].get("secret").is_none());
}
