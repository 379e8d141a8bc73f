//! Nothing lost, and a way back (issue 29): reopening an affirmed profile, restoring a revision,
//! refusing blank edits, the `revisit` invitation of a check-in answered "no longer valid", and
//! goal answers that state no goal. The coach is the offline engine.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{
    GUT_ANSWERS, HEAD_ANSWERS, HEART_ANSWERS, OPERATOR_KEY, TestApp, affirm, answer_all,
    assert_error, assert_invalid, discover, json_body, my_profile, my_revisions, send, spawn_app,
};

/// The five fields that always hold text (docs/api.md: "Editing never empties...").
const NEVER_BLANK: [&str; 5] = [
    "love_summary",
    "strength_summary",
    "mission_summary",
    "vocation_summary",
    "overlap_narrative",
];

async fn post(app: &TestApp, jwt: &str, path: &str) -> reqwest::Response {
    send(app.with_bearer(jwt, Method::POST, path)).await
}

async fn reopen(app: &TestApp, jwt: &str) -> Value {
    json_body(post(app, jwt, "/discovery/profile/me/reopen").await, 200).await
}

async fn restore(app: &TestApp, jwt: &str, number: &str) -> reqwest::Response {
    let path = format!("/discovery/profile/me/revisions/{number}/restore");
    post(app, jwt, &path).await
}

async fn patch(app: &TestApp, jwt: &str, body: &Value) -> reqwest::Response {
    send(
        app.with_bearer(jwt, Method::PATCH, "/discovery/profile/me")
            .json(body),
    )
    .await
}

/// `POST /coaching/run` with the operator key: the run's report.
async fn run_due_checkins(app: &TestApp) -> Value {
    let run = app.with_key(OPERATOR_KEY, Method::POST, "/coaching/run");
    json_body(send(run).await, 200).await
}

fn origins(revisions: &[Value]) -> Vec<&str> {
    revisions
        .iter()
        .map(|r| r["origin"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn reopening_unlocks_an_affirmed_profile_without_a_revision_and_is_logged() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let jwt = ada.access_jwt.as_str();
    assert_error(
        post(&app, jwt, "/discovery/profile/me/reopen").await,
        404,
        "not_found",
    )
    .await;
    discover(&app, jwt, HEAD_ANSWERS).await;
    let affirmed = affirm(&app, jwt).await;

    let reopened = reopen(&app, jwt).await;
    assert_eq!(reopened["locked"], false);
    assert_eq!(reopened["affirmed_at"], Value::Null);
    assert_eq!(
        reopened["version"],
        affirmed["version"].as_i64().unwrap() + 1
    );
    for unchanged in
        NEVER_BLANK
            .iter()
            .chain(&["id", "enneagram_type", "triad", "sources", "created_at"])
    {
        assert_eq!(reopened[unchanged], affirmed[unchanged], "{unchanged}");
    }
    assert_eq!(my_profile(&app, jwt).await, reopened);
    assert_eq!(
        origins(&my_revisions(&app, jwt).await),
        ["extraction"],
        "no prose changed, so no revision"
    );

    // Reopening an unlocked profile returns it unchanged.
    assert_eq!(reopen(&app, jwt).await, reopened);

    // It takes edits again.
    let edited = json_body(
        patch(&app, jwt, &json!({"love_summary": "Sailing."})).await,
        200,
    )
    .await;
    assert_eq!(edited["love_summary"], "Sailing.");

    let activity = app
        .activity_until(&ada.user_id, |items| {
            items
                .iter()
                .filter(|i| i["action"] == "profile.reopen" && i["status"] == 200)
                .count()
                == 2
        })
        .await;
    let logged = activity
        .iter()
        .find(|i| i["action"] == "profile.reopen" && i["status"] == 200)
        .unwrap();
    assert_eq!(logged["path"], "/discovery/profile/me/reopen");
    assert_eq!(logged["method"], "POST");
}

#[tokio::test]
async fn after_a_reopen_a_new_discovery_re_extracts_the_profile_in_place() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let jwt = ada.access_jwt.as_str();
    let first = discover(&app, jwt, HEAD_ANSWERS).await;
    affirm(&app, jwt).await;
    reopen(&app, jwt).await;

    // The completed conversation does not block a new one.
    let started = post(&app, jwt, "/discovery/conversation").await;
    assert_eq!(started.status().as_u16(), 201);
    let conversation = json_body(started, 201).await;
    assert_eq!(conversation["status"], "in_progress");
    assert_eq!(conversation["answers"], json!([]));

    let mut answers = GUT_ANSWERS;
    answers[0] = "Sailing small boats with my brother.";
    answer_all(&app, jwt, answers).await;
    let response = post(&app, jwt, "/discovery/conversation/me/complete").await;
    let status = response.status().as_u16();
    assert!(matches!(status, 200 | 201), "status {status}");
    let second = json_body(response, status).await;
    assert_eq!(second["id"], first["id"], "updated in place");
    assert_eq!(second["triad"], "gut");
    assert_eq!(second["locked"], false);
    assert_ne!(second["love_summary"], first["love_summary"]);
    assert_eq!(
        origins(&my_revisions(&app, jwt).await),
        ["extraction", "extraction"]
    );
}

#[tokio::test]
async fn check_ins_wait_while_the_profile_is_reopened() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let jwt = ada.access_jwt.as_str();
    discover(&app, jwt, HEART_ANSWERS).await;
    affirm(&app, jwt).await;
    reopen(&app, jwt).await;

    assert_error(
        post(&app, jwt, "/coaching/checkins").await,
        409,
        "profile_not_affirmed",
    )
    .await;
    let report = run_due_checkins(&app).await;
    assert_eq!(report["created"], 0, "not due while unlocked: {report}");
    let list = json_body(
        send(app.with_bearer(jwt, Method::GET, "/coaching/checkins")).await,
        200,
    )
    .await;
    assert_eq!(list["items"], json!([]));

    // Affirmed again, they are due again.
    affirm(&app, jwt).await;
    let report = run_due_checkins(&app).await;
    assert_eq!(report["created"], 1, "{report}");
}

#[tokio::test]
async fn restoring_a_revision_brings_back_its_fields_and_sources_as_a_manual_edit() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let jwt = ada.access_jwt.as_str();
    let original = discover(&app, jwt, HEAD_ANSWERS).await;
    let edited = json_body(
        patch(
            &app,
            jwt,
            &json!({"love_summary": "Soup.", "near_term_goal_summary": null}),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(edited["sources"]["love_summary"], json!([]));

    let restored = json_body(restore(&app, jwt, "1").await, 200).await;
    for field in [
        "love_summary",
        "near_term_goal_summary",
        "long_term_goal_summary",
        "sources",
    ] {
        assert_eq!(restored[field], original[field], "{field}");
    }
    assert_ne!(original["sources"]["love_summary"], json!([]));
    assert_eq!(restored["version"], 3);
    assert_eq!(my_profile(&app, jwt).await, restored);
    let revisions = my_revisions(&app, jwt).await;
    assert_eq!(
        origins(&revisions),
        ["extraction", "manual_edit", "manual_edit"]
    );
    assert_eq!(revisions[2]["number"], 3);
    assert_eq!(revisions[2]["note"], "restored revision 1");
    assert_eq!(
        revisions[2]["snapshot"]["love_summary"],
        original["love_summary"]
    );

    // Back to the edit, guarded by If-Match like an edit.
    let to_revision_two = |if_match: &str| {
        let path = "/discovery/profile/me/revisions/2/restore";
        send(
            app.with_bearer(jwt, Method::POST, path)
                .header("If-Match", if_match),
        )
    };
    assert_error(to_revision_two("\"2\"").await, 409, "conflict").await;
    assert_invalid(to_revision_two("yesterday").await, "If-Match").await;
    assert_eq!(
        my_profile(&app, jwt).await,
        restored,
        "refusals change nothing"
    );
    let current = to_revision_two("\"3\"").await;
    let back = json_body(current, 200).await;
    assert_eq!(back["love_summary"], "Soup.");
    assert_eq!(back["version"], 4);
}

#[tokio::test]
async fn a_restore_of_no_such_revision_or_of_a_locked_profile_is_refused_and_changes_nothing() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let jwt = ada.access_jwt.as_str();
    assert_error(restore(&app, jwt, "1").await, 404, "not_found").await;
    discover(&app, jwt, HEAD_ANSWERS).await;
    let before = my_profile(&app, jwt).await;
    for number in ["2", "0", "-1", "abc", "1.0", "99999999999"] {
        assert_error(restore(&app, jwt, number).await, 404, "not_found").await;
    }

    // Another person's revision numbers are their own.
    let bob = app.dev_login("bob@example.org").await;
    discover(&app, &bob.access_jwt, GUT_ANSWERS).await;
    patch(&app, &bob.access_jwt, &json!({"love_summary": "Bob's."})).await;
    assert_error(restore(&app, jwt, "2").await, 404, "not_found").await;

    let affirmed = affirm(&app, jwt).await;
    assert_error(restore(&app, jwt, "1").await, 409, "profile_locked").await;
    assert_eq!(my_profile(&app, jwt).await, affirmed);
    assert_eq!(affirmed["love_summary"], before["love_summary"]);
    assert_eq!(origins(&my_revisions(&app, jwt).await), ["extraction"]);
}

#[tokio::test]
async fn a_blank_edit_of_an_ikigai_or_overlap_field_is_refused_and_changes_nothing() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let jwt = ada.access_jwt.as_str();
    let before = discover(&app, jwt, HEAD_ANSWERS).await;
    for field in NEVER_BLANK {
        for blank in ["", "   ", "\n\t "] {
            let body = json!({ "near_term_goal_summary": "Run a 10k.", field: blank });
            assert_invalid(patch(&app, jwt, &body).await, field).await;
        }
    }
    assert_eq!(my_profile(&app, jwt).await, before, "nothing changed");
    assert_eq!(origins(&my_revisions(&app, jwt).await), ["extraction"]);

    // A blank goal is "I have no such goal".
    let cleared = json_body(
        patch(
            &app,
            jwt,
            &json!({"near_term_goal_summary": "", "long_term_goal_summary": "  "}),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(cleared["near_term_goal_summary"], Value::Null);
    assert_eq!(cleared["long_term_goal_summary"], Value::Null);
}

#[tokio::test]
async fn a_check_in_answered_no_longer_valid_invites_a_revisit() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let jwt = ada.access_jwt.as_str();
    discover(&app, jwt, GUT_ANSWERS).await;
    affirm(&app, jwt).await;

    let mut answered = Vec::new();
    for still_valid in [true, false] {
        let created = json_body(post(&app, jwt, "/coaching/checkins").await, 201).await;
        assert_eq!(created["revisit"], false, "unanswered");
        let path = format!(
            "/coaching/checkins/{}/response",
            created["id"].as_str().unwrap()
        );
        let response = send(
            app.with_bearer(jwt, Method::POST, &path)
                .json(&json!({ "still_valid": still_valid })),
        )
        .await;
        let checkin = json_body(response, 200).await;
        assert_eq!(checkin["still_valid"], still_valid);
        assert_eq!(checkin["revisit"], !still_valid);
        answered.push(checkin);
    }
    let list = json_body(
        send(app.with_bearer(jwt, Method::GET, "/coaching/checkins")).await,
        200,
    )
    .await;
    let revisits: Vec<_> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["id"].clone(), c["revisit"].clone()))
        .collect();
    assert_eq!(
        revisits,
        [
            (answered[1]["id"].clone(), json!(true)),
            (answered[0]["id"].clone(), json!(false)),
        ],
        "newest first, each with its own answer"
    );
}

#[tokio::test]
async fn goal_answers_that_state_no_goal_give_null_goal_summaries() {
    let app = spawn_app().await;
    for (email, near, long) in [
        (
            "ada@example.org",
            "not sure yet",
            "Keine Ahnung, ehrlich gesagt.",
        ),
        ("bob@example.org", "No idea, honestly.", "todavía no"),
        ("cy@example.org", "n/a", "Je ne sais pas encore."),
    ] {
        let who = app.dev_login(email).await;
        let mut answers = HEAD_ANSWERS;
        answers[5] = near;
        answers[6] = long;
        let profile = discover(&app, &who.access_jwt, answers).await;
        assert_eq!(profile["near_term_goal_summary"], Value::Null, "{near:?}");
        assert_eq!(profile["long_term_goal_summary"], Value::Null, "{long:?}");
        assert_eq!(profile["sources"]["near_term_goal_summary"], json!([]));
        assert_eq!(profile["sources"]["long_term_goal_summary"], json!([]));
    }

    // A goal that hesitates first is still a goal.
    let dee = app.dev_login("dee@example.org").await;
    let mut answers = HEAD_ANSWERS;
    answers[5] = "I don't know how yet, but I want to open a bakery by next spring.";
    let profile = discover(&app, &dee.access_jwt, answers).await;
    assert!(profile["near_term_goal_summary"].is_string(), "{profile:#}");
}
