//! The time-tracker routes: the six foundations, task mappings (idempotent per external task id,
//! single and all-or-nothing batch), their paginated list and deletion, and the work-pattern
//! rollup, exact to the minute; and one person never sees or touches another's.

use std::collections::{BTreeMap, HashSet};

use reqwest::Method;
use serde_json::{Value, json};
use time::{Date, Duration, OffsetDateTime};

use crate::helpers::{
    OPERATOR_KEY, SignedIn, TestApp, assert_error, assert_invalid, count, detail_fields, json_body,
    literal, rfc3339, send, spawn_app, timestamp,
};

pub const FOUNDATIONS: [&str; 6] = [
    "love",
    "strength",
    "mission",
    "vocation",
    "short_term",
    "long_term",
];

pub(crate) fn mapping(id: &str, foundation: &str, minutes: i64, at: OffsetDateTime) -> Value {
    json!({
        "external_task_id": id,
        "task_label": format!("Task {id}"),
        "foundation": foundation,
        "minutes": minutes,
        "occurred_at": rfc3339(at),
    })
}

pub(crate) async fn post_mapping(app: &TestApp, who: &SignedIn, body: &Value) -> reqwest::Response {
    send(
        app.with_bearer(&who.access_jwt, Method::POST, "/integration/task-mappings")
            .json(body),
    )
    .await
}

pub(crate) async fn post_batch(
    app: &TestApp,
    who: &SignedIn,
    items: &[Value],
) -> reqwest::Response {
    send(
        app.with_bearer(
            &who.access_jwt,
            Method::POST,
            "/integration/task-mappings/batch",
        )
        .json(&json!({ "items": items })),
    )
    .await
}

async fn list(app: &TestApp, who: &SignedIn, query: &[(&str, String)]) -> Value {
    json_body(
        send(
            app.with_bearer(&who.access_jwt, Method::GET, "/integration/task-mappings")
                .query(query),
        )
        .await,
        200,
    )
    .await
}

fn external_ids(page: &Value) -> Vec<String> {
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|m| m["external_task_id"].as_str().expect("an id").to_owned())
        .collect()
}

async fn work_patterns(app: &TestApp, who: &SignedIn, query: &str) -> Value {
    json_body(
        send(app.with_bearer(
            &who.access_jwt,
            Method::GET,
            &format!("/integration/work-patterns{query}"),
        ))
        .await,
        200,
    )
    .await
}

fn mappings_of(app: &TestApp, who: &SignedIn) -> i64 {
    count(
        app,
        &format!(
            "SELECT COUNT(*) AS n FROM task_mapping WHERE user_id = {}",
            literal(&who.user_id)
        ),
    )
}

/// A moment on a whole second, an hour before now (so nothing sits on a window's edge).
fn base() -> OffsetDateTime {
    (OffsetDateTime::now_utc() - Duration::hours(1))
        .replace_nanosecond(0)
        .unwrap()
}

/// Asserts that a stored mapping answers `sent` field by field, for `who`.
fn assert_mapping(mapping: &Value, sent: &Value, who: &SignedIn) {
    for field in ["external_task_id", "task_label", "foundation", "minutes"] {
        assert_eq!(mapping[field], sent[field], "{field}: {mapping:#}");
    }
    // Without rules, an entry sent without a foundation stays unmapped.
    let by = if sent["foundation"].is_string() {
        json!("client")
    } else {
        Value::Null
    };
    assert_eq!(mapping["mapped_by"], by, "{mapping:#}");
    let tags = if sent["tags"].is_null() {
        json!([])
    } else {
        sent["tags"].clone()
    };
    assert_eq!(mapping["tags"], tags, "{mapping:#}");
    assert_eq!(
        timestamp(&mapping["occurred_at"]),
        timestamp(&sent["occurred_at"]),
        "{mapping:#}"
    );
    assert_eq!(mapping["user_id"], who.user_id.as_str(), "{mapping:#}");
    assert!(uuid::Uuid::parse_str(mapping["id"].as_str().unwrap()).is_ok());
    assert!(timestamp(&mapping["updated_at"]) >= timestamp(&mapping["created_at"]));
}

/// Accepts either error the contract allows for a bad query value: 400 `invalid_json` for a
/// malformed query string, 422 `validation_failed` for a well-formed but wrong value.
/// A 422 names the parameter.
async fn assert_bad_query(response: reqwest::Response, parameter: &str) {
    let status = response.status().as_u16();
    match status {
        400 => {
            assert_error(response, 400, "invalid_json").await;
        }
        _ => {
            assert_invalid(response, parameter).await;
        }
    }
}

/// Whether a validation error names the batch item at `index`.
fn names_index(error: &Value, index: usize) -> bool {
    let marks = [
        format!("[{index}]"),
        format!(".{index}."),
        format!("/{index}/"),
        format!("items.{index}"),
    ];
    detail_fields(error)
        .iter()
        .any(|f| marks.iter().any(|m| f.contains(m.as_str())))
}

#[tokio::test]
async fn the_six_foundations_are_listed_in_order() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let key = app.create_api_key(&ada, "tracker").await;
    for request in [
        app.with_bearer(&ada.access_jwt, Method::GET, "/integration/foundations"),
        app.with_key(&key.key, Method::GET, "/integration/foundations"),
        app.as_browser(&ada, Method::GET, "/integration/foundations"),
    ] {
        let body = json_body(send(request).await, 200).await;
        let items = body.as_array().expect("a list");
        let keys: Vec<&str> = items.iter().map(|f| f["key"].as_str().unwrap()).collect();
        assert_eq!(keys, FOUNDATIONS);
        for f in items {
            assert!(!f["title"].as_str().unwrap().trim().is_empty(), "{f}");
            assert!(!f["description"].as_str().unwrap().trim().is_empty(), "{f}");
        }
        let titles: HashSet<&str> = items.iter().map(|f| f["title"].as_str().unwrap()).collect();
        assert_eq!(titles.len(), 6, "six different titles");
    }
    assert_error(
        send(app.api.get(app.url("/integration/foundations"))).await,
        401,
        "unauthenticated",
    )
    .await;
}

#[tokio::test]
async fn a_mapping_is_created_once_and_updated_by_a_repeat() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let key = app.create_api_key(&ada, "toggl").await;
    let at = base();

    // A tracker with Ada's personal key creates it...
    let sent = mapping("toggl-1", "vocation", 90, at - Duration::days(1));
    let created = json_body(
        send(
            app.with_key(&key.key, Method::POST, "/integration/task-mappings")
                .json(&sent),
        )
        .await,
        201,
    )
    .await;
    assert_mapping(&created, &sent, &ada);
    assert!((OffsetDateTime::now_utc() - timestamp(&created["created_at"])).whole_seconds() < 60);

    // ...and the same entry sent again, changed, updates that row.
    let changed = json!({
        "external_task_id": "toggl-1",
        "task_label": null,
        "foundation": "mission",
        "minutes": 45,
        "occurred_at": rfc3339(at - Duration::days(2)),
    });
    let updated = json_body(
        send(
            app.with_key(&key.key, Method::POST, "/integration/task-mappings")
                .json(&changed),
        )
        .await,
        200,
    )
    .await;
    assert_mapping(&updated, &changed, &ada);
    assert_eq!(updated["id"], created["id"], "the same row");
    assert_eq!(updated["created_at"], created["created_at"]);
    assert!(timestamp(&updated["updated_at"]) >= timestamp(&created["updated_at"]));

    // Bearer and the browser session act on the same rows.
    let third = mapping("toggl-1", "love", 1440, at);
    let again = json_body(post_mapping(&app, &ada, &third).await, 200).await;
    assert_eq!(again["id"], created["id"]);
    assert_mapping(&again, &third, &ada);
    let other = mapping("clockify-9", "strength", 0, at - Duration::days(3));
    let from_browser = json_body(
        send(
            app.as_browser(&ada, Method::POST, "/integration/task-mappings")
                .json(&other),
        )
        .await,
        201,
    )
    .await;
    assert_mapping(&from_browser, &other, &ada);

    assert_eq!(mappings_of(&app, &ada), 2);
    let page = list(&app, &ada, &[]).await;
    assert_eq!(
        external_ids(&page),
        ["toggl-1", "clockify-9"].map(str::to_owned)
    );
    assert_eq!(page["items"][0], again, "the list shows the stored row");
    assert_eq!(page["items"][1], from_browser);

    assert_error(
        send(
            app.api
                .post(app.url("/integration/task-mappings"))
                .json(&other),
        )
        .await,
        401,
        "unauthenticated",
    )
    .await;
}

#[tokio::test]
async fn every_rule_of_a_mapping_is_enforced_and_names_the_field() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let at = base();
    let valid = mapping("t-1", "love", 30, at);
    let with = |field: &str, value: Value| {
        let mut body = valid.clone();
        body[field] = value;
        body
    };
    let without = |field: &str| {
        let mut body = valid.clone();
        body.as_object_mut().unwrap().remove(field);
        body
    };
    let cases = [
        (with("external_task_id", json!("")), "external_task_id"),
        (
            with("external_task_id", json!("é".repeat(201))),
            "external_task_id",
        ),
        (with("external_task_id", json!(17)), "external_task_id"),
        (with("task_label", json!("é".repeat(501))), "task_label"),
        (with("foundation", json!("hobby")), "foundation"),
        (with("foundation", json!("Love")), "foundation"),
        (with("minutes", json!(-1)), "minutes"),
        (with("minutes", json!(1441)), "minutes"),
        (with("minutes", json!(1.5)), "minutes"),
        (with("minutes", json!("30")), "minutes"),
        (with("occurred_at", json!("yesterday")), "occurred_at"),
        (
            with("occurred_at", json!("2026-11-22 10:00:00")),
            "occurred_at",
        ),
        (with("occurred_at", json!("2026-11-22")), "occurred_at"),
        (with("user_id", json!("someone-else")), "user_id"),
        (with("colour", json!("red")), "colour"),
        (with("tags", json!("deep")), "tags"),
        (with("tags", json!(["deep", " "])), "tags[1]"),
        (with("tags", json!(["é".repeat(101)])), "tags[0]"),
        (
            with(
                "tags",
                json!((0..21).map(|n| format!("t{n}")).collect::<Vec<_>>()),
            ),
            "tags",
        ),
        (with("mapped_by", json!("client")), "mapped_by"),
        (without("external_task_id"), "external_task_id"),
        (without("occurred_at"), "occurred_at"),
    ];
    for (body, field) in cases {
        assert_invalid(post_mapping(&app, &ada, &body).await, field).await;
    }
    assert_eq!(mappings_of(&app, &ada), 0, "nothing was written");

    // The edges are values.
    for body in [
        with("external_task_id", json!("é".repeat(200))),
        with("task_label", json!("é".repeat(500))),
        with("task_label", Value::Null),
        with("minutes", json!(0)),
        with("minutes", json!(1440)),
        with("occurred_at", json!("2026-11-22T11:30:00+01:30")),
        // The foundation may be left to the rules.
        without("foundation"),
        with("foundation", Value::Null),
        with(
            "tags",
            json!(
                (0..20)
                    .map(|n| format!("{n}-{}", "é".repeat(96)))
                    .collect::<Vec<_>>()
            ),
        ),
    ] {
        let id = uuid::Uuid::now_v7().to_string();
        let mut body = body;
        if body["external_task_id"] == valid["external_task_id"] {
            body["external_task_id"] = json!(id);
        }
        let stored = json_body(post_mapping(&app, &ada, &body).await, 201).await;
        assert_mapping(&stored, &body, &ada);
    }
    assert_eq!(mappings_of(&app, &ada), 9);
}

#[tokio::test]
async fn a_batch_creates_and_updates_and_counts_both() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let at = base();
    let first = json_body(
        post_mapping(&app, &ada, &mapping("e-0", "love", 10, at)).await,
        201,
    )
    .await;

    let items = [
        mapping("e-0", "strength", 20, at - Duration::hours(1)),
        mapping("e-1", "mission", 30, at - Duration::hours(2)),
        mapping("e-2", "vocation", 40, at - Duration::hours(3)),
        mapping("e-3", "short_term", 50, at - Duration::hours(4)),
    ];
    let report = json_body(post_batch(&app, &ada, &items).await, 200).await;
    assert_eq!(report, json!({"created": 3, "updated": 1}));

    let page = list(&app, &ada, &[]).await;
    assert_eq!(
        external_ids(&page),
        ["e-0", "e-1", "e-2", "e-3"].map(str::to_owned)
    );
    for (stored, sent) in page["items"].as_array().unwrap().iter().zip(&items) {
        assert_mapping(stored, sent, &ada);
    }
    assert_eq!(
        page["items"][0]["id"], first["id"],
        "the repeat updated the row"
    );

    // Sent again as a whole: all updates.
    let report = json_body(post_batch(&app, &ada, &items).await, 200).await;
    assert_eq!(report, json!({"created": 0, "updated": 4}));
    assert_eq!(mappings_of(&app, &ada), 4);
}

#[tokio::test]
async fn one_bad_item_rejects_the_whole_batch_naming_its_index() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let at = base();
    let existing = json_body(
        post_mapping(&app, &ada, &mapping("keep", "love", 10, at)).await,
        201,
    )
    .await;

    let good = |n: usize| {
        mapping(
            &format!("b-{n}"),
            "mission",
            15,
            at - Duration::minutes(n as i64),
        )
    };
    let bad_items = [
        (
            3,
            json!({"external_task_id": "b-3", "foundation": "mission", "minutes": 1441, "occurred_at": rfc3339(at)}),
        ),
        (
            0,
            json!({"external_task_id": "b-0", "foundation": "mission", "minutes": 5, "occurred_at": "soon"}),
        ),
        (
            4,
            json!({"external_task_id": "", "foundation": "mission", "minutes": 5, "occurred_at": rfc3339(at)}),
        ),
        (
            2,
            json!({"external_task_id": "b-2", "foundation": "hobby", "minutes": 5, "occurred_at": rfc3339(at)}),
        ),
        (
            1,
            json!({"external_task_id": "b-1", "foundation": "love", "minutes": 5, "occurred_at": rfc3339(at), "x": 1}),
        ),
    ];
    for (index, bad) in bad_items {
        // The batch would also update "keep"; nothing of it may be written.
        let mut items: Vec<Value> = (0..6).map(good).collect();
        items[5] = mapping("keep", "vocation", 999, at);
        items[index] = bad;
        let response = post_batch(&app, &ada, &items).await;
        let error = assert_error(response, 422, "validation_failed").await;
        assert!(
            names_index(&error, index),
            "index {index} is named: {error}"
        );
    }
    let too_many_minutes = {
        let mut items: Vec<Value> = (0..6).map(good).collect();
        items[4]["minutes"] = json!(-1);
        items
    };
    let error = assert_error(
        post_batch(&app, &ada, &too_many_minutes).await,
        422,
        "validation_failed",
    )
    .await;
    assert!(names_index(&error, 4), "{error}");

    assert_eq!(mappings_of(&app, &ada), 1, "nothing was written");
    let page = list(&app, &ada, &[]).await;
    assert_eq!(
        page["items"],
        json!([existing]),
        "the existing row is untouched"
    );

    for body in [
        json!({}),
        json!({"items": "all"}),
        json!({"items": [], "extra": 1}),
    ] {
        let response = send(
            app.with_bearer(
                &ada.access_jwt,
                Method::POST,
                "/integration/task-mappings/batch",
            )
            .json(&body),
        )
        .await;
        assert_error(response, 422, "validation_failed").await;
    }
}

/// `n` compact batch items (as small as the contract allows), a minute apart, today.
fn compact_items(n: usize) -> Vec<Value> {
    let at = base();
    (0..n)
        .map(|i| {
            json!({
                "external_task_id": i.to_string(),
                "foundation": FOUNDATIONS[i % 6],
                "minutes": 1,
                "occurred_at": rfc3339(at - Duration::minutes(i as i64)),
            })
        })
        .collect()
}

// docs/api.md allows 1,000 items per batch but 64 KiB per body; 1,000 items of the smallest valid
// shape take about 96 KB, so the batch route needs a larger body limit to keep the promise.
#[tokio::test]
async fn a_batch_of_a_thousand_items_is_accepted() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let report = json_body(post_batch(&app, &ada, &compact_items(1_000)).await, 200).await;
    assert_eq!(report, json!({"created": 1000, "updated": 0}));
    assert_eq!(mappings_of(&app, &ada), 1_000);
    let patterns = work_patterns(&app, &ada, "?days=1").await;
    assert_eq!(patterns["total_minutes"], 1_000);
}

#[tokio::test]
async fn a_batch_of_more_than_a_thousand_items_is_refused_whole() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let response = post_batch(&app, &ada, &compact_items(1_001)).await;
    let error = assert_error(response, 422, "validation_failed").await;
    assert!(
        detail_fields(&error).iter().any(|f| f == "items"),
        "the error names items: {error}"
    );
    assert_eq!(mappings_of(&app, &ada), 0, "nothing was written");
}

#[tokio::test]
async fn mappings_are_listed_newest_first_and_filtered_by_time_and_foundation() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let at = base();
    let entries = [
        ("m-1", "love", 10, at - Duration::days(5)),
        ("m-2", "vocation", 20, at - Duration::days(1)),
        ("m-3", "love", 30, at - Duration::days(3)),
        ("m-4", "mission", 40, at - Duration::hours(2)),
        ("m-5", "love", 50, at - Duration::days(20)),
        ("m-6", "long_term", 60, at - Duration::days(2)),
    ];
    for (id, foundation, minutes, when) in entries {
        json_body(
            post_mapping(&app, &ada, &mapping(id, foundation, minutes, when)).await,
            201,
        )
        .await;
    }
    let all = list(&app, &ada, &[]).await;
    assert_eq!(
        external_ids(&all),
        ["m-4", "m-2", "m-6", "m-3", "m-1", "m-5"].map(str::to_owned)
    );
    assert_eq!(all["next_cursor"], Value::Null);
    let times: Vec<_> = all["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| timestamp(&m["occurred_at"]))
        .collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]));

    let loves = list(&app, &ada, &[("foundation", "love".to_owned())]).await;
    assert_eq!(
        external_ids(&loves),
        ["m-3", "m-1", "m-5"].map(str::to_owned)
    );

    let window = [
        ("from", rfc3339(at - Duration::days(4))),
        ("to", rfc3339(at - Duration::hours(12))),
    ];
    let between = list(&app, &ada, &window).await;
    assert_eq!(
        external_ids(&between),
        ["m-2", "m-6", "m-3"].map(str::to_owned)
    );
    let since = list(&app, &ada, &[("from", rfc3339(at - Duration::days(4)))]).await;
    assert_eq!(
        external_ids(&since),
        ["m-4", "m-2", "m-6", "m-3"].map(str::to_owned)
    );
    let until = list(&app, &ada, &[("to", rfc3339(at - Duration::days(4)))]).await;
    assert_eq!(external_ids(&until), ["m-1", "m-5"].map(str::to_owned));
    let both = list(
        &app,
        &ada,
        &[
            ("foundation", "love".to_owned()),
            ("from", rfc3339(at - Duration::days(10))),
        ],
    )
    .await;
    assert_eq!(external_ids(&both), ["m-3", "m-1"].map(str::to_owned));
    let none = list(&app, &ada, &[("foundation", "short_term".to_owned())]).await;
    assert_eq!(none["items"], json!([]));
}

#[tokio::test]
async fn pagination_walks_every_mapping_exactly_once() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let at = base();
    // 23 entries; several share an occurred_at so that ties fall across page boundaries.
    let items: Vec<Value> = (0..23)
        .map(|n| {
            let when = at - Duration::hours(i64::from(n / 3));
            mapping(&format!("p-{n:02}"), FOUNDATIONS[(n % 6) as usize], 5, when)
        })
        .collect();
    json_body(post_batch(&app, &ada, &items).await, 200).await;

    let everything = external_ids(&list(&app, &ada, &[("limit", "1000".to_owned())]).await);
    assert_eq!(everything.len(), 23);

    for limit in [1_usize, 3, 4, 22, 23] {
        let mut seen: Vec<String> = Vec::new();
        let mut before: Option<String> = None;
        let mut pages = 0;
        loop {
            let mut query = vec![("limit", limit.to_string())];
            if let Some(cursor) = &before {
                query.push(("before", cursor.clone()));
            }
            let page = list(&app, &ada, &query).await;
            pages += 1;
            let ids = external_ids(&page);
            assert!(ids.len() <= limit, "{page:#}");
            seen.extend(ids);
            match page["next_cursor"].as_str() {
                Some(cursor) => before = Some(cursor.to_owned()),
                None => break,
            }
            assert!(pages <= 30, "the pages never end");
        }
        assert_eq!(
            seen, everything,
            "limit {limit}: every mapping once, in order"
        );
        assert_eq!(pages, 23_usize.div_ceil(limit), "limit {limit}");
    }

    // A filtered list pages within the filter.
    let mut seen = Vec::new();
    let mut query = vec![("foundation", "love".to_owned()), ("limit", "2".to_owned())];
    loop {
        let page = list(&app, &ada, &query).await;
        seen.extend(external_ids(&page));
        match page["next_cursor"].as_str() {
            Some(cursor) => {
                query = vec![
                    ("foundation", "love".to_owned()),
                    ("limit", "2".to_owned()),
                    ("before", cursor.to_owned()),
                ];
            }
            None => break,
        }
    }
    let loves: Vec<String> = (0..23)
        .filter(|n| n % 6 == 0)
        .map(|n| format!("p-{n:02}"))
        .collect();
    let mut sorted_seen = seen.clone();
    sorted_seen.sort();
    assert_eq!(sorted_seen, loves);
}

#[tokio::test]
async fn bad_list_parameters_are_refused() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    json_body(
        post_mapping(&app, &ada, &mapping("x-1", "love", 5, base())).await,
        201,
    )
    .await;
    let get = |query: &str| {
        send(app.with_bearer(
            &ada.access_jwt,
            Method::GET,
            &format!("/integration/task-mappings{query}"),
        ))
    };
    assert_invalid(get("?limit=0").await, "limit").await;
    assert_invalid(get("?limit=1001").await, "limit").await;
    assert_invalid(get("?limit=-5").await, "limit").await;
    assert_error(get("?limit=x").await, 400, "invalid_json").await;
    for (bad, parameter) in [
        ("?before=garbage", "before"),
        ("?before=12_notauuid", "before"),
        ("?foundation=hobby", "foundation"),
        ("?from=yesterday", "from"),
        ("?to=2026-13-45T99:00:00Z", "to"),
    ] {
        assert_bad_query(get(bad).await, parameter).await;
    }
    // The largest page is fine.
    let page = json_body(get("?limit=1000").await, 200).await;
    assert_eq!(external_ids(&page), ["x-1"]);
}

#[tokio::test]
async fn a_mapping_is_deleted_once() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let key = app.create_api_key(&ada, "tracker").await;
    for id in ["gone-1", "kept-1"] {
        json_body(
            post_mapping(&app, &ada, &mapping(id, "love", 5, base())).await,
            201,
        )
        .await;
    }
    let response = send(app.with_key(
        &key.key,
        Method::DELETE,
        "/integration/task-mappings/gone-1",
    ))
    .await;
    assert_eq!(response.status().as_u16(), 204);
    assert!(response.text().await.unwrap().is_empty(), "204 has no body");
    assert_error(
        send(app.with_key(
            &key.key,
            Method::DELETE,
            "/integration/task-mappings/gone-1",
        ))
        .await,
        404,
        "not_found",
    )
    .await;
    assert_error(
        send(app.with_bearer(
            &ada.access_jwt,
            Method::DELETE,
            "/integration/task-mappings/never",
        ))
        .await,
        404,
        "not_found",
    )
    .await;
    assert_eq!(external_ids(&list(&app, &ada, &[]).await), ["kept-1"]);
    // The same id can be created again afterwards.
    json_body(
        post_mapping(&app, &ada, &mapping("gone-1", "love", 5, base())).await,
        201,
    )
    .await;
}

#[tokio::test]
async fn work_patterns_count_every_minute_of_the_window() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let now = OffsetDateTime::now_utc();
    let entries: [(&str, &str, i64, Duration); 9] = [
        ("w-1", "vocation", 600, Duration::minutes(30)),
        (
            "w-2",
            "vocation",
            480,
            Duration::days(1) + Duration::hours(1),
        ),
        ("w-3", "love", 90, Duration::days(2) + Duration::hours(5)),
        ("w-4", "mission", 100, Duration::days(6)),
        ("w-5", "strength", 20, Duration::days(9)),
        (
            "w-6",
            "vocation",
            300,
            Duration::days(13) + Duration::hours(12),
        ),
        // Outside the default window: too old, and in the future.
        ("w-7", "love", 1000, Duration::days(15)),
        ("w-8", "long_term", 700, Duration::days(40)),
        ("w-9", "short_term", 100, Duration::days(-2)),
    ];
    for (id, foundation, minutes, ago) in entries {
        json_body(
            post_mapping(&app, &ada, &mapping(id, foundation, minutes, now - ago)).await,
            201,
        )
        .await;
    }
    let in_window: Vec<_> = entries.iter().take(6).collect();

    let patterns = work_patterns(&app, &ada, "").await;
    assert_eq!(patterns["days"], 14, "the default window");
    let mut explicit = work_patterns(&app, &ada, "?days=14").await;
    explicit["from"] = patterns["from"].clone();
    explicit["to"] = patterns["to"].clone();
    assert_eq!(explicit, patterns, "days=14 is the default");

    let mut expected = BTreeMap::new();
    for (_, foundation, minutes, _) in &in_window {
        *expected.entry(*foundation).or_insert(0) += minutes;
    }
    let total: i64 = expected.values().sum();
    assert_eq!(total, 1_590);
    assert_eq!(patterns["total_minutes"], total);
    let foundations = patterns["foundations"].as_array().unwrap();
    let keys: Vec<&str> = foundations
        .iter()
        .map(|f| f["foundation"].as_str().unwrap())
        .collect();
    assert_eq!(keys, FOUNDATIONS);
    let mut neglected = Vec::new();
    for f in foundations {
        let key = f["foundation"].as_str().unwrap();
        let minutes = expected.get(key).copied().unwrap_or(0);
        assert_eq!(f["minutes"], minutes, "{key}");
        #[allow(clippy::cast_precision_loss)]
        let share = minutes as f64 / total as f64;
        assert!(
            (f["share"].as_f64().unwrap() - share).abs() < 1e-9,
            "{key}: {f}"
        );
        assert_eq!(f["neglected"], share < 0.05, "{key}: {f}");
        if share < 0.05 {
            neglected.push(key);
        }
    }
    // strength 20/1590 = 1.3 %, short_term and long_term nothing: neglected; love 5.7 % is not.
    assert_eq!(neglected, ["strength", "short_term", "long_term"]);
    assert_eq!(patterns["neglected"], json!(neglected));
    assert!(!patterns["summary"].as_str().unwrap().trim().is_empty());

    // The window and its days.
    let from = timestamp(&patterns["from"]);
    let to = timestamp(&patterns["to"]);
    assert!(
        (OffsetDateTime::now_utc() - to).whole_seconds().abs() < 60,
        "to is now"
    );
    assert_eq!(to - from, Duration::days(14));
    assert_daily(&patterns, from, to);
    let mut per_date: BTreeMap<Date, BTreeMap<&str, i64>> = BTreeMap::new();
    for (_, foundation, minutes, ago) in &in_window {
        *per_date
            .entry(timestamp(&json!(rfc3339(now - *ago))).date())
            .or_default()
            .entry(foundation)
            .or_insert(0) += minutes;
    }
    for day in patterns["daily"].as_array().unwrap() {
        let date = Date::parse(
            day["date"].as_str().unwrap(),
            time::macros::format_description!("[year]-[month]-[day]"),
        )
        .unwrap();
        for key in FOUNDATIONS {
            let want = per_date
                .get(&date)
                .and_then(|m| m.get(key))
                .copied()
                .unwrap_or(0);
            assert_eq!(day["minutes"][key], want, "{date} {key}");
        }
    }

    // A longer window takes the older entry in; the future one never counts.
    let month = work_patterns(&app, &ada, "?days=30").await;
    assert_eq!(month["total_minutes"], total + 1_000);
    let year = work_patterns(&app, &ada, "?days=365").await;
    assert_eq!(year["total_minutes"], total + 1_000 + 700);
    assert_eq!(
        year["foundations"][4]["minutes"], 0,
        "short_term is in the future"
    );
    let day = work_patterns(&app, &ada, "?days=1").await;
    assert_eq!(day["total_minutes"], 600);
    assert_eq!(day["foundations"][3]["share"].as_f64(), Some(1.0));
}

/// Asserts the daily series: one entry per UTC date the window touches, oldest first, all six
/// foundations on each, summing to the per-foundation totals.
fn assert_daily(patterns: &Value, from: OffsetDateTime, to: OffsetDateTime) {
    let daily = patterns["daily"].as_array().expect("daily");
    let mut dates = Vec::new();
    let mut date = from.date();
    while date <= to.date() {
        dates.push(date.to_string());
        date = date.next_day().unwrap();
    }
    let days = patterns["days"].as_i64().unwrap();
    if to.time() != time::Time::MIDNIGHT {
        assert_eq!(dates.len() as i64, days + 1, "{from} .. {to}");
    }
    let actual: Vec<&str> = daily.iter().map(|d| d["date"].as_str().unwrap()).collect();
    assert_eq!(actual, dates, "one entry per UTC date, oldest first");
    for (i, key) in FOUNDATIONS.iter().enumerate() {
        let sum: i64 = daily
            .iter()
            .map(|d| {
                d["minutes"][key]
                    .as_i64()
                    .unwrap_or_else(|| panic!("{key} on {d}"))
            })
            .sum();
        assert_eq!(patterns["foundations"][i]["minutes"], sum, "{key}");
    }
    for d in daily {
        assert_eq!(d["minutes"].as_object().unwrap().len(), 6, "{d}");
    }
}

#[tokio::test]
async fn an_empty_window_has_zero_shares_and_a_day_per_date() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    for days in [1, 3, 14, 365] {
        let patterns = work_patterns(&app, &ada, &format!("?days={days}")).await;
        assert_eq!(patterns["days"], days);
        assert_eq!(patterns["total_minutes"], 0);
        let foundations = patterns["foundations"].as_array().unwrap();
        assert_eq!(foundations.len(), 6);
        for (f, key) in foundations.iter().zip(FOUNDATIONS) {
            assert_eq!(f["foundation"], key);
            assert_eq!(f["minutes"], 0);
            assert_eq!(f["share"].as_f64(), Some(0.0), "{f}");
            assert_eq!(f["neglected"], true, "a share of 0 is below 0.05: {f}");
        }
        assert_eq!(patterns["neglected"], json!(FOUNDATIONS));
        assert!(!patterns["summary"].as_str().unwrap().trim().is_empty());
        let from = timestamp(&patterns["from"]);
        let to = timestamp(&patterns["to"]);
        assert_eq!(to - from, Duration::days(days));
        assert_daily(&patterns, from, to);
    }
}

#[tokio::test]
async fn work_pattern_days_are_validated() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let get = |query: &str| {
        send(app.with_bearer(
            &ada.access_jwt,
            Method::GET,
            &format!("/integration/work-patterns{query}"),
        ))
    };
    for bad in ["?days=0", "?days=366", "?days=-1"] {
        assert_invalid(get(bad).await, "days").await;
    }
    for malformed in ["?days=x", "?days=1.5"] {
        assert_error(get(malformed).await, 400, "invalid_json").await;
    }
    assert_error(
        send(app.api.get(app.url("/integration/work-patterns"))).await,
        401,
        "unauthenticated",
    )
    .await;
}

#[tokio::test]
async fn another_persons_mappings_are_invisible_and_untouchable() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;
    let bob_key = app.create_api_key(&bob, "bob's tracker").await;
    let at = base();
    let adas = json_body(
        post_mapping(&app, &ada, &mapping("shared-id", "love", 120, at)).await,
        201,
    )
    .await;
    json_body(
        post_mapping(&app, &ada, &mapping("ada-only", "mission", 60, at)).await,
        201,
    )
    .await;

    // Bob's own entry with the same external id is his own row, not an update of Ada's.
    let bobs = json_body(
        post_mapping(&app, &bob, &mapping("shared-id", "vocation", 5, at)).await,
        201,
    )
    .await;
    assert_ne!(bobs["id"], adas["id"]);
    assert_eq!(bobs["user_id"], bob.user_id.as_str());

    for request in [
        app.with_bearer(
            &bob.access_jwt,
            Method::DELETE,
            "/integration/task-mappings/ada-only",
        ),
        app.with_key(
            &bob_key.key,
            Method::DELETE,
            "/integration/task-mappings/ada-only",
        ),
    ] {
        assert_error(send(request).await, 404, "not_found").await;
    }
    let bob_list = list(&app, &bob, &[]).await;
    assert_eq!(external_ids(&bob_list), ["shared-id"]);
    assert_eq!(bob_list["items"][0]["id"], bobs["id"]);
    let bob_patterns = work_patterns(&app, &bob, "").await;
    assert_eq!(bob_patterns["total_minutes"], 5);

    // The operator key writes as the admin, not as Ada.
    let admins = json_body(
        send(
            app.with_key(OPERATOR_KEY, Method::POST, "/integration/task-mappings")
                .json(&mapping("shared-id", "strength", 7, at)),
        )
        .await,
        201,
    )
    .await;
    assert_ne!(admins["user_id"], ada.user_id.as_str());

    let ada_list = list(&app, &ada, &[]).await;
    let mut ids = external_ids(&ada_list);
    ids.sort();
    assert_eq!(ids, ["ada-only", "shared-id"]);
    let shared = ada_list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["external_task_id"] == "shared-id")
        .unwrap();
    assert_eq!(shared, &adas, "Ada's row is untouched");
    assert_eq!(work_patterns(&app, &ada, "").await["total_minutes"], 180);
}
