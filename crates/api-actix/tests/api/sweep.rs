//! `POST /integration/task-mappings/sweep`: what an importer sends to drop the entries its
//! tracker no longer has. Only the caller's, only its prefix and range, only what was not sent
//! since the moment given; a bad request is a 422 naming its field and deletes nothing.

use reqwest::Method;
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use crate::helpers::{
    SignedIn, TestApp, assert_error, assert_invalid, json_body, rfc3339, send, spawn_app,
};
use crate::mapping_rules::post_batch;

const PATH: &str = "/integration/task-mappings/sweep";

fn entry(id: &str, at: OffsetDateTime) -> Value {
    json!({"external_task_id": id, "foundation": "love", "minutes": 30, "occurred_at": rfc3339(at)})
}

async fn sweep(app: &TestApp, who: &SignedIn, body: &Value) -> reqwest::Response {
    send(
        app.with_bearer(&who.access_jwt, Method::POST, PATH)
            .json(body),
    )
    .await
}

async fn ids(app: &TestApp, who: &SignedIn) -> Vec<String> {
    let page = json_body(
        send(app.with_bearer(
            &who.access_jwt,
            Method::GET,
            "/integration/task-mappings?limit=1000",
        ))
        .await,
        200,
    )
    .await;
    let mut ids: Vec<String> = page["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|m| m["external_task_id"].as_str().expect("an id").to_owned())
        .collect();
    ids.sort();
    ids
}

/// RFC 3339 to the nanosecond: "sent since" compares to the microsecond.
fn exact(at: OffsetDateTime) -> String {
    at.format(&time::format_description::well_known::Rfc3339)
        .expect("formats")
}

fn day_ago() -> OffsetDateTime {
    (OffsetDateTime::now_utc() - Duration::DAY)
        .replace_nanosecond(0)
        .unwrap()
}

#[tokio::test]
async fn a_sweep_deletes_only_the_callers_unsent_entries_of_its_prefix_and_range() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;
    let start = day_ago();
    let old = [
        entry("toggl:gone", start),
        entry("toggl:gone:d1", start + Duration::HOUR * 2),
        entry("toggl:kept", start + Duration::HOUR),
        entry("TOGGL:case", start),
        entry("clockify:other", start),
        entry("toggl:outside", start - Duration::DAY),
    ];
    post_batch(&app, &ada, &old).await;
    post_batch(&app, &bob, &[entry("toggl:gone", start)]).await;
    // The server's clock decides what "sent since" means: wait until it has moved on, then
    // send again what the tracker still has.
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let run_start = OffsetDateTime::now_utc();
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    post_batch(&app, &ada, &[entry("toggl:kept", start + Duration::HOUR)]).await;

    let body = json!({
        "external_task_id_prefix": "toggl:",
        "from": rfc3339(start - Duration::HOUR),
        "to": rfc3339(start + Duration::HOUR * 3),
        "not_sent_since": exact(run_start),
    });
    let answer = json_body(sweep(&app, &ada, &body).await, 200).await;
    assert_eq!(answer, json!({"deleted": 2}));
    assert_eq!(
        ids(&app, &ada).await,
        [
            "TOGGL:case",
            "clockify:other",
            "toggl:kept",
            "toggl:outside"
        ]
    );
    assert_eq!(
        ids(&app, &bob).await,
        ["toggl:gone"],
        "another person's stays"
    );
    // Again: nothing left to take.
    let answer = json_body(sweep(&app, &ada, &body).await, 200).await;
    assert_eq!(answer, json!({"deleted": 0}));
}

#[tokio::test]
async fn a_bad_sweep_is_refused_naming_its_field_and_deletes_nothing() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let start = day_ago();
    post_batch(&app, &ada, &[entry("toggl:a", start)]).await;
    let now = OffsetDateTime::now_utc();
    let valid = json!({
        "external_task_id_prefix": "toggl:",
        "from": rfc3339(start - Duration::HOUR),
        "to": rfc3339(start + Duration::HOUR),
        "not_sent_since": exact(now),
    });
    let with = |field: &str, value: Value| {
        let mut body = valid.clone();
        body[field] = value;
        body
    };
    let cases = [
        (
            with("external_task_id_prefix", json!("")),
            "external_task_id_prefix",
        ),
        (
            with("external_task_id_prefix", json!("x".repeat(101))),
            "external_task_id_prefix",
        ),
        (
            with("external_task_id_prefix", json!("a\u{1b}b")),
            "external_task_id_prefix",
        ),
        (with("to", json!(rfc3339(start - Duration::HOUR))), "to"),
        (with("to", json!(rfc3339(start - Duration::HOUR * 2))), "to"),
        (
            with("from", json!(rfc3339(start - Duration::DAY * 400))),
            "to",
        ),
        (
            with("not_sent_since", json!(rfc3339(now + Duration::HOUR))),
            "not_sent_since",
        ),
        (with("from", json!("yesterday")), "from"),
        (with("surprise", json!(1)), "surprise"),
    ];
    for (body, field) in cases {
        assert_invalid(sweep(&app, &ada, &body).await, field).await;
    }
    let mut missing = valid.clone();
    missing.as_object_mut().unwrap().remove("not_sent_since");
    assert_error(sweep(&app, &ada, &missing).await, 422, "validation_failed").await;
    assert_eq!(ids(&app, &ada).await, ["toggl:a"], "nothing was deleted");
    // The same body, valid, takes it.
    let answer = json_body(sweep(&app, &ada, &valid).await, 200).await;
    assert_eq!(answer, json!({"deleted": 1}));
}

#[tokio::test]
async fn the_entry_named_sweep_can_still_be_deleted_and_a_key_may_sweep() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let key = app.create_api_key(&ada, "tracker").await;
    let start = day_ago();
    post_batch(&app, &ada, &[entry("sweep", start), entry("aw:1", start)]).await;
    let response = send(app.with_key(&key.key, Method::DELETE, PATH)).await;
    assert_eq!(response.status().as_u16(), 204);
    assert_eq!(ids(&app, &ada).await, ["aw:1"]);
    let response = send(app.with_key(&key.key, Method::GET, PATH)).await;
    assert_eq!(response.status().as_u16(), 405);
    let body = json!({
        "external_task_id_prefix": "aw:",
        "from": rfc3339(start),
        "to": rfc3339(start + Duration::SECOND),
        "not_sent_since": exact(OffsetDateTime::now_utc()),
    });
    let answer = json_body(
        send(app.with_key(&key.key, Method::POST, PATH).json(&body)).await,
        200,
    )
    .await;
    assert_eq!(answer, json!({"deleted": 1}));
    assert!(ids(&app, &ada).await.is_empty());
}
