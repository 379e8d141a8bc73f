//! The coaching routes: preferences derived from the triad, overridden and regenerated;
//! check-ins that quote the person's goals and observe (never judge) where time went, their
//! responses and their list; and the admin-only batch run that never duplicates a check-in.

use reqwest::Method;
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use crate::helpers::{
    ADMIN_EMAIL, GUT_ANSWERS, HEAD_ANSWERS, HEART_ANSWERS, OPERATOR_KEY, SignedIn, TestApp, affirm,
    assert_error, assert_invalid, discover, goal_said_back, json_body, rfc3339, send, spawn_app,
    spawn_app_with, timestamp, verdict_in, without_goals,
};

const SIX: [&str; 6] = [
    "coaching_frequency",
    "coaching_style",
    "misalignment_threshold",
    "friction_tolerance",
    "prefer_questions_over_directives",
    "time_of_day_preference",
];

async fn preferences(app: &TestApp, jwt: &str) -> Value {
    json_body(
        send(app.with_bearer(jwt, Method::GET, "/coaching/preferences")).await,
        200,
    )
    .await
}

async fn put_preferences(app: &TestApp, jwt: &str, body: &Value) -> reqwest::Response {
    send(
        app.with_bearer(jwt, Method::PUT, "/coaching/preferences")
            .json(body),
    )
    .await
}

async fn new_checkin(app: &TestApp, jwt: &str) -> Value {
    json_body(
        send(app.with_bearer(jwt, Method::POST, "/coaching/checkins")).await,
        201,
    )
    .await
}

async fn checkins(app: &TestApp, jwt: &str, query: &str) -> Value {
    json_body(
        send(app.with_bearer(jwt, Method::GET, &format!("/coaching/checkins{query}"))).await,
        200,
    )
    .await
}

fn ids(page: &Value) -> Vec<String> {
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|c| c["id"].as_str().expect("an id").to_owned())
        .collect()
}

async fn respond(app: &TestApp, jwt: &str, id: &str, body: &Value) -> reqwest::Response {
    send(
        app.with_bearer(
            jwt,
            Method::POST,
            &format!("/coaching/checkins/{id}/response"),
        )
        .json(body),
    )
    .await
}

/// The derived defaults of docs/api.md's table for `triad`.
fn derived(triad: &str) -> Value {
    match triad {
        "gut" => json!({
            "coaching_frequency": "weekly", "coaching_style": "direct",
            "misalignment_threshold": 0.30, "friction_tolerance": "high",
            "prefer_questions_over_directives": false, "time_of_day_preference": "any",
        }),
        "heart" => json!({
            "coaching_frequency": "weekly", "coaching_style": "warm",
            "misalignment_threshold": 0.15, "friction_tolerance": "low",
            "prefer_questions_over_directives": false, "time_of_day_preference": "any",
        }),
        "head" => json!({
            "coaching_frequency": "biweekly", "coaching_style": "reflective",
            "misalignment_threshold": 0.25, "friction_tolerance": "medium",
            "prefer_questions_over_directives": true, "time_of_day_preference": "any",
        }),
        other => panic!("no triad {other}"),
    }
}

/// Asserts that `actual` holds the six settings of `expected` (the threshold to 1e-9).
fn assert_settings(actual: &Value, expected: &Value) {
    for field in SIX {
        if field == "misalignment_threshold" {
            let (a, e) = (actual[field].as_f64(), expected[field].as_f64().unwrap());
            assert!(
                a.is_some_and(|a| (a - e).abs() < 1e-9),
                "{field}: {actual:#} vs {expected:#}"
            );
        } else {
            assert_eq!(actual[field], expected[field], "{field}: {actual:#}");
        }
    }
}

/// A mapping of `minutes` to `foundation`, `ago` before now, posted with Bearer (201).
async fn log_time(
    app: &TestApp,
    who: &SignedIn,
    id: &str,
    foundation: &str,
    minutes: i64,
    ago: Duration,
) {
    let response = send(
        app.with_bearer(&who.access_jwt, Method::POST, "/integration/task-mappings")
            .json(&json!({
                "external_task_id": id,
                "task_label": null,
                "foundation": foundation,
                "minutes": minutes,
                "occurred_at": rfc3339(OffsetDateTime::now_utc() - ago),
            })),
    )
    .await;
    json_body(response, 201).await;
}

/// Asserts the contract's promise about a check-in's words: no verdict.
fn assert_no_verdict(checkin: &Value) {
    let message = checkin["message"].as_str().expect("a message");
    assert_eq!(verdict_in(message), None, "{message}");
    if let Some(observation) = checkin["observation"].as_str() {
        assert_eq!(verdict_in(observation), None, "{observation}");
    }
}

#[tokio::test]
async fn preferences_need_a_profile() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    assert_error(
        send(app.with_bearer(&ada.access_jwt, Method::GET, "/coaching/preferences")).await,
        404,
        "not_found",
    )
    .await;
    assert_error(
        send(app.api.get(app.url("/coaching/preferences"))).await,
        401,
        "unauthenticated",
    )
    .await;
}

#[tokio::test]
async fn preferences_are_derived_from_the_triad_and_stored_on_first_read() {
    let app = spawn_app().await;
    for (n, (answers, triad)) in [
        (GUT_ANSWERS, "gut"),
        (HEART_ANSWERS, "heart"),
        (HEAD_ANSWERS, "head"),
    ]
    .into_iter()
    .enumerate()
    {
        let who = app.dev_login(&format!("person{n}@example.org")).await;
        let profile = discover(&app, &who.access_jwt, answers).await;
        assert_eq!(profile["triad"], triad);

        let first = preferences(&app, &who.access_jwt).await;
        assert_settings(&first, &derived(triad));
        assert_eq!(first["source"], "derived", "{first:#}");
        let updated_at = timestamp(&first["updated_at"]);
        assert!(
            (OffsetDateTime::now_utc() - updated_at)
                .whole_seconds()
                .abs()
                < 60
        );

        // Stored on first read: a second read is the same record.
        let second = preferences(&app, &who.access_jwt).await;
        assert_eq!(second, first);
    }
}

#[tokio::test]
async fn preferences_can_be_overridden_and_regenerated() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let jwt = ada.access_jwt.as_str();
    discover(&app, jwt, HEART_ANSWERS).await;
    let derived_first = preferences(&app, jwt).await;

    let mine = json!({
        "coaching_frequency": "monthly",
        "coaching_style": "reflective",
        "misalignment_threshold": 0.9,
        "friction_tolerance": "medium",
        "prefer_questions_over_directives": true,
        "time_of_day_preference": "evening",
    });
    let stored = json_body(put_preferences(&app, jwt, &mine).await, 200).await;
    assert_settings(&stored, &mine);
    assert_eq!(stored["source"], "override");
    assert!(timestamp(&stored["updated_at"]) >= timestamp(&derived_first["updated_at"]));
    assert_eq!(
        preferences(&app, jwt).await,
        stored,
        "the override is stored"
    );

    // The edges of the threshold are values, not errors.
    for edge in [0.0, 1.0] {
        let mut body = mine.clone();
        body["misalignment_threshold"] = json!(edge);
        let stored = json_body(put_preferences(&app, jwt, &body).await, 200).await;
        assert_settings(&stored, &body);
    }
    let stored = json_body(put_preferences(&app, jwt, &mine).await, 200).await;

    let regenerated = json_body(
        send(app.with_bearer(jwt, Method::POST, "/coaching/preferences/regenerate")).await,
        200,
    )
    .await;
    assert_settings(&regenerated, &derived("heart"));
    assert_eq!(regenerated["source"], "derived");
    assert!(timestamp(&regenerated["updated_at"]) >= timestamp(&stored["updated_at"]));
    assert_eq!(preferences(&app, jwt).await, regenerated);
}

#[tokio::test]
async fn every_bad_preference_value_is_refused_and_changes_nothing() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let jwt = ada.access_jwt.as_str();
    discover(&app, jwt, HEAD_ANSWERS).await;
    let before = preferences(&app, jwt).await;

    let valid = json!({
        "coaching_frequency": "weekly",
        "coaching_style": "direct",
        "misalignment_threshold": 0.5,
        "friction_tolerance": "low",
        "prefer_questions_over_directives": false,
        "time_of_day_preference": "morning",
    });
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
        (
            with("coaching_frequency", json!("daily")),
            "coaching_frequency",
        ),
        (
            with("coaching_frequency", json!("Weekly")),
            "coaching_frequency",
        ),
        (with("coaching_style", json!("harsh")), "coaching_style"),
        (
            with("misalignment_threshold", json!(1.01)),
            "misalignment_threshold",
        ),
        (
            with("misalignment_threshold", json!(-0.1)),
            "misalignment_threshold",
        ),
        (
            with("misalignment_threshold", json!("0.5")),
            "misalignment_threshold",
        ),
        (
            with("friction_tolerance", json!("extreme")),
            "friction_tolerance",
        ),
        (
            with("prefer_questions_over_directives", json!("yes")),
            "prefer_questions_over_directives",
        ),
        (
            with("time_of_day_preference", json!("night")),
            "time_of_day_preference",
        ),
        (
            with("time_of_day_preference", Value::Null),
            "time_of_day_preference",
        ),
        (with("mood", json!("sunny")), "mood"),
        (without("coaching_style"), "coaching_style"),
        (without("misalignment_threshold"), "misalignment_threshold"),
        (without("time_of_day_preference"), "time_of_day_preference"),
    ];
    for (body, field) in cases {
        assert_invalid(put_preferences(&app, jwt, &body).await, field).await;
    }
    assert_eq!(preferences(&app, jwt).await, before, "nothing changed");
}

#[tokio::test]
async fn a_check_in_waits_for_the_affirmed_profile() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let jwt = ada.access_jwt.as_str();
    discover(&app, jwt, GUT_ANSWERS).await;

    assert_error(
        send(app.with_bearer(jwt, Method::POST, "/coaching/checkins")).await,
        409,
        "profile_not_affirmed",
    )
    .await;
    let page = checkins(&app, jwt, "").await;
    assert_eq!(page["items"], json!([]), "nothing was written");
    assert_eq!(page["next_cursor"], Value::Null);
}

#[tokio::test]
async fn a_check_in_quotes_the_stated_goals_verbatim_and_asks_about_the_direction() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let jwt = ada.access_jwt.as_str();
    let profile = discover(&app, jwt, HEART_ANSWERS).await;
    affirm(&app, jwt).await;

    let checkin = new_checkin(&app, jwt).await;
    assert!(uuid::Uuid::parse_str(checkin["id"].as_str().unwrap()).is_ok());
    let goals = [
        profile["near_term_goal_summary"].as_str().unwrap(),
        profile["long_term_goal_summary"].as_str().unwrap(),
    ];
    assert_eq!(checkin["quoted_goals"], json!(goals), "{checkin:#}");
    let message = checkin["message"].as_str().unwrap();
    for goal in goals {
        assert!(
            message.contains(goal),
            "the message quotes {goal:?}: {message}"
        );
    }
    assert!(message.contains('?'), "it asks a question: {message}");
    assert_eq!(checkin["origin"], "manual");
    assert_eq!(checkin["observation"], Value::Null, "no time was logged");
    assert_eq!(checkin["responded_at"], Value::Null);
    assert_eq!(checkin["still_valid"], Value::Null);
    assert_eq!(checkin["response_note"], Value::Null);
    let created_at = timestamp(&checkin["created_at"]);
    assert!(
        (OffsetDateTime::now_utc() - created_at)
            .whole_seconds()
            .abs()
            < 60
    );
    assert_no_verdict(&checkin);

    let page = checkins(&app, jwt, "").await;
    assert_eq!(
        page["items"],
        json!([checkin]),
        "the list holds the stored check-in"
    );
}

#[tokio::test]
async fn without_a_stated_goal_a_check_in_quotes_the_mission() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let jwt = ada.access_jwt.as_str();
    let profile = discover(&app, jwt, without_goals(HEAD_ANSWERS)).await;
    assert_eq!(profile["near_term_goal_summary"], Value::Null);
    affirm(&app, jwt).await;

    let checkin = new_checkin(&app, jwt).await;
    let mission = profile["mission_summary"].as_str().unwrap();
    assert_eq!(checkin["quoted_goals"], json!([mission]), "{checkin:#}");
    assert!(checkin["message"].as_str().unwrap().contains(mission));
    assert_no_verdict(&checkin);

    // With one goal stated (here by hand, before affirming), only that goal is quoted.
    let bob = app.dev_login("bob@example.org").await;
    discover(&app, &bob.access_jwt, without_goals(GUT_ANSWERS)).await;
    let edited = json_body(
        send(
            app.with_bearer(&bob.access_jwt, Method::PATCH, "/discovery/profile/me")
                .json(&json!({"long_term_goal_summary": "Sail around Ireland — ⛵ in 2029."})),
        )
        .await,
        200,
    )
    .await;
    affirm(&app, &bob.access_jwt).await;
    let checkin = new_checkin(&app, &bob.access_jwt).await;
    assert_eq!(
        checkin["quoted_goals"],
        json!([edited["long_term_goal_summary"]]),
        "{checkin:#}"
    );
    assert_no_verdict(&checkin);
}

#[tokio::test]
async fn a_check_in_observes_time_logged_in_the_last_fourteen_days_only() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;
    for who in [&ada, &bob] {
        discover(&app, &who.access_jwt, GUT_ANSWERS).await;
        affirm(&app, &who.access_jwt).await;
    }
    // Ada logged time this week; Bob only three weeks ago.
    log_time(&app, &ada, "a-1", "vocation", 600, Duration::hours(3)).await;
    log_time(&app, &ada, "a-2", "love", 45, Duration::days(2)).await;
    log_time(&app, &ada, "a-3", "mission", 30, Duration::days(13)).await;
    log_time(&app, &bob, "b-1", "vocation", 600, Duration::days(21)).await;

    let with_time = new_checkin(&app, &ada.access_jwt).await;
    let observation = with_time["observation"].as_str().expect("an observation");
    assert!(!observation.trim().is_empty(), "{with_time:#}");
    assert_no_verdict(&with_time);

    let without_time = new_checkin(&app, &bob.access_jwt).await;
    assert_eq!(
        without_time["observation"],
        Value::Null,
        "time older than 14 days is not observed: {without_time:#}"
    );
    assert_no_verdict(&without_time);
}

#[tokio::test]
async fn check_ins_are_listed_newest_first_page_by_page() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let jwt = ada.access_jwt.as_str();
    discover(&app, jwt, HEAD_ANSWERS).await;
    affirm(&app, jwt).await;
    let mut created = Vec::new();
    for _ in 0..5 {
        created.push(
            new_checkin(&app, jwt).await["id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let newest_first: Vec<String> = created.iter().rev().cloned().collect();

    let all = checkins(&app, jwt, "").await;
    assert_eq!(ids(&all), newest_first);
    assert_eq!(all["next_cursor"], Value::Null);

    let mut seen = Vec::new();
    let mut query = "?limit=2".to_owned();
    let mut pages = 0;
    loop {
        let page = checkins(&app, jwt, &query).await;
        pages += 1;
        let page_ids = ids(&page);
        assert!(page_ids.len() <= 2, "{page:#}");
        seen.extend(page_ids);
        match page["next_cursor"].as_str() {
            Some(cursor) => query = format!("?limit=2&before={cursor}"),
            None => break,
        }
        assert!(pages < 10, "the pages never end");
    }
    assert_eq!(seen, newest_first, "every check-in once, in order");
    assert_eq!(pages, 3);

    for bad in ["?limit=0", "?limit=1001"] {
        let response =
            send(app.with_bearer(jwt, Method::GET, &format!("/coaching/checkins{bad}"))).await;
        assert_invalid(response, "limit").await;
    }
    let response = send(app.with_bearer(jwt, Method::GET, "/coaching/checkins?limit=x")).await;
    assert_error(response, 400, "invalid_json").await;
}

#[tokio::test]
async fn a_check_in_takes_one_response() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let jwt = ada.access_jwt.as_str();
    discover(&app, jwt, HEART_ANSWERS).await;
    affirm(&app, jwt).await;
    let checkin = new_checkin(&app, jwt).await;
    let id = checkin["id"].as_str().unwrap();

    // Refused responses change nothing.
    for (body, field) in [
        (json!({}), "still_valid"),
        (json!({"still_valid": "yes"}), "still_valid"),
        (json!({"still_valid": null}), "still_valid"),
        (
            json!({"still_valid": true, "note": "é".repeat(2_001)}),
            "note",
        ),
        (json!({"still_valid": true, "note": 5}), "note"),
        (json!({"still_valid": true, "mood": "fine"}), "mood"),
    ] {
        assert_invalid(respond(&app, jwt, id, &body).await, field).await;
    }
    assert_eq!(checkins(&app, jwt, "").await["items"], json!([checkin]));

    let note = "Still true — but slower than I hoped. 🌱";
    let answered = json_body(
        respond(&app, jwt, id, &json!({"still_valid": false, "note": note})).await,
        200,
    )
    .await;
    assert_eq!(answered["still_valid"], false);
    assert_eq!(answered["response_note"], note);
    let responded_at = timestamp(&answered["responded_at"]);
    assert!(responded_at >= timestamp(&checkin["created_at"]));
    for unchanged in [
        "id",
        "message",
        "quoted_goals",
        "observation",
        "origin",
        "created_at",
    ] {
        assert_eq!(answered[unchanged], checkin[unchanged], "{unchanged}");
    }
    assert_eq!(checkins(&app, jwt, "").await["items"], json!([answered]));

    assert_error(
        respond(&app, jwt, id, &json!({"still_valid": true})).await,
        409,
        "already_responded",
    )
    .await;
    assert_eq!(
        checkins(&app, jwt, "").await["items"],
        json!([answered]),
        "unchanged"
    );

    // A response without a note; the longest note is accepted.
    let second = new_checkin(&app, jwt).await;
    let answered = json_body(
        respond(
            &app,
            jwt,
            second["id"].as_str().unwrap(),
            &json!({"still_valid": true}),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(answered["still_valid"], true);
    assert_eq!(answered["response_note"], Value::Null);
    let third = new_checkin(&app, jwt).await;
    let longest = "é".repeat(2_000);
    let answered = json_body(
        respond(
            &app,
            jwt,
            third["id"].as_str().unwrap(),
            &json!({"still_valid": true, "note": longest}),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(answered["response_note"], longest.as_str());
}

#[tokio::test]
async fn responding_to_an_unknown_or_anothers_check_in_is_not_found() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;
    for who in [&ada, &bob] {
        discover(&app, &who.access_jwt, GUT_ANSWERS).await;
        affirm(&app, &who.access_jwt).await;
    }
    let adas = new_checkin(&app, &ada.access_jwt).await;
    let ada_id = adas["id"].as_str().unwrap();
    new_checkin(&app, &bob.access_jwt).await;

    let unknown = uuid::Uuid::now_v7().to_string();
    for id in [ada_id, unknown.as_str(), "not-an-id"] {
        assert_error(
            respond(&app, &bob.access_jwt, id, &json!({"still_valid": false})).await,
            404,
            "not_found",
        )
        .await;
    }
    // Bob's list holds only his own; Ada's check-in is untouched.
    let bobs = checkins(&app, &bob.access_jwt, "").await;
    assert_eq!(bobs["items"].as_array().unwrap().len(), 1);
    assert!(!ids(&bobs).contains(&ada_id.to_owned()));
    assert_eq!(
        checkins(&app, &ada.access_jwt, "").await["items"],
        json!([adas])
    );
    // Ada can still answer her own.
    json_body(
        respond(&app, &ada.access_jwt, ada_id, &json!({"still_valid": true})).await,
        200,
    )
    .await;
}

#[tokio::test]
async fn the_batch_run_is_for_admins_and_creates_each_due_check_in_once() {
    let operator_key = "a-different-operator-key-for-this-test-0123456789";
    let app = spawn_app_with(&[("API_KEY", operator_key)]).await;
    let ada = app.dev_login("ada@example.org").await; // locked, never checked in: due
    let bob = app.dev_login("bob@example.org").await; // locked, checked in just now: not due
    let cy = app.dev_login("cy@example.org").await; // not affirmed: never due
    let dee = app.dev_login("dee@example.org").await; // no profile
    for who in [&ada, &bob, &cy] {
        discover(&app, &who.access_jwt, HEAD_ANSWERS).await;
    }
    affirm(&app, &ada.access_jwt).await;
    affirm(&app, &bob.access_jwt).await;
    let bobs = new_checkin(&app, &bob.access_jwt).await;

    // Not for people who are not admins, whatever the credential; a personal key (even an
    // admin's) is outside every key scope.
    let dee_key = app.create_api_key(&dee, "tracker").await;
    for request in [
        app.with_bearer(&ada.access_jwt, Method::POST, "/coaching/run"),
        app.as_browser(&cy, Method::POST, "/coaching/run"),
    ] {
        assert_error(send(request).await, 403, "forbidden").await;
    }
    assert_error(
        send(app.with_key(&dee_key.key, Method::POST, "/coaching/run")).await,
        403,
        "insufficient_scope",
    )
    .await;
    assert_error(
        send(app.api.post(app.url("/coaching/run"))).await,
        401,
        "unauthenticated",
    )
    .await;
    // The default test key is not this app's operator key.
    assert_error(
        send(app.with_key(OPERATOR_KEY, Method::POST, "/coaching/run")).await,
        401,
        "unauthenticated",
    )
    .await;
    assert_eq!(
        checkins(&app, &ada.access_jwt, "").await["items"],
        json!([])
    );

    let report = json_body(
        send(app.with_key(operator_key, Method::POST, "/coaching/run")).await,
        200,
    )
    .await;
    assert_eq!(report["created"], 1, "{report}");
    let considered = report["considered"].as_i64().expect("considered");
    assert!(considered >= 1, "{report}");

    let adas = checkins(&app, &ada.access_jwt, "").await;
    let items = adas["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{adas:#}");
    assert_eq!(items[0]["origin"], "batch");
    assert_eq!(
        items[0]["quoted_goals"],
        json!([
            goal_said_back(HEAD_ANSWERS[5]),
            goal_said_back(HEAD_ANSWERS[6])
        ])
    );
    assert_no_verdict(&items[0]);
    assert_eq!(
        checkins(&app, &bob.access_jwt, "").await["items"],
        json!([bobs])
    );
    assert_eq!(checkins(&app, &cy.access_jwt, "").await["items"], json!([]));

    // A second run finds nothing due; an admin signed in by e-mail may run it too.
    let again = json_body(
        send(app.with_key(operator_key, Method::POST, "/coaching/run")).await,
        200,
    )
    .await;
    assert_eq!(again["created"], 0, "{again}");
    let admin = app.admin_login(ADMIN_EMAIL).await;
    let by_admin = json_body(
        send(app.with_bearer(&admin.access_jwt, Method::POST, "/coaching/run")).await,
        200,
    )
    .await;
    assert_eq!(by_admin["created"], 0, "{by_admin}");
    assert_eq!(
        checkins(&app, &ada.access_jwt, "").await["items"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn two_batch_runs_at_once_create_no_duplicate() {
    let app = spawn_app().await;
    let mut people = Vec::new();
    for n in 0..3 {
        let who = app.dev_login(&format!("person{n}@example.org")).await;
        discover(&app, &who.access_jwt, GUT_ANSWERS).await;
        affirm(&app, &who.access_jwt).await;
        people.push(who);
    }
    let run = || send(app.with_key(OPERATOR_KEY, Method::POST, "/coaching/run"));
    let (a, b) = tokio::join!(run(), run());
    let (a, b) = (json_body(a, 200).await, json_body(b, 200).await);
    assert_eq!(
        a["created"].as_i64().unwrap() + b["created"].as_i64().unwrap(),
        3,
        "{a} {b}"
    );
    for who in &people {
        let page = checkins(&app, &who.access_jwt, "").await;
        assert_eq!(page["items"].as_array().unwrap().len(), 1, "{page:#}");
    }
}
