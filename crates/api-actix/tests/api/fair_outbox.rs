//! A fair outbox (issue 43, item 2), black-box on either backend with the in-process delivery
//! worker: one person's backlog of deliveries to a slow receiver never holds another person's
//! ping behind it. The ping overtakes the backlog (checked by order: the flooder still has
//! deliveries pending when it is delivered; oldest first, it would have waited for them all).

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{SignedIn, TestApp, count, json_body, send, spawn_app_with};
use crate::notifications::{delivery_log, register};

/// Ada's webhooks (the most a person may have) and the pings queued to each.
const HOOKS: usize = 10;
const PINGS_EACH: usize = 30;

async fn receiver(delay: Duration) -> wiremock::MockServer {
    let receiver = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(wiremock::ResponseTemplate::new(204).set_delay(delay))
        .mount(&receiver)
        .await;
    receiver
}

async fn hook_to(app: &TestApp, who: &SignedIn, receiver: &wiremock::MockServer) -> String {
    let url = format!("{}/hook", receiver.uri());
    let hook: Value = json_body(
        register(app, who, json!({"url": url, "events": ["ping"]})).await,
        201,
    )
    .await;
    hook["id"].as_str().unwrap().to_owned()
}

async fn test_ping(app: &TestApp, who: &SignedIn, hook: &str) {
    let path = format!("/api/me/webhooks/{hook}/test");
    let queued = send(app.as_browser(who, Method::POST, &path)).await;
    assert_eq!(queued.status(), StatusCode::ACCEPTED);
}

fn pending_of(app: &TestApp, who: &SignedIn) -> i64 {
    count(
        app,
        &format!(
            "SELECT COUNT(*) AS n FROM deliveries WHERE user_id = '{}' AND status = 'pending'",
            who.user_id
        ),
    )
}

#[tokio::test]
async fn another_persons_ping_overtakes_one_persons_backlog_to_a_slow_receiver() {
    let app = spawn_app_with(&[
        ("WEBHOOK_ALLOW_PRIVATE", "true"),
        ("DELIVERY_WORKER", "true"),
    ])
    .await;
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;
    // Each of Ada's deliveries takes a second: a pass of 50 takes one.
    let slow = receiver(Duration::from_secs(1)).await;
    let fast = receiver(Duration::ZERO).await;
    let mut ada_hooks = Vec::new();
    for _ in 0..HOOKS {
        ada_hooks.push(hook_to(&app, &ada, &slow).await);
    }
    // All at once, so the backlog is queued before the worker has drained much of it.
    let mut pings = tokio::task::JoinSet::new();
    for _ in 0..PINGS_EACH {
        for hook in &ada_hooks {
            let path = format!("/api/me/webhooks/{hook}/test");
            pings.spawn(send(app.as_browser(&ada, Method::POST, &path)));
        }
    }
    for queued in pings.join_all().await {
        assert_eq!(queued.status(), StatusCode::ACCEPTED);
    }
    let bob_hook = hook_to(&app, &bob, &fast).await;
    let backlog = pending_of(&app, &ada);
    let queued = Instant::now();
    test_ping(&app, &bob, &bob_hook).await;
    let waited = loop {
        let log = delivery_log(&app, &bob, &bob_hook).await;
        if log.first().is_some_and(|d| d["status"] == "delivered") {
            break queued.elapsed();
        }
        assert!(
            queued.elapsed() < Duration::from_secs(60),
            "never delivered"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let ada_pending = pending_of(&app, &ada);
    eprintln!(
        "{:?}: Bob's ping delivered {waited:?} after it was queued behind {backlog} of Ada's \
         {} deliveries, {ada_pending} of them still pending",
        app.backend,
        HOOKS * PINGS_EACH
    );
    assert!(
        ada_pending > 0,
        "Bob's ping went before Ada's backlog of {backlog}, not after it"
    );
}
