//! Rate limits: sign-in per client address, reflect and complete per signed-in person. Over the
//! limit a request is 429 `rate_limited` with `Retry-After`, changes nothing and is still in the
//! activity log; another address or person keeps its own budget; 0 turns a limit off; after
//! `Retry-After` seconds the caller may go on.

use std::net::IpAddr;
use std::time::Duration;

use reqwest::{Method, Response, StatusCode};
use serde_json::json;

use crate::helpers::{
    GUT_ANSWERS, TestApp, USER_AGENT, answer_all, assert_error, discover, json_body, my_revisions,
    send, spawn_app_tuned, spawn_app_with,
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
