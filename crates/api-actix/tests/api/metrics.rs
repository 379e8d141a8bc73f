//! `GET /metrics`: requests counted by route pattern (never the raw path), method and status
//! with latency histograms; the activity queue, the activity writer and the database pool; the
//! check-ins created by origin; the language-model calls and failures, through the offline engine
//! and a fake OpenAI-compatible endpoint (wiremock); and the optional `METRICS_TOKEN`.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::helpers::{
    HEAD_ANSWERS, HEART_ANSWERS, OPERATOR_KEY, TestApp, affirm, answer_all, assert_error, discover,
    json_body, send, spawn_app, spawn_app_with,
};

/// The rendering, checked for its status and content type.
async fn scrape(app: &TestApp) -> String {
    let response = send(app.api.get(app.url("/metrics"))).await;
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        content_type.starts_with("text/plain; version=0.0.4"),
        "{content_type}"
    );
    response.text().await.unwrap()
}

/// The value of the sample `series` (name and labels exactly as rendered), if present.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

fn value(text: &str, series: &str) -> f64 {
    sample(text, series).unwrap_or_else(|| panic!("{series} missing in\n{text}"))
}

/// Scrapes until `series` reaches `at_least` (the activity writer works off the request path).
async fn eventually(app: &TestApp, series: &str, at_least: f64) -> String {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let text = scrape(app).await;
        if sample(&text, series).is_some_and(|v| v >= at_least) || Instant::now() > deadline {
            assert!(
                value(&text, series) >= at_least,
                "{series} below {at_least}"
            );
            return text;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn requests_are_counted_by_route_pattern_method_and_status() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let phone = app.dev_login("ada@example.org").await;
    json_body(
        send(app.with_bearer(&ada.access_jwt, Method::GET, "/api/me")).await,
        200,
    )
    .await;
    assert_error(
        send(app.api.get(app.url("/api/me"))).await,
        401,
        "unauthenticated",
    )
    .await;
    let revoked = send(app.as_browser(
        &ada,
        Method::DELETE,
        &format!("/api/me/sessions/{}", phone.session_id),
    ))
    .await;
    assert_eq!(revoked.status(), 204);
    for page in ["/", "/index.html", "/login"] {
        assert_eq!(
            send(app.api.get(app.url(page))).await.status(),
            200,
            "{page}"
        );
    }
    for unknown in ["/no/such/thing-1", "/no/such/thing-2", "/api/nothing/42"] {
        assert_error(send(app.api.get(app.url(unknown))).await, 404, "not_found").await;
    }

    let text = scrape(&app).await;
    let requests = "discovery_http_requests_total";
    assert_eq!(
        value(
            &text,
            &format!(r#"{requests}{{method="GET",route="/api/me",status="200"}}"#)
        ),
        1.0
    );
    assert_eq!(
        value(
            &text,
            &format!(r#"{requests}{{method="GET",route="/api/me",status="401"}}"#)
        ),
        1.0
    );
    assert_eq!(
        value(
            &text,
            &format!(r#"{requests}{{method="POST",route="/api/auth/dev-login",status="200"}}"#)
        ),
        2.0
    );
    // The id-bearing route appears as its pattern; the id itself appears nowhere.
    assert_eq!(
        value(
            &text,
            &format!(
                r#"{requests}{{method="DELETE",route="/api/me/sessions/{{id}}",status="204"}}"#
            )
        ),
        1.0
    );
    assert!(!text.contains(&phone.session_id), "{text}");
    // Every unknown path shares one label.
    assert_eq!(
        value(
            &text,
            &format!(r#"{requests}{{method="GET",route="unmatched",status="404"}}"#)
        ),
        3.0
    );
    assert!(
        !text.contains("thing-1") && !text.contains("/api/nothing"),
        "{text}"
    );
    // The pages' files share one label too; the login page has its own route.
    assert_eq!(
        value(
            &text,
            &format!(r#"{requests}{{method="GET",route="static",status="200"}}"#)
        ),
        2.0
    );
    assert_eq!(
        value(
            &text,
            &format!(r#"{requests}{{method="GET",route="/login",status="200"}}"#)
        ),
        1.0
    );

    // The latency histogram: cumulative buckets up to +Inf, a count and a sum per route.
    let buckets = "discovery_http_request_duration_seconds_bucket";
    let le = |bound: &str| {
        value(
            &text,
            &format!(r#"{buckets}{{method="GET",route="/api/me",le="{bound}"}}"#),
        )
    };
    assert_eq!(le("+Inf"), 2.0);
    assert!(le("0.001") <= le("0.1") && le("0.1") <= le("30"), "{text}");
    assert_eq!(
        value(
            &text,
            r#"discovery_http_request_duration_seconds_count{method="GET",route="/api/me"}"#
        ),
        2.0
    );
    assert!(
        value(
            &text,
            r#"discovery_http_request_duration_seconds_sum{method="GET",route="/api/me"}"#
        ) > 0.0
    );

    // The scrape itself is counted by the next one, as its own route.
    let again = scrape(&app).await;
    assert_eq!(
        value(
            &again,
            &format!(r#"{requests}{{method="GET",route="/metrics",status="200"}}"#)
        ),
        1.0
    );
}

#[tokio::test]
async fn the_activity_queue_writer_and_database_pool_are_reported() {
    let app = spawn_app_with(&[("DATABASE_MAX_CONNECTIONS", "7")]).await;
    let ada = app.dev_login("ada@example.org").await;
    for _ in 0..3 {
        send(app.with_bearer(&ada.access_jwt, Method::GET, "/api/me")).await;
    }
    app.flush_activity().await;
    // Sign-in, three reads and the marker at least; the scrapes are not in the activity log.
    let text = eventually(&app, "discovery_activity_entries_written_total", 5.0).await;
    assert_eq!(value(&text, "discovery_activity_entries_lost_total"), 0.0);
    assert_eq!(value(&text, "discovery_activity_queue_capacity"), 4096.0);
    let depth = value(&text, "discovery_activity_queue_depth");
    assert!((0.0..=4096.0).contains(&depth), "{depth}");

    assert_eq!(value(&text, "discovery_db_pool_max_connections"), 7.0);
    let in_use = value(&text, r#"discovery_db_pool_connections{state="in_use"}"#);
    let idle = value(&text, r#"discovery_db_pool_connections{state="idle"}"#);
    assert!(idle >= 1.0, "the pool keeps connections open: {idle}");
    assert!(in_use >= 0.0 && in_use + idle <= 7.0, "{in_use} + {idle}");

    // No scrape reached the activity log.
    let written = value(&text, "discovery_activity_entries_written_total");
    for _ in 0..5 {
        scrape(&app).await;
    }
    app.flush_activity().await;
    eventually(
        &app,
        "discovery_activity_entries_written_total",
        written + 1.0,
    )
    .await;
    let activity = json_body(
        send(app.with_key(OPERATOR_KEY, Method::GET, "/api/admin/activity?limit=100")).await,
        200,
    )
    .await;
    let paths: Vec<&str> = activity["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["path"].as_str())
        .collect();
    assert!(
        !paths.is_empty() && !paths.contains(&"/metrics"),
        "{paths:?}"
    );
}

#[tokio::test]
async fn check_ins_are_counted_by_origin() {
    let app = spawn_app().await;
    let text = scrape(&app).await;
    // Both series exist from the start, so an alert on "none created" has something to read.
    assert_eq!(
        value(
            &text,
            r#"discovery_checkins_created_total{origin="manual"}"#
        ),
        0.0
    );
    assert_eq!(
        value(&text, r#"discovery_checkins_created_total{origin="batch"}"#),
        0.0
    );

    let ada = app.dev_login("ada@example.org").await;
    discover(&app, &ada.access_jwt, HEART_ANSWERS).await;
    affirm(&app, &ada.access_jwt).await;
    json_body(
        send(app.with_bearer(&ada.access_jwt, Method::POST, "/coaching/checkins")).await,
        201,
    )
    .await;
    let bob = app.dev_login("bob@example.org").await;
    discover(&app, &bob.access_jwt, HEAD_ANSWERS).await;
    affirm(&app, &bob.access_jwt).await;
    // A refused request creates nothing and counts nothing.
    let carol = app.dev_login("carol@example.org").await;
    discover(&app, &carol.access_jwt, HEAD_ANSWERS).await;
    assert_error(
        send(app.with_bearer(&carol.access_jwt, Method::POST, "/coaching/checkins")).await,
        409,
        "profile_not_affirmed",
    )
    .await;

    // The run writes bob's (ada has a fresh one; carol is not affirmed).
    let report = json_body(
        send(app.with_key(OPERATOR_KEY, Method::POST, "/coaching/run")).await,
        200,
    )
    .await;
    assert_eq!(report["created"], 1);

    let text = scrape(&app).await;
    assert_eq!(
        value(
            &text,
            r#"discovery_checkins_created_total{origin="manual"}"#
        ),
        1.0
    );
    assert_eq!(
        value(&text, r#"discovery_checkins_created_total{origin="batch"}"#),
        1.0
    );
}

#[tokio::test]
async fn calls_to_the_offline_engine_are_counted_by_operation_and_outcome() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    discover(&app, &ada.access_jwt, HEART_ANSWERS).await;
    json_body(
        send(
            app.with_bearer(
                &ada.access_jwt,
                Method::POST,
                "/discovery/profile/me/reflect",
            )
            .json(&json!({"message": "That sounds right."})),
        )
        .await,
        200,
    )
    .await;

    let text = scrape(&app).await;
    let calls = "discovery_llm_calls_total";
    assert_eq!(
        value(
            &text,
            &format!(r#"{calls}{{operation="extract",outcome="ok"}}"#)
        ),
        1.0
    );
    assert_eq!(
        value(
            &text,
            &format!(r#"{calls}{{operation="reflect",outcome="ok"}}"#)
        ),
        1.0
    );
    for operation in ["extract", "reflect"] {
        for outcome in ["timeout", "rate_limited", "unavailable"] {
            let series = format!(r#"{calls}{{operation="{operation}",outcome="{outcome}"}}"#);
            assert_eq!(value(&text, &series), 0.0, "{series}");
        }
        for reason in ["no_reply", "unusable"] {
            let series = format!(
                r#"discovery_llm_failures_total{{operation="{operation}",reason="{reason}"}}"#
            );
            assert_eq!(value(&text, &series), 0.0, "{series}");
        }
    }
    assert_eq!(
        value(
            &text,
            r#"discovery_llm_call_duration_seconds_count{operation="extract"}"#
        ),
        1.0
    );
    assert_eq!(
        value(
            &text,
            r#"discovery_llm_call_duration_seconds_bucket{operation="reflect",le="+Inf"}"#
        ),
        1.0
    );
}

/// A chat completion whose first choice says `content`.
fn completion(content: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "test-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]
    }))
}

/// What a well-behaved extractor answers for HEART_ANSWERS.
fn extraction() -> Value {
    json!({
        "enneagram_type": 2,
        "triad": "heart",
        "love_summary": "You love cooking soup on Sundays and repairing old bicycles.",
        "strength_summary": "You explain hard things simply to beginners.",
        "mission_summary": "You care about kids who struggle with books at school.",
        "vocation_summary": "You work as a primary school teacher.",
        "overlap_narrative": "Patience and care run through all four answers.",
        "near_term_goal_summary": "Finish your tutoring certificate by June.",
        "long_term_goal_summary": "Open a reading café for kids in your town.",
        "sources": {"love_summary": [1], "strength_summary": [2], "mission_summary": [3],
                    "vocation_summary": [4], "overlap_narrative": [1, 2, 3, 4],
                    "near_term_goal_summary": [6], "long_term_goal_summary": [7]}
    })
}

async fn spawn_with_model(server: &MockServer) -> TestApp {
    let base_url = format!("{}/v1", server.uri());
    spawn_app_with(&[
        ("LLM_PROVIDER", "openai"),
        ("LLM_BASE_URL", base_url.as_str()),
        ("LLM_MODEL", "test-model"),
    ])
    .await
}

fn chat() -> wiremock::MockBuilder {
    Mock::given(method("POST")).and(path("/v1/chat/completions"))
}

#[tokio::test]
async fn model_failures_are_counted_by_operation_outcome_and_reason() {
    let server = MockServer::start().await;
    let app = spawn_with_model(&server).await;

    // The endpoint is down: one call, unavailable, and the extraction gives up without a reply.
    let ada = app.dev_login("ada@example.org").await;
    answer_all(&app, &ada.access_jwt, HEART_ANSWERS).await;
    {
        let _down = chat()
            .respond_with(ResponseTemplate::new(503))
            .expect(1)
            .mount_as_scoped(&server)
            .await;
        assert_error(
            send(app.with_bearer(
                &ada.access_jwt,
                Method::POST,
                "/discovery/conversation/me/complete",
            ))
            .await,
            502,
            "coach_unavailable",
        )
        .await;
    }
    // Back up: the extraction succeeds.
    {
        let _up = chat()
            .respond_with(completion(&extraction().to_string()))
            .expect(1)
            .mount_as_scoped(&server)
            .await;
        json_body(
            send(app.with_bearer(
                &ada.access_jwt,
                Method::POST,
                "/discovery/conversation/me/complete",
            ))
            .await,
            201,
        )
        .await;
    }
    // The coach answers twice with nothing usable: two calls that came back, one failure.
    chat()
        .respond_with(completion(
            "I'd love to help! What would you like to talk about?",
        ))
        .expect(2)
        .mount(&server)
        .await;
    assert_error(
        send(
            app.with_bearer(
                &ada.access_jwt,
                Method::POST,
                "/discovery/profile/me/reflect",
            )
            .json(&json!({"message": "Actually, my mission is teaching."})),
        )
        .await,
        502,
        "coach_unavailable",
    )
    .await;

    let text = scrape(&app).await;
    let calls = "discovery_llm_calls_total";
    let failures = "discovery_llm_failures_total";
    for (series, expected) in [
        (format!(r#"{calls}{{operation="extract",outcome="unavailable"}}"#), 1.0),
        (format!(r#"{calls}{{operation="extract",outcome="ok"}}"#), 1.0),
        (format!(r#"{calls}{{operation="reflect",outcome="ok"}}"#), 2.0),
        (format!(r#"{failures}{{operation="extract",reason="no_reply"}}"#), 1.0),
        (format!(r#"{failures}{{operation="extract",reason="unusable"}}"#), 0.0),
        (format!(r#"{failures}{{operation="reflect",reason="unusable"}}"#), 1.0),
        (
            r#"discovery_http_requests_total{method="POST",route="/discovery/conversation/me/complete",status="502"}"#
                .to_owned(),
            1.0,
        ),
    ] {
        assert_eq!(value(&text, &series), expected, "{series}");
    }
}

#[tokio::test]
async fn with_a_metrics_token_only_a_scrape_presenting_it_is_answered() {
    const TOKEN: &str = "scrape-token-0123456789";
    let app = spawn_app_with(&[("METRICS_TOKEN", TOKEN)]).await;
    let ada = app.dev_login("ada@example.org").await;
    assert_error(
        send(app.api.get(app.url("/metrics"))).await,
        401,
        "unauthenticated",
    )
    .await;
    for wrong in [
        "Bearer scrape-token-wrong",
        TOKEN,
        &format!("Basic {TOKEN}"),
    ] {
        assert_error(
            send(
                app.api
                    .get(app.url("/metrics"))
                    .header("Authorization", wrong),
            )
            .await,
            401,
            "unauthenticated",
        )
        .await;
    }
    // A person's session is no scrape token.
    assert_error(
        send(app.with_bearer(&ada.access_jwt, Method::GET, "/metrics")).await,
        401,
        "unauthenticated",
    )
    .await;
    let response = send(
        app.api
            .get(app.url("/metrics"))
            .header("Authorization", format!("Bearer {TOKEN}")),
    )
    .await;
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    assert_eq!(
        value(
            &text,
            r#"discovery_http_requests_total{method="GET",route="/metrics",status="401"}"#
        ),
        5.0
    );
    assert!(!text.contains(TOKEN));
}
