//! Mapping rules and unmapped time, black-box (docs/api.md, "Mapping rules and unmapped time"): every
//! rule kind, position order and first match, the tracker's own foundation never re-mapped,
//! re-classification in the background of rule-mapped and unmapped entries only (a failed rule
//! write changes nothing, a failed step resumes), the 500-rule limit, the unmapped view, coverage
//! in work patterns and check-ins, and owner scoping. Reads of entries after a rule change wait
//! for the re-classification to be idle, as a tracker that wants the result would.

use std::collections::BTreeMap;

use reqwest::Method;
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use crate::helpers::{
    GUT_ANSWERS, SignedIn, TestApp, affirm, assert_error, assert_invalid, count, discover, execute,
    json_body, literal, rfc3339, send, spawn_app,
};
use adapters_diesel::Backend;

/// A moment on a whole second, an hour before now (so nothing sits on a window's edge).
fn base() -> OffsetDateTime {
    let now = OffsetDateTime::now_utc() - Duration::hours(1);
    now.replace_nanosecond(0).expect("a valid instant")
}

/// An entry the rules decide (no foundation).
fn open_entry(id: &str, label: Option<&str>, tags: &[&str], minutes: i64) -> Value {
    json!({
        "external_task_id": id,
        "task_label": label,
        "tags": tags,
        "minutes": minutes,
        "occurred_at": rfc3339(base()),
    })
}

pub(crate) async fn post_batch(app: &TestApp, who: &SignedIn, items: &[Value]) {
    json_body(
        send(
            app.with_bearer(
                &who.access_jwt,
                Method::POST,
                "/integration/task-mappings/batch",
            )
            .json(&json!({ "items": items })),
        )
        .await,
        200,
    )
    .await;
}

async fn add_rule(app: &TestApp, who: &SignedIn, body: Value) -> Value {
    json_body(
        send(
            app.with_bearer(&who.access_jwt, Method::POST, "/integration/rules")
                .json(&body),
        )
        .await,
        201,
    )
    .await
}

async fn rules(app: &TestApp, who: &SignedIn) -> Vec<Value> {
    let all = json_body(
        send(app.with_bearer(&who.access_jwt, Method::GET, "/integration/rules")).await,
        200,
    )
    .await;
    all.as_array().expect("an array").clone()
}

/// The person's re-classification (`GET /integration/reclassification`).
pub async fn reclassification(app: &TestApp, who: &SignedIn) -> Value {
    json_body(
        send(app.with_bearer(
            &who.access_jwt,
            Method::GET,
            "/integration/reclassification",
        ))
        .await,
        200,
    )
    .await
}

/// Waits until the person's re-classification is idle.
pub async fn settled(app: &TestApp, who: &SignedIn) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let now = reclassification(app, who).await;
        if now["state"] == "idle" {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the re-classification never ended: {now}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// Every entry of the person once re-classification is idle: external id → (foundation,
/// mapped_by).
async fn mapped(app: &TestApp, who: &SignedIn) -> BTreeMap<String, (Value, Value)> {
    settled(app, who).await;
    let page = json_body(
        send(
            app.with_bearer(&who.access_jwt, Method::GET, "/integration/task-mappings")
                .query(&[("limit", "1000")]),
        )
        .await,
        200,
    )
    .await;
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|m| {
            (
                m["external_task_id"].as_str().expect("an id").to_owned(),
                (m["foundation"].clone(), m["mapped_by"].clone()),
            )
        })
        .collect()
}

fn by(foundation: &str, who: &str) -> (Value, Value) {
    (json!(foundation), json!(who))
}

fn unmapped() -> (Value, Value) {
    (Value::Null, Value::Null)
}

/// The work patterns once re-classification is idle.
async fn work_patterns(app: &TestApp, who: &SignedIn) -> Value {
    settled(app, who).await;
    json_body(
        send(app.with_bearer(&who.access_jwt, Method::GET, "/integration/work-patterns")).await,
        200,
    )
    .await
}

#[tokio::test]
async fn every_rule_kind_matches_case_insensitively_on_nfc_text() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    post_batch(
        &app,
        &ada,
        &[
            // "Café" with e + combining accent, in capitals: the rules write it precomposed.
            open_entry("toggl:1", Some("Planning the CAFE\u{301} menu"), &[], 10),
            open_entry("toggl:2", Some("Weekly sync"), &[], 10),
            open_entry("aw:3", None, &["Project:Website"], 10),
            open_entry("clockify:4", Some("Something else"), &[], 10),
            open_entry("other:5", Some("Nothing matches"), &["misc"], 10),
        ],
    )
    .await;
    add_rule(
        &app,
        &ada,
        json!({"match": {"label_contains": "café"}, "foundation": "love"}),
    )
    .await;
    add_rule(
        &app,
        &ada,
        json!({"match": {"label_equals": "WEEKLY SYNC"}, "foundation": "strength"}),
    )
    .await;
    add_rule(
        &app,
        &ada,
        json!({"match": {"tag": "project:website"}, "foundation": "mission"}),
    )
    .await;
    add_rule(
        &app,
        &ada,
        json!({"match": {"external_task_id_prefix": "Clockify:"}, "foundation": "vocation"}),
    )
    .await;
    // Equality is of the whole label, not a part of it.
    add_rule(
        &app,
        &ada,
        json!({"match": {"label_equals": "nothing"}, "foundation": "long_term"}),
    )
    .await;

    let all = mapped(&app, &ada).await;
    assert_eq!(all["toggl:1"], by("love", "rule"));
    assert_eq!(all["toggl:2"], by("strength", "rule"));
    assert_eq!(all["aw:3"], by("mission", "rule"));
    assert_eq!(all["clockify:4"], by("vocation", "rule"));
    assert_eq!(all["other:5"], unmapped());

    let listed = rules(&app, &ada).await;
    assert_eq!(listed.len(), 5);
    assert_eq!(listed[0]["match"], json!({"label_contains": "café"}));
    assert_eq!(
        listed[3]["match"],
        json!({"external_task_id_prefix": "Clockify:"})
    );
    let positions: Vec<_> = listed
        .iter()
        .map(|r| r["position"].as_i64().unwrap())
        .collect();
    assert_eq!(positions, [1, 2, 3, 4, 5]);
}

#[tokio::test]
async fn the_first_rule_by_position_decides_and_the_trackers_foundation_is_never_touched() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let general = add_rule(
        &app,
        &ada,
        json!({"match": {"label_contains": "review"}, "foundation": "strength"}),
    )
    .await;
    let mut explicit = open_entry("e-client", Some("Code review"), &["deep"], 30);
    explicit["foundation"] = json!("love");
    post_batch(
        &app,
        &ada,
        &[
            open_entry("e-rule", Some("Code review"), &["deep"], 30),
            open_entry("e-open", Some("Lunch"), &["deep"], 30),
            explicit,
        ],
    )
    .await;
    let before = mapped(&app, &ada).await;
    assert_eq!(before["e-rule"], by("strength", "rule"));
    assert_eq!(before["e-open"], unmapped());
    assert_eq!(before["e-client"], by("love", "client"));

    // Put first, a tag rule takes over both entries the rules decide; never the tracker's.
    let specific = add_rule(
        &app,
        &ada,
        json!({"match": {"tag": "deep"}, "foundation": "vocation", "position": 1}),
    )
    .await;
    assert_eq!(specific["position"], 1);
    let after = mapped(&app, &ada).await;
    assert_eq!(after["e-rule"], by("vocation", "rule"));
    assert_eq!(after["e-open"], by("vocation", "rule"));
    assert_eq!(after["e-client"], by("love", "client"));
    let order: Vec<_> = rules(&app, &ada)
        .await
        .iter()
        .map(|r| r["id"].clone())
        .collect();
    assert_eq!(order, [specific["id"].clone(), general["id"].clone()]);

    // Moved last with PUT (a position past the end is the end), the label rule decides again.
    let moved = json_body(
        send(
            app.with_bearer(
                &ada.access_jwt,
                Method::PUT,
                &format!("/integration/rules/{}", specific["id"].as_str().unwrap()),
            )
            .json(&json!({"match": {"tag": "deep"}, "foundation": "vocation", "position": 99})),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(moved["position"], 2);
    assert_eq!(moved["created_at"], specific["created_at"]);
    let moved_back = mapped(&app, &ada).await;
    assert_eq!(moved_back["e-rule"], by("strength", "rule"));
    assert_eq!(moved_back["e-open"], by("vocation", "rule"));

    // Deleting every rule leaves the rule-mapped entries unmapped, the tracker's as it was.
    for rule in rules(&app, &ada).await {
        let path = format!("/integration/rules/{}", rule["id"].as_str().unwrap());
        assert_eq!(
            send(app.with_bearer(&ada.access_jwt, Method::DELETE, &path))
                .await
                .status(),
            204
        );
        assert_eq!(
            send(app.with_bearer(&ada.access_jwt, Method::DELETE, &path))
                .await
                .status(),
            404
        );
    }
    let cleared = mapped(&app, &ada).await;
    assert_eq!(cleared["e-rule"], unmapped());
    assert_eq!(cleared["e-open"], unmapped());
    assert_eq!(cleared["e-client"], by("love", "client"));
}

#[tokio::test]
async fn a_single_entry_without_a_foundation_is_decided_and_echoes_its_tags() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    add_rule(
        &app,
        &ada,
        json!({"match": {"tag": "family"}, "foundation": "love"}),
    )
    .await;
    let sent = json!({
        "external_task_id": "t-1",
        "foundation": null,
        "tags": ["Family", "weekend", "family"],
        "minutes": 90,
        "occurred_at": rfc3339(base()),
    });
    let stored = json_body(
        send(
            app.with_bearer(&ada.access_jwt, Method::POST, "/integration/task-mappings")
                .json(&sent),
        )
        .await,
        201,
    )
    .await;
    assert_eq!(stored["foundation"], "love");
    assert_eq!(stored["mapped_by"], "rule");
    assert_eq!(
        stored["tags"],
        json!(["Family", "weekend"]),
        "a repeated tag is kept once"
    );
    let mut untagged = open_entry("t-2", Some("Gym"), &[], 20);
    untagged.as_object_mut().unwrap().remove("tags");
    let stored = json_body(
        send(
            app.with_bearer(&ada.access_jwt, Method::POST, "/integration/task-mappings")
                .json(&untagged),
        )
        .await,
        201,
    )
    .await;
    assert_eq!(
        (
            stored["foundation"].clone(),
            stored["mapped_by"].clone(),
            stored["tags"].clone()
        ),
        (Value::Null, Value::Null, json!([]))
    );

    for (body, field) in [
        (
            json!({"match": {"tag": "x"}, "foundation": "love", "position": 0}),
            "position",
        ),
        (
            json!({"match": {"tag": " "}, "foundation": "love"}),
            "match.tag",
        ),
        (
            json!({"match": {"regex": "x"}, "foundation": "love"}),
            "match",
        ),
        (
            json!({"match": {"tag": "x"}, "foundation": "joy"}),
            "foundation",
        ),
    ] {
        assert_invalid(
            send(
                app.with_bearer(&ada.access_jwt, Method::POST, "/integration/rules")
                    .json(&body),
            )
            .await,
            field,
        )
        .await;
    }
    let mut claimed = open_entry("t-3", None, &[], 5);
    claimed["mapped_by"] = json!("client");
    assert_invalid(
        send(
            app.with_bearer(&ada.access_jwt, Method::POST, "/integration/task-mappings")
                .json(&claimed),
        )
        .await,
        "mapped_by",
    )
    .await;
    assert_eq!(
        rules(&app, &ada).await.len(),
        1,
        "refused rules change nothing"
    );
}

#[tokio::test]
async fn a_failed_step_changes_no_entry_and_the_job_ends_as_one_pass_once_it_can() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let items: Vec<_> = (0..40)
        .map(|n| open_entry(&format!("e{n:02}"), Some("Writing"), &[], 15))
        .collect();
    post_batch(&app, &ada, &items).await;
    let rule = add_rule(
        &app,
        &ada,
        json!({"match": {"label_equals": "writing"}, "foundation": "vocation"}),
    )
    .await;
    let before = mapped(&app, &ada).await;
    assert!(before.values().all(|m| *m == by("vocation", "rule")));
    // The database refuses to re-map one entry in the middle, as a full disk could any row: e10,
    // inside the first stretch however small the SQLite writer makes it (never under 16 rows;
    // 16 when another write contended for the writer, as the rule change's activity row may).
    let untrigger = match app.backend {
        Backend::Sqlite => {
            execute(
                &app,
                "CREATE TRIGGER refuse_e10 BEFORE UPDATE ON task_mapping \
                 WHEN NEW.external_task_id = 'e10' BEGIN SELECT RAISE(ABORT, 'refused'); END",
            );
            "DROP TRIGGER refuse_e10"
        }
        Backend::Postgres => {
            execute(
                &app,
                "CREATE FUNCTION refuse_e10() RETURNS trigger LANGUAGE plpgsql AS \
                 $$ BEGIN RAISE EXCEPTION 'refused'; END; $$",
            );
            execute(
                &app,
                "CREATE TRIGGER refuse_e10 BEFORE UPDATE ON task_mapping FOR EACH ROW \
                 WHEN (NEW.external_task_id = 'e10') EXECUTE FUNCTION refuse_e10()",
            );
            "DROP TRIGGER refuse_e10 ON task_mapping"
        }
    };
    let path = format!("/integration/rules/{}", rule["id"].as_str().unwrap());
    let replaced = send(
        app.with_bearer(&ada.access_jwt, Method::PUT, &path)
            .json(&json!({"match": {"label_equals": "writing"}, "foundation": "mission"})),
    )
    .await;
    assert_eq!(replaced.status(), 200, "the rule write commits at once");
    assert_eq!(rules(&app, &ada).await[0]["foundation"], "mission");
    // The worker's steps fail on e10 and are rolled back whole; the job stays queued.
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    let progress = reclassification(&app, &ada).await;
    assert_eq!(progress["state"], "running", "{progress}");
    assert_eq!(progress["done"], 0, "{progress}");
    let patterns = json_body(
        send(app.with_bearer(&ada.access_jwt, Method::GET, "/integration/work-patterns")).await,
        200,
    )
    .await;
    assert_eq!(patterns["reclassifying"], true);
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) AS n FROM task_mapping \
             WHERE foundation = 'vocation' AND mapped_by = 'rule'"
        ),
        40,
        "no entry was re-mapped by a failed step"
    );

    execute(&app, untrigger);
    assert!(
        mapped(&app, &ada)
            .await
            .values()
            .all(|m| *m == by("mission", "rule")),
        "once it can, the job ends as one pass would"
    );
    assert_eq!(work_patterns(&app, &ada).await["reclassifying"], false);
}

#[tokio::test]
async fn a_rule_write_that_fails_keeps_neither_the_rule_nor_a_job() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    post_batch(&app, &ada, &[open_entry("e1", Some("Writing"), &[], 15)]).await;
    // The database refuses the job's row, after the rule's own insert in the same transaction.
    match app.backend {
        Backend::Sqlite => {
            execute(
                &app,
                "CREATE TRIGGER refuse_job BEFORE INSERT ON reclassification \
                 BEGIN SELECT RAISE(ABORT, 'refused'); END",
            );
        }
        Backend::Postgres => {
            execute(
                &app,
                "CREATE FUNCTION refuse_job() RETURNS trigger LANGUAGE plpgsql AS \
                 $$ BEGIN RAISE EXCEPTION 'refused'; END; $$",
            );
            execute(
                &app,
                "CREATE TRIGGER refuse_job BEFORE INSERT ON reclassification FOR EACH ROW \
                 EXECUTE FUNCTION refuse_job()",
            );
        }
    }
    let response = send(
        app.with_bearer(&ada.access_jwt, Method::POST, "/integration/rules")
            .json(&json!({"match": {"label_equals": "writing"}, "foundation": "love"})),
    )
    .await;
    assert!(response.status().is_server_error(), "{}", response.status());
    let body: Value = response.json().await.unwrap();
    assert!(
        !body.to_string().contains("refused"),
        "no database text leaks: {body}"
    );
    assert!(rules(&app, &ada).await.is_empty(), "the rule is not kept");
    assert_eq!(reclassification(&app, &ada).await["state"], "idle");
    assert_eq!(mapped(&app, &ada).await["e1"], unmapped());
}

#[tokio::test]
async fn five_hundred_rules_then_the_next_is_refused() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    for n in 0..500 {
        add_rule(
            &app,
            &ada,
            json!({"match": {"label_equals": format!("label {n}")}, "foundation": "love"}),
        )
        .await;
    }
    let refused = send(
        app.with_bearer(&ada.access_jwt, Method::POST, "/integration/rules")
            .json(&json!({"match": {"tag": "one more"}, "foundation": "love", "position": 1})),
    )
    .await;
    assert_error(refused, 409, "too_many_rules").await;
    let kept = rules(&app, &ada).await;
    assert_eq!(kept.len(), 500);
    assert_eq!(kept[0]["match"], json!({"label_equals": "label 0"}));
    // Another person's limit is their own.
    let bob = app.dev_login("bob@example.org").await;
    add_rule(
        &app,
        &bob,
        json!({"match": {"tag": "x"}, "foundation": "love"}),
    )
    .await;
}

#[tokio::test]
async fn unmapped_time_is_grouped_by_label_and_tags_largest_first() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    // One instant for the entries and the check below: two calls may fall in different seconds.
    let base = base();
    let at = |id: &str, label: Option<&str>, tags: &[&str], minutes: i64, ago: Duration| {
        let mut e = open_entry(id, label, tags, minutes);
        e["occurred_at"] = json!(rfc3339(base - ago));
        e
    };
    let mut mapped_one = at("m", Some("Email"), &["inbox"], 200, Duration::hours(1));
    mapped_one["foundation"] = json!("vocation");
    post_batch(
        &app,
        &ada,
        &[
            mapped_one,
            at("u1", Some("Email"), &["inbox"], 25, Duration::hours(2)),
            at("u2", Some("Email"), &["inbox"], 35, Duration::hours(3)),
            at("u3", Some("Email"), &[], 15, Duration::hours(4)),
            at("u4", None, &["slack"], 45, Duration::hours(5)),
            at("u5", Some("Email"), &["inbox"], 500, Duration::days(20)),
        ],
    )
    .await;
    let groups = json_body(
        send(app.with_bearer(&ada.access_jwt, Method::GET, "/integration/unmapped")).await,
        200,
    )
    .await;
    let seen: Vec<_> = groups
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["task_label"].clone(),
                g["tags"].clone(),
                g["minutes"].clone(),
                g["entries"].clone(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (json!("Email"), json!(["inbox"]), json!(60), json!(2)),
            (Value::Null, json!(["slack"]), json!(45), json!(1)),
            (json!("Email"), json!([]), json!(15), json!(1)),
        ],
        "the 14-day window, the mapped entry left out"
    );
    assert_eq!(
        groups[0]["last_occurred_at"],
        json!(rfc3339(base - Duration::hours(2)))
    );
    let month = json_body(
        send(app.with_bearer(
            &ada.access_jwt,
            Method::GET,
            "/integration/unmapped?days=30&limit=1",
        ))
        .await,
        200,
    )
    .await;
    assert_eq!(month.as_array().unwrap().len(), 1);
    assert_eq!(month[0]["minutes"], 560);
    for query in ["days=0", "days=366", "limit=0", "limit=1001"] {
        let response = send(app.with_bearer(
            &ada.access_jwt,
            Method::GET,
            &format!("/integration/unmapped?{query}"),
        ))
        .await;
        assert_invalid(response, query.split('=').next().unwrap()).await;
    }
    let malformed =
        send(app.with_bearer(&ada.access_jwt, Method::GET, "/integration/unmapped?days=x")).await;
    assert_error(malformed, 400, "invalid_json").await;

    // The listing filters the same entries.
    let listed = json_body(
        send(
            app.with_bearer(&ada.access_jwt, Method::GET, "/integration/task-mappings")
                .query(&[("foundation", "unmapped")]),
        )
        .await,
        200,
    )
    .await;
    let mut ids: Vec<_> = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["external_task_id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    assert_eq!(ids, ["u1", "u2", "u3", "u4", "u5"]);
    assert_invalid(
        send(
            app.with_bearer(&ada.access_jwt, Method::GET, "/integration/task-mappings")
                .query(&[("foundation", "none")]),
        )
        .await,
        "foundation",
    )
    .await;
}

#[tokio::test]
async fn coverage_is_whole_with_nothing_logged_and_half_with_half_mapped() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let empty = work_patterns(&app, &ada).await;
    assert_eq!(
        (
            empty["total_minutes"].clone(),
            empty["unmapped_minutes"].clone()
        ),
        (json!(0), json!(0))
    );
    assert_eq!(empty["coverage"], 1.0);

    let mut love = open_entry("m1", Some("Dinner"), &[], 60);
    love["foundation"] = json!("love");
    let mut vocation = open_entry("m2", Some("Write"), &[], 60);
    vocation["foundation"] = json!("vocation");
    post_batch(
        &app,
        &ada,
        &[
            love,
            vocation,
            open_entry("u1", Some("Scrolling"), &[], 120),
        ],
    )
    .await;
    let half = work_patterns(&app, &ada).await;
    assert_eq!(half["total_minutes"], 120, "mapped minutes");
    assert_eq!(half["unmapped_minutes"], 120);
    assert_eq!(half["coverage"], 0.5);
    let shares: BTreeMap<_, _> = half["foundations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["foundation"].as_str().unwrap().to_owned(),
                f["share"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        (shares["love"], shares["vocation"]),
        (0.5, 0.5),
        "shares over mapped time only"
    );
    // The daily series holds mapped minutes only; the unmapped 120 are in unmapped_minutes.
    let daily_total: i64 = half["daily"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| {
            d["minutes"]
                .as_object()
                .unwrap()
                .values()
                .map(|m| m.as_i64().unwrap())
                .collect::<Vec<_>>()
        })
        .sum();
    assert_eq!(daily_total, 120);
    assert!(
        half["summary"]
            .as_str()
            .unwrap()
            .contains("you logged 4 h: 2 h classified, 2 h not yet."),
        "{half:#}"
    );

    // A rule that classifies the rest brings coverage to 1 and moves the bars.
    add_rule(
        &app,
        &ada,
        json!({"match": {"label_equals": "scrolling"}, "foundation": "strength"}),
    )
    .await;
    let whole = work_patterns(&app, &ada).await;
    assert_eq!(
        (
            whole["total_minutes"].clone(),
            whole["unmapped_minutes"].clone(),
            whole["coverage"].clone()
        ),
        (json!(240), json!(0), json!(1.0))
    );
    let daily_total: i64 = whole["daily"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["minutes"]["strength"].as_i64().unwrap())
        .sum();
    assert_eq!(daily_total, 120);
}

#[tokio::test]
async fn a_check_in_mentions_coverage_below_eighty_percent() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    discover(&app, &ada.access_jwt, GUT_ANSWERS).await;
    affirm(&app, &ada.access_jwt).await;
    let mut mapped_entry = open_entry("m1", Some("Teaching"), &[], 70);
    mapped_entry["foundation"] = json!("vocation");
    post_batch(
        &app,
        &ada,
        &[mapped_entry, open_entry("u1", Some("Browsing"), &[], 30)],
    )
    .await;
    let checkin = |app: &TestApp| {
        let request = app.with_bearer(&ada.access_jwt, Method::POST, "/coaching/checkins");
        async move { json_body(send(request).await, 201).await }
    };
    let below = checkin(&app).await;
    let observation = below["observation"].as_str().expect("an observation");
    assert!(
        observation.contains("70% of the logged time is classified so far"),
        "{observation}"
    );
    add_rule(
        &app,
        &ada,
        json!({"match": {"label_equals": "browsing"}, "foundation": "love"}),
    )
    .await;
    settled(&app, &ada).await;
    let whole = checkin(&app).await;
    let observation = whole["observation"].as_str().expect("an observation");
    assert!(
        !observation.contains("is classified so far"),
        "{observation}"
    );
}

#[tokio::test]
async fn rules_are_their_owners_alone() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;
    let adas = add_rule(
        &app,
        &ada,
        json!({"match": {"tag": "deep"}, "foundation": "vocation"}),
    )
    .await;
    post_batch(&app, &bob, &[open_entry("b1", Some("Deep"), &["deep"], 30)]).await;
    assert_eq!(
        mapped(&app, &bob).await["b1"],
        unmapped(),
        "Ada's rule never decides Bob's time"
    );
    assert!(rules(&app, &bob).await.is_empty());
    let path = format!("/integration/rules/{}", adas["id"].as_str().unwrap());
    let put = send(
        app.with_bearer(&bob.access_jwt, Method::PUT, &path)
            .json(&json!({"match": {"tag": "deep"}, "foundation": "love"})),
    )
    .await;
    assert_error(put, 404, "not_found").await;
    assert_error(
        send(app.with_bearer(&bob.access_jwt, Method::DELETE, &path)).await,
        404,
        "not_found",
    )
    .await;
    assert_error(
        send(app.with_bearer(
            &bob.access_jwt,
            Method::DELETE,
            "/integration/rules/not-a-uuid",
        ))
        .await,
        404,
        "not_found",
    )
    .await;
    assert_eq!(rules(&app, &ada).await, [adas]);
    let stored = count(
        &app,
        &format!(
            "SELECT COUNT(*) AS n FROM mapping_rules WHERE user_id = {}",
            literal(&ada.user_id)
        ),
    );
    assert_eq!(stored, 1);
}
