//! A fair outbox (issue 43, item 2), black-box on either backend with the in-process delivery
//! worker: one person's backlog of deliveries to a slow receiver never holds another person's
//! ping behind it. The ping overtakes the backlog (checked by order: the flooder still has
//! deliveries pending when it is delivered; oldest first, it would have waited for them all).

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{
    HEART_ANSWERS, SignedIn, TestApp, affirm, count, discover, json_body, my_profile, send,
    spawn_app_with,
};
use crate::notifications::{delivery_log, register};

/// Ada's webhooks (the most a person may have) and the pings queued to each.
const HOOKS: usize = 10;
const PINGS_EACH: usize = 30;
/// The review's burst of profile writes: edits, then affirm/reopen cycles.
const EDITS: usize = 200;
const CYCLES: usize = 50;

async fn receiver(delay: Duration) -> wiremock::MockServer {
    let receiver = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(wiremock::ResponseTemplate::new(204).set_delay(delay))
        .mount(&receiver)
        .await;
    receiver
}

async fn hook_to(app: &TestApp, who: &SignedIn, receiver: &wiremock::MockServer) -> String {
    hook_for(app, who, receiver, &["ping"]).await
}

async fn hook_for(
    app: &TestApp,
    who: &SignedIn,
    receiver: &wiremock::MockServer,
    events: &[&str],
) -> String {
    let url = format!("{}/hook", receiver.uri());
    let hook: Value = json_body(
        register(app, who, json!({"url": url, "events": events})).await,
        201,
    )
    .await;
    hook["id"].as_str().unwrap().to_owned()
}

/// Queues a ping to Bob's hook and waits until it is delivered: how long that took.
async fn ping_delivered(app: &TestApp, bob: &SignedIn, hook: &str) -> Duration {
    let queued = Instant::now();
    test_ping(app, bob, hook).await;
    loop {
        let log = delivery_log(app, bob, hook).await;
        if log.first().is_some_and(|d| d["status"] == "delivered") {
            return queued.elapsed();
        }
        assert!(
            queued.elapsed() < Duration::from_secs(60),
            "never delivered"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
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
    let waited = ping_delivered(&app, &bob, &bob_hook).await;
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

/// The review's second reproduction: with no limit on profile writes, one person's 200 edits
/// and 50 affirm/reopen cycles, each sent to 10 hooks, queued 1,500 deliveries and another
/// person's ping waited 385 s. Now a burst of revisions coalesces past its budget, and the ping
/// overtakes what is left of the burst.
#[tokio::test]
async fn a_burst_of_profile_edits_and_affirm_reopen_cycles_queues_few_events_and_holds_no_one() {
    let app = spawn_app_with(&[
        ("WEBHOOK_ALLOW_PRIVATE", "true"),
        ("DELIVERY_WORKER", "true"),
        // Off, as it was: the outbox alone must keep it fair.
        ("RATE_LIMIT_PROFILE_WRITES_PER_MINUTE", "0"),
    ])
    .await;
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;
    let jwt = ada.access_jwt.as_str();
    discover(&app, jwt, HEART_ANSWERS).await;
    let slow = receiver(Duration::from_secs(1)).await;
    let events = ["profile.revised", "profile.affirmed"];
    for _ in 0..HOOKS {
        hook_for(&app, &ada, &slow, &events).await;
    }
    let mut version = my_profile(&app, jwt).await["version"].as_i64().unwrap();
    for i in 0..EDITS {
        let edit = app
            .with_bearer(jwt, Method::PATCH, "/discovery/profile/me")
            .header("If-Match", format!("\"{version}\""))
            .json(&json!({ "mission_summary": format!("Teaching children to read, take {i}.") }));
        version = json_body(send(edit).await, 200).await["version"]
            .as_i64()
            .unwrap();
    }
    for _ in 0..CYCLES {
        affirm(&app, jwt).await;
        let reopen = app.with_bearer(jwt, Method::POST, "/discovery/profile/me/reopen");
        json_body(send(reopen).await, 200).await;
    }
    let of_ada = |kind: &str| {
        count(
            &app,
            &format!(
                "SELECT COUNT(*) AS n FROM outbox_events WHERE user_id = '{}' AND event_type = '{kind}'",
                ada.user_id
            ),
        )
    };
    let (revised, affirmed) = (of_ada("profile.revised"), of_ada("profile.affirmed"));
    let queued = count(
        &app,
        &format!(
            "SELECT COUNT(*) AS n FROM deliveries WHERE user_id = '{}'",
            ada.user_id
        ),
    );
    let fast = receiver(Duration::ZERO).await;
    let bob_hook = hook_to(&app, &bob, &fast).await;
    let waited = ping_delivered(&app, &bob, &bob_hook).await;
    let ada_pending = pending_of(&app, &ada);
    eprintln!(
        "{:?}: {EDITS} edits and {CYCLES} cycles queued {revised} profile.revised and {affirmed} \
         profile.affirmed events, {queued} deliveries; Bob's ping delivered {waited:?} after it \
         was queued, {ada_pending} of Ada's still pending",
        app.backend
    );
    assert_eq!(
        affirmed,
        i64::try_from(CYCLES).unwrap(),
        "affirmations are never merged"
    );
    assert!(
        revised < i64::try_from(EDITS / 4).unwrap(),
        "{revised} profile.revised events for {EDITS} edits: the burst was not coalesced"
    );
    assert!(
        ada_pending > 0,
        "Bob's ping went after all of Ada's {queued} deliveries, not before the rest"
    );
}
