//! Rate limits: sign-in per client address; reflect, complete, rule changes, webhook tests and
//! check-ins per signed-in person. Over the limit a request is 429 `rate_limited` with
//! `Retry-After`, changes nothing and is still in the activity log; another address or person
//! keeps its own budget; every id of a route with `{id}` shares one budget; 0 turns a limit
//! off; after `Retry-After` seconds the caller may go on.

use std::net::IpAddr;
use std::time::{Duration, Instant};

use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{
    GUT_ANSWERS, SignedIn, TestApp, USER_AGENT, affirm, answer_all, assert_error, count, discover,
    json_body, my_revisions, send, spawn_app_tuned, spawn_app_with,
};

/// Asserts a 429 in the contract's shape; returns its `Retry-After` in seconds.
async fn assert_rate_limited(response: Response, window: Duration) -> u64 {
    let retry_after = response
        .headers()
        .get("retry-after")
        .expect("Retry-After is set")
        .to_str()
        .unwrap()
        .parse::<u64>()
        .expect("Retry-After is whole seconds");
    assert!(
        (1..=window.as_secs().max(1)).contains(&retry_after),
        "Retry-After {retry_after} within the window of {window:?}"
    );
    assert_error(response, 429, "rate_limited").await;
    retry_after
}

/// A browser stand-in whose connections come from `address` (any 127.0.0.0/8 address reaches
/// the loopback listener), so the service sees another client address.
fn client_from(address: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(USER_AGENT)
        .local_address(address.parse::<IpAddr>().unwrap())
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap()
}

async fn dev_login_with(app: &TestApp, client: &reqwest::Client, email: &str) -> Response {
    send(
        client
            .post(app.url("/api/auth/dev-login"))
            .header("Origin", app.origin())
            .json(&json!({ "email": email })),
    )
    .await
}

async fn reflect_opener(app: &TestApp, jwt: &str) -> Response {
    send(
        app.with_bearer(jwt, Method::POST, "/discovery/profile/me/reflect")
            .json(&json!({"opener": true})),
    )
    .await
}

async fn reflection_turns(app: &TestApp, jwt: &str) -> usize {
    json_body(
        send(app.with_bearer(jwt, Method::GET, "/discovery/profile/me/reflection")).await,
        200,
    )
    .await
    .as_array()
    .unwrap()
    .len()
}

const MINUTE: Duration = Duration::from_secs(60);

#[tokio::test]
async fn signing_in_too_often_from_one_address_is_rate_limited_on_every_sign_in_route() {
    let app = spawn_app_with(&[("RATE_LIMIT_SIGN_IN_PER_MINUTE", "3")]).await;
    let client = app.client();
    for n in 0..3 {
        let response = dev_login_with(&app, &client, &format!("p{n}@example.org")).await;
        assert_eq!(response.status(), StatusCode::OK);
    }

    let response = dev_login_with(&app, &client, "late@example.org").await;
    let retry_after = assert_rate_limited(response, MINUTE).await;
    assert!(
        retry_after >= 15,
        "a minute's budget of 3 refills in 20 s steps: {retry_after}"
    );
    // The budget is one for all three sign-in routes.
    for path in ["/api/auth/login", "/api/auth/callback?code=x&state=y"] {
        let response = send(client.get(app.url(path))).await;
        assert_rate_limited(response, MINUTE).await;
    }
    // The refused requests are in the activity log, and nobody was signed in by them.
    app.flush_activity().await;
    let response = send(app.with_key(
        crate::helpers::OPERATOR_KEY,
        Method::GET,
        "/api/admin/activity?limit=1000",
    ))
    .await;
    let body = json_body(response, 200).await;
    let mut refused: Vec<&str> = body["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["status"] == 429)
        .map(|i| i["path"].as_str().unwrap())
        .collect();
    refused.sort_unstable();
    assert_eq!(
        refused,
        [
            "/api/auth/callback",
            "/api/auth/dev-login",
            "/api/auth/login"
        ]
    );
    assert_eq!(
        crate::helpers::count(
            &app,
            "SELECT COUNT(*) AS n FROM users WHERE email = 'late@example.org'"
        ),
        0
    );
}

#[tokio::test]
async fn another_client_address_keeps_its_own_sign_in_budget() {
    let app = spawn_app_with(&[("RATE_LIMIT_SIGN_IN_PER_MINUTE", "2")]).await;
    let here = client_from("127.0.0.1");
    let there = client_from("127.0.0.2");
    for n in 0..2 {
        let response = dev_login_with(&app, &here, &format!("h{n}@example.org")).await;
        assert_eq!(response.status(), StatusCode::OK);
    }
    assert_rate_limited(dev_login_with(&app, &here, "h2@example.org").await, MINUTE).await;

    let response = dev_login_with(&app, &there, "t0@example.org").await;
    assert_eq!(response.status(), StatusCode::OK, "127.0.0.2 is unaffected");
}

#[tokio::test]
async fn x_forwarded_for_is_ignored_unless_a_setting_trusts_it() {
    // Guessed API keys spend the sign-in budget of the address they come from (dev login
    // refuses forwarded requests outright, so the keys stand in for sign-in attempts here).
    let app = spawn_app_with(&[("RATE_LIMIT_SIGN_IN_PER_MINUTE", "1")]).await;
    let client = app.client();
    assert_eq!(
        guess_key(&app, &client, None).await.status(),
        StatusCode::UNAUTHORIZED
    );
    // A client cannot buy a fresh budget by naming another address.
    assert_rate_limited(guess_key(&app, &client, Some("203.0.113.9")).await, MINUTE).await;

    // Behind a trusted proxy the address it appended (the last one) is the caller's.
    let app = spawn_app_with(&[
        ("RATE_LIMIT_SIGN_IN_PER_MINUTE", "1"),
        ("RATE_LIMIT_TRUST_FORWARDED_FOR", "true"),
    ])
    .await;
    assert_eq!(
        guess_key(&app, &client, Some("203.0.113.9")).await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        guess_key(&app, &client, Some("203.0.113.10"))
            .await
            .status(),
        StatusCode::UNAUTHORIZED,
        "another forwarded address has its own budget"
    );
    // What the client wrote first does not count; the proxy's entry does.
    assert_rate_limited(
        guess_key(&app, &client, Some("198.51.100.1, 203.0.113.9")).await,
        MINUTE,
    )
    .await;
}

/// `GET /api/me` with a key nobody holds, from `forwarded` when given.
async fn guess_key(app: &TestApp, client: &reqwest::Client, forwarded: Option<&str>) -> Response {
    let mut request = client
        .get(app.url("/api/me"))
        .header("X-API-Key", "dsk_guessed0000000000000000000000000000");
    if let Some(forwarded) = forwarded {
        request = request.header("X-Forwarded-For", forwarded);
    }
    send(request).await
}

#[tokio::test]
async fn refused_api_keys_count_against_the_address_and_valid_keys_never_do() {
    // Three sign-in attempts a minute: Ada's dev login spends one of them.
    let app = spawn_app_with(&[("RATE_LIMIT_SIGN_IN_PER_MINUTE", "3")]).await;
    let ada = app.dev_login("ada@example.org").await;
    let key = app
        .create_scoped_key(&ada, "tracker", &["integration"])
        .await;
    let client = app.client();
    for _ in 0..2 {
        assert_eq!(
            guess_key(&app, &client, None).await.status(),
            StatusCode::UNAUTHORIZED
        );
    }
    assert_rate_limited(guess_key(&app, &client, None).await, MINUTE).await;
    // The budget is spent, and yet the key that is valid keeps working, again and again.
    for _ in 0..5 {
        let response = send(app.with_key(&key.key, Method::GET, "/api/me")).await;
        assert_eq!(response.status(), StatusCode::OK);
    }
    // Signing in from the address is what the spent budget holds up.
    assert_rate_limited(
        dev_login_with(&app, &client, "bob@example.org").await,
        MINUTE,
    )
    .await;
}

#[tokio::test]
async fn reflecting_too_often_is_rate_limited_per_person_changes_nothing_and_is_logged() {
    let app = spawn_app_with(&[("RATE_LIMIT_REFLECT_PER_MINUTE", "2")]).await;
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;
    for who in [&ada, &bob] {
        discover(&app, &who.access_jwt, GUT_ANSWERS).await;
    }
    for _ in 0..2 {
        json_body(reflect_opener(&app, &ada.access_jwt).await, 200).await;
    }
    let turns = reflection_turns(&app, &ada.access_jwt).await;
    let revisions = my_revisions(&app, &ada.access_jwt).await;

    let response = send(
        app.with_bearer(
            &ada.access_jwt,
            Method::POST,
            "/discovery/profile/me/reflect",
        )
        .header("X-Request-Id", "ada-over-the-limit")
        .json(&json!({"message": "Actually, my strength is patience."})),
    )
    .await;
    assert_rate_limited(response, MINUTE).await;
    // The same person with another credential shares the budget: it is hers, not the token's.
    let key = app.create_api_key(&ada, "ada's tracker").await;
    let response = send(
        app.with_key(&key.key, Method::POST, "/discovery/profile/me/reflect")
            .json(&json!({"opener": true})),
    )
    .await;
    assert_rate_limited(response, MINUTE).await;

    assert_eq!(reflection_turns(&app, &ada.access_jwt).await, turns);
    assert_eq!(my_revisions(&app, &ada.access_jwt).await, revisions);
    let entry = app.activity_entry(&ada.user_id, "ada-over-the-limit").await;
    assert_eq!(entry["status"], 429, "{entry}");
    assert_eq!(entry["path"], "/discovery/profile/me/reflect");

    // Bob is not starved by Ada.
    json_body(reflect_opener(&app, &bob.access_jwt).await, 200).await;
    // Other routes are not limited.
    for _ in 0..3 {
        let response =
            send(app.with_bearer(&ada.access_jwt, Method::GET, "/discovery/profile/me")).await;
        assert_eq!(response.status(), StatusCode::OK);
    }
}

#[tokio::test]
async fn completing_too_often_is_rate_limited_per_person() {
    let app = spawn_app_with(&[("RATE_LIMIT_COMPLETE_PER_MINUTE", "1")]).await;
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;
    discover(&app, &ada.access_jwt, GUT_ANSWERS).await;
    let revisions = my_revisions(&app, &ada.access_jwt).await;
    let conversation = json_body(
        send(app.with_bearer(&ada.access_jwt, Method::GET, "/discovery/conversation/me")).await,
        200,
    )
    .await;

    let response = send(app.with_bearer(
        &ada.access_jwt,
        Method::POST,
        "/discovery/conversation/me/complete",
    ))
    .await;
    assert_rate_limited(response, MINUTE).await;
    assert_eq!(my_revisions(&app, &ada.access_jwt).await, revisions);
    assert_eq!(
        json_body(
            send(app.with_bearer(&ada.access_jwt, Method::GET, "/discovery/conversation/me")).await,
            200
        )
        .await,
        conversation
    );

    // Bob's first completion goes through.
    answer_all(&app, &bob.access_jwt, GUT_ANSWERS).await;
    let response = send(app.with_bearer(
        &bob.access_jwt,
        Method::POST,
        "/discovery/conversation/me/complete",
    ))
    .await;
    json_body(response, 201).await;
}

#[tokio::test]
async fn an_encoded_spelling_of_a_limited_path_shares_its_budget() {
    let app = spawn_app_with(&[("RATE_LIMIT_REFLECT_PER_MINUTE", "1")]).await;
    let ada = app.dev_login("ada@example.org").await;
    discover(&app, &ada.access_jwt, GUT_ANSWERS).await;
    json_body(reflect_opener(&app, &ada.access_jwt).await, 200).await;

    let response = send(
        app.with_bearer(
            &ada.access_jwt,
            Method::POST,
            "/discovery/profile/me/%72eflect",
        )
        .json(&json!({"opener": true})),
    )
    .await;
    assert_rate_limited(response, MINUTE).await;
}

#[tokio::test]
async fn a_limit_of_zero_is_off_and_the_defaults_are_on() {
    let app = spawn_app_with(&[
        ("RATE_LIMIT_SIGN_IN_PER_MINUTE", "0"),
        ("RATE_LIMIT_REFLECT_PER_MINUTE", "0"),
        ("RATE_LIMIT_COMPLETE_PER_MINUTE", "0"),
    ])
    .await;
    let client = app.client();
    for n in 0..40 {
        let response = dev_login_with(&app, &client, &format!("p{n}@example.org")).await;
        assert_eq!(response.status(), StatusCode::OK, "sign-in {n}");
    }
    let ada = app.dev_login("ada@example.org").await;
    discover(&app, &ada.access_jwt, GUT_ANSWERS).await;
    for n in 0..25 {
        let response = reflect_opener(&app, &ada.access_jwt).await;
        assert_eq!(response.status(), StatusCode::OK, "reflect {n}");
    }
    for n in 0..8 {
        let response = send(app.with_bearer(
            &ada.access_jwt,
            Method::POST,
            "/discovery/conversation/me/complete",
        ))
        .await;
        assert_ne!(
            response.status(),
            StatusCode::TOO_MANY_REQUESTS,
            "complete {n}"
        );
    }

    // Unset, the defaults apply: 30 sign-ins a minute from one address.
    let app = spawn_app_with(&[]).await;
    let client = app.client();
    for n in 0..30 {
        let response = dev_login_with(&app, &client, &format!("p{n}@example.org")).await;
        assert_eq!(response.status(), StatusCode::OK, "sign-in {n}");
    }
    assert_rate_limited(
        dev_login_with(&app, &client, "p30@example.org").await,
        MINUTE,
    )
    .await;
}

#[tokio::test]
async fn after_retry_after_seconds_the_caller_may_go_on() {
    // Two a window of 2 s: one more each second, so the first refusal comes within a few
    // quick requests.
    let window = Duration::from_secs(2);
    let app = spawn_app_tuned(
        &["--dev"],
        &[
            ("RATE_LIMIT_SIGN_IN_PER_MINUTE", "2"),
            ("RATE_LIMIT_REFLECT_PER_MINUTE", "2"),
        ],
        |settings| settings.rate_limits.window = window,
    )
    .await;
    let ada = app.dev_login("ada@example.org").await;
    discover(&app, &ada.access_jwt, GUT_ANSWERS).await;

    let client = app.client();
    let mut refused = None;
    for n in 0..5 {
        let response = dev_login_with(&app, &client, &format!("p{n}@example.org")).await;
        if response.status() == StatusCode::TOO_MANY_REQUESTS {
            refused = Some(assert_rate_limited(response, window).await);
            break;
        }
        assert_eq!(response.status(), StatusCode::OK);
    }
    let retry_after = refused.expect("quick sign-ins are refused within five");
    tokio::time::sleep(Duration::from_secs(retry_after)).await;
    assert_eq!(
        dev_login_with(&app, &client, "after@example.org")
            .await
            .status(),
        StatusCode::OK
    );

    let mut refused = None;
    for _ in 0..5 {
        let response = reflect_opener(&app, &ada.access_jwt).await;
        if response.status() == StatusCode::TOO_MANY_REQUESTS {
            refused = Some(assert_rate_limited(response, window).await);
            break;
        }
        json_body(response, 200).await;
    }
    let retry_after = refused.expect("quick reflections are refused within five");
    tokio::time::sleep(Duration::from_secs(retry_after)).await;
    json_body(reflect_opener(&app, &ada.access_jwt).await, 200).await;
}

/// A public `https` receiver address (nothing is delivered: the test apps run no worker).
const HOOK_URL: &str = "https://93.184.215.14/discovery-hook";

/// A webhook of `who`'s for `ping`; its id.
async fn webhook(app: &TestApp, who: &SignedIn) -> String {
    let hook = json_body(
        send(
            app.as_browser(who, Method::POST, "/api/me/webhooks")
                .json(&json!({"url": HOOK_URL, "events": ["ping"]})),
        )
        .await,
        201,
    )
    .await;
    hook["id"].as_str().unwrap().to_owned()
}

async fn test_webhook(app: &TestApp, who: &SignedIn, id: &str) -> Response {
    send(app.as_browser(who, Method::POST, &format!("/api/me/webhooks/{id}/test"))).await
}

/// `ping` events in the outbox for `who`, straight from the database.
fn pings(app: &TestApp, who: &SignedIn) -> i64 {
    count(
        app,
        &format!(
            "SELECT COUNT(*) AS n FROM outbox_events WHERE event_type = 'ping' AND user_id = '{}'",
            who.user_id
        ),
    )
}

async fn webhook_deliveries(app: &TestApp, who: &SignedIn, id: &str) -> usize {
    let path = format!("/api/me/webhooks/{id}/deliveries");
    json_body(send(app.as_browser(who, Method::GET, &path)).await, 200).await["items"]
        .as_array()
        .unwrap()
        .len()
}

#[tokio::test]
async fn testing_webhooks_too_often_is_rate_limited_per_person_and_queues_no_ping() {
    let app = spawn_app_with(&[("RATE_LIMIT_WEBHOOK_TESTS_PER_MINUTE", "3")]).await;
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;
    let first = webhook(&app, &ada).await;
    let second = webhook(&app, &ada).await;
    for id in [&first, &first, &second] {
        assert_eq!(
            test_webhook(&app, &ada, id).await.status(),
            StatusCode::ACCEPTED
        );
    }
    assert_eq!(pings(&app, &ada), 3);

    let response = send(
        app.as_browser(
            &ada,
            Method::POST,
            &format!("/api/me/webhooks/{first}/test"),
        )
        .header("X-Request-Id", "ada-fourth-test"),
    )
    .await;
    assert_rate_limited(response, MINUTE).await;
    // Each webhook's own path is the same route: another id does not buy a fresh budget.
    assert_rate_limited(test_webhook(&app, &ada, &second).await, MINUTE).await;
    // Nor does an encoded spelling of the route.
    let encoded = format!("/api/me/webhooks/{second}/%74est");
    assert_rate_limited(
        send(app.as_browser(&ada, Method::POST, &encoded)).await,
        MINUTE,
    )
    .await;
    assert_eq!(pings(&app, &ada), 3, "the refused tests queued nothing");
    assert_eq!(webhook_deliveries(&app, &ada, &first).await, 2);
    assert_eq!(webhook_deliveries(&app, &ada, &second).await, 1);
    let entry = app.activity_entry(&ada.user_id, "ada-fourth-test").await;
    assert_eq!(entry["status"], 429, "{entry}");

    // Bob is not starved by Ada, and Ada's other webhook routes are not limited.
    let bobs = webhook(&app, &bob).await;
    assert_eq!(
        test_webhook(&app, &bob, &bobs).await.status(),
        StatusCode::ACCEPTED
    );
    webhook(&app, &ada).await;
}

async fn add_rule(app: &TestApp, who: &SignedIn, tag: &str) -> Response {
    send(
        app.with_bearer(&who.access_jwt, Method::POST, "/integration/rules")
            .json(&json!({"match": {"tag": tag}, "foundation": "love"})),
    )
    .await
}

async fn rules_of(app: &TestApp, who: &SignedIn) -> Value {
    json_body(
        send(app.with_bearer(&who.access_jwt, Method::GET, "/integration/rules")).await,
        200,
    )
    .await
}

#[tokio::test]
async fn rule_changes_share_one_budget_per_person_and_a_refused_one_writes_no_rule() {
    let app = spawn_app_with(&[("RATE_LIMIT_RULE_CHANGES_PER_MINUTE", "3")]).await;
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;
    let first = json_body(add_rule(&app, &ada, "deep").await, 201).await;
    json_body(add_rule(&app, &ada, "shallow").await, 201).await;
    let id = first["id"].as_str().unwrap().to_owned();
    let path = format!("/integration/rules/{id}");
    let replaced = send(
        app.with_bearer(&ada.access_jwt, Method::PUT, &path)
            .json(&json!({"match": {"tag": "deeper"}, "foundation": "mission"})),
    )
    .await;
    json_body(replaced, 200).await;
    let kept = rules_of(&app, &ada).await;
    assert_eq!(kept.as_array().unwrap().len(), 2);

    // The budget of three is spent: adding, replacing and deleting are all refused.
    assert_rate_limited(add_rule(&app, &ada, "one more").await, MINUTE).await;
    let response = send(
        app.with_bearer(&ada.access_jwt, Method::PUT, &path)
            .json(&json!({"match": {"tag": "other"}, "foundation": "love"})),
    )
    .await;
    assert_rate_limited(response, MINUTE).await;
    let response = send(app.with_bearer(&ada.access_jwt, Method::DELETE, &path)).await;
    assert_rate_limited(response, MINUTE).await;
    assert_eq!(rules_of(&app, &ada).await, kept, "no rule was written");
    assert_eq!(
        count(
            &app,
            &format!(
                "SELECT COUNT(*) AS n FROM mapping_rules WHERE user_id = '{}'",
                ada.user_id
            )
        ),
        2
    );
    // Reading rules is not a change.
    for _ in 0..3 {
        rules_of(&app, &ada).await;
    }
    // Bob keeps his own budget.
    json_body(add_rule(&app, &bob, "deep").await, 201).await;
}

async fn new_checkin(app: &TestApp, who: &SignedIn) -> Response {
    send(app.with_bearer(&who.access_jwt, Method::POST, "/coaching/checkins")).await
}

async fn checkin_count(app: &TestApp, who: &SignedIn) -> usize {
    json_body(
        send(app.with_bearer(&who.access_jwt, Method::GET, "/coaching/checkins")).await,
        200,
    )
    .await["items"]
        .as_array()
        .unwrap()
        .len()
}

/// Ada and Bob with affirmed profiles, so both may write check-ins.
async fn two_affirmed(app: &TestApp) -> (SignedIn, SignedIn) {
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;
    for who in [&ada, &bob] {
        discover(app, &who.access_jwt, GUT_ANSWERS).await;
        affirm(app, &who.access_jwt).await;
    }
    (ada, bob)
}

#[tokio::test]
async fn writing_check_ins_too_often_is_rate_limited_per_person_and_creates_none() {
    let app = spawn_app_with(&[("RATE_LIMIT_CHECKINS_PER_MINUTE", "2")]).await;
    let (ada, bob) = two_affirmed(&app).await;
    for _ in 0..2 {
        json_body(new_checkin(&app, &ada).await, 201).await;
    }
    assert_rate_limited(new_checkin(&app, &ada).await, MINUTE).await;
    // Her assistant's key is hers too: the budget is the person's, not the credential's.
    let key = app
        .create_scoped_key(&ada, "assistant", &["coaching"])
        .await;
    let response = send(app.with_key(&key.key, Method::POST, "/coaching/checkins")).await;
    assert_rate_limited(response, MINUTE).await;
    assert_eq!(
        checkin_count(&app, &ada).await,
        2,
        "no check-in was created"
    );
    // Reading them is not limited; Bob keeps his own budget.
    for _ in 0..3 {
        checkin_count(&app, &ada).await;
    }
    json_body(new_checkin(&app, &bob).await, 201).await;
}

async fn reopen(app: &TestApp, who: &SignedIn) -> Response {
    send(app.with_bearer(
        &who.access_jwt,
        Method::POST,
        "/discovery/profile/me/reopen",
    ))
    .await
}

#[tokio::test]
async fn profile_writes_share_one_budget_per_person_and_a_refused_one_changes_nothing() {
    let app = spawn_app_with(&[("RATE_LIMIT_PROFILE_WRITES_PER_MINUTE", "5")]).await;
    // Each has affirmed once: one of five spent.
    let (ada, bob) = two_affirmed(&app).await;
    for _ in 0..2 {
        json_body(reopen(&app, &ada).await, 200).await;
        affirm(&app, &ada.access_jwt).await;
    }
    let revisions = my_revisions(&app, &ada.access_jwt).await.len();
    assert_rate_limited(reopen(&app, &ada).await, MINUTE).await;
    let edit = app
        .with_bearer(&ada.access_jwt, Method::PATCH, "/discovery/profile/me")
        .json(&json!({"near_term_goal_summary": "Patient with people"}));
    assert_rate_limited(send(edit).await, MINUTE).await;
    let restore = "/discovery/profile/me/revisions/1/restore";
    let restore = app.with_bearer(&ada.access_jwt, Method::POST, restore);
    assert_rate_limited(send(restore).await, MINUTE).await;
    let profile = crate::helpers::my_profile(&app, &ada.access_jwt).await;
    assert_eq!(profile["locked"], true, "still affirmed");
    assert_eq!(my_revisions(&app, &ada.access_jwt).await.len(), revisions);
    // Bob keeps his own budget.
    json_body(reopen(&app, &bob).await, 200).await;
}

#[tokio::test]
async fn zero_turns_the_rule_webhook_and_check_in_limits_off_and_unset_they_default_on() {
    // Off: more than each default goes through (60 rule changes, 10 tests, 10 check-ins).
    let app = spawn_app_with(&[
        ("RATE_LIMIT_RULE_CHANGES_PER_MINUTE", "0"),
        ("RATE_LIMIT_WEBHOOK_TESTS_PER_MINUTE", "0"),
        ("RATE_LIMIT_CHECKINS_PER_MINUTE", "0"),
    ])
    .await;
    let (ada, _) = two_affirmed(&app).await;
    let hook = webhook(&app, &ada).await;
    for n in 0..12 {
        let response = test_webhook(&app, &ada, &hook).await;
        assert_eq!(response.status(), StatusCode::ACCEPTED, "test {n}");
        let response = new_checkin(&app, &ada).await;
        assert_eq!(response.status(), StatusCode::CREATED, "check-in {n}");
    }
    for n in 0..61 {
        let response = add_rule(&app, &ada, &format!("tag {n}")).await;
        assert_eq!(response.status(), StatusCode::CREATED, "rule {n}");
    }

    // Unset (an empty value): the defaults, 60 rule changes, 10 tests and 10 check-ins a
    // minute. Each is a burst that refills by one every minute / N, so what was accepted before
    // the first refusal is N plus what refilled while the requests ran.
    let app = spawn_app_with(&[
        ("RATE_LIMIT_RULE_CHANGES_PER_MINUTE", ""),
        ("RATE_LIMIT_WEBHOOK_TESTS_PER_MINUTE", ""),
        ("RATE_LIMIT_CHECKINS_PER_MINUTE", ""),
    ])
    .await;
    let (ada, _) = two_affirmed(&app).await;
    let hook = webhook(&app, &ada).await;

    let start = Instant::now();
    let mut tests = 0;
    loop {
        let response = test_webhook(&app, &ada, &hook).await;
        if response.status() == StatusCode::TOO_MANY_REQUESTS {
            assert_rate_limited(response, MINUTE).await;
            break;
        }
        assert_eq!(response.status(), StatusCode::ACCEPTED, "test {tests}");
        tests += 1;
        assert!(tests <= 20, "webhook tests are never refused");
    }
    assert_within_default(tests, 10, start);
    assert_eq!(pings(&app, &ada), i64::try_from(tests).unwrap());

    let start = Instant::now();
    let mut checkins = 0;
    loop {
        let response = new_checkin(&app, &ada).await;
        if response.status() == StatusCode::TOO_MANY_REQUESTS {
            assert_rate_limited(response, MINUTE).await;
            break;
        }
        assert_eq!(
            response.status(),
            StatusCode::CREATED,
            "check-in {checkins}"
        );
        checkins += 1;
        assert!(checkins <= 20, "check-ins are never refused");
    }
    assert_within_default(checkins, 10, start);
    assert_eq!(checkin_count(&app, &ada).await, checkins);

    let start = Instant::now();
    let mut rules = 0;
    loop {
        let response = add_rule(&app, &ada, &format!("tag {rules}")).await;
        if response.status() == StatusCode::TOO_MANY_REQUESTS {
            assert_rate_limited(response, MINUTE).await;
            break;
        }
        assert_eq!(response.status(), StatusCode::CREATED, "rule {rules}");
        rules += 1;
        assert!(rules <= 120, "rule changes are never refused");
    }
    assert_within_default(rules, 60, start);
    assert_eq!(rules_of(&app, &ada).await.as_array().unwrap().len(), rules);
}

/// `accepted` requests went through before the first refusal: the default burst of
/// `per_minute`, and at most what refilled since `start` (one every minute / `per_minute`).
fn assert_within_default(accepted: usize, per_minute: usize, start: Instant) {
    let refilled = start.elapsed().as_secs_f64() * per_minute as f64 / 60.0;
    assert!(
        accepted >= per_minute && accepted as f64 <= per_minute as f64 + refilled.ceil(),
        "{accepted} accepted, a default of {per_minute} a minute ({refilled:.1} refilled)"
    );
}
