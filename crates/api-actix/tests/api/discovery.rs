//! The discovery routes: prompts, and a conversation from start to the extracted profile, with
//! every status code the contract lists for them.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_error, send, spawn_app};

const ANSWERS: [&str; 5] = [
    "I lose track of time when I cook for friends and when I repair old bicycles.",
    "People rely on me to explain hard things simply. Teaching feels natural.",
    "I care about kids who struggle to read; reading opened every door for me.",
    "I work as a primary school teacher and tutor in the evenings.",
    "I want to help people and be needed. Under pressure I take care of everyone else first.",
];

async fn put_answer(app: &TestApp, jwt: &str, step: &str, text: &str) -> reqwest::Response {
    send(
        app.with_bearer(
            jwt,
            Method::PUT,
            &format!("/discovery/conversation/me/answers/{step}"),
        )
        .json(&json!({"text": text})),
    )
    .await
}

async fn json_of(response: reqwest::Response, status: u16) -> Value {
    let actual = response.status().as_u16();
    let body: Value = response.json().await.expect("a JSON body");
    assert_eq!(actual, status, "{body}");
    body
}

#[tokio::test]
async fn the_seven_prompts_come_in_order_with_their_horizons() {
    let app = spawn_app().await;
    let prompts = json_of(send(app.api.get(app.url("/discovery/prompts"))).await, 200).await;
    let keys: Vec<&str> = prompts
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["key"].as_str().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "love",
            "strength",
            "mission",
            "vocation",
            "drives",
            "near_term_goal",
            "long_term_goal"
        ]
    );
    assert_eq!(prompts[5]["horizon"], "6-12 months");
    assert_eq!(prompts[6]["horizon"], "3-5 years");
    assert_eq!(prompts[0]["horizon"], Value::Null);
    assert!(
        prompts
            .as_array()
            .unwrap()
            .iter()
            .all(|p| !p["text"].as_str().unwrap().is_empty())
    );
}

#[tokio::test]
async fn a_conversation_goes_from_start_to_an_extracted_profile() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let jwt = ada.access_jwt.as_str();

    assert_error(
        send(app.with_bearer(jwt, Method::GET, "/discovery/conversation/me")).await,
        404,
        "not_found",
    )
    .await;
    let started = json_of(
        send(app.with_bearer(jwt, Method::POST, "/discovery/conversation")).await,
        201,
    )
    .await;
    assert_eq!(started["status"], "in_progress");
    assert_eq!(started["next_step"], 1);
    let again = json_of(
        send(app.with_bearer(jwt, Method::POST, "/discovery/conversation")).await,
        200,
    )
    .await;
    assert_eq!(
        again["id"], started["id"],
        "the conversation in progress is returned"
    );

    for (i, text) in ANSWERS.iter().enumerate() {
        let body = json_of(put_answer(&app, jwt, &(i + 1).to_string(), text).await, 200).await;
        assert_eq!(body["next_step"], i + 2);
    }
    json_of(put_answer(&app, jwt, "6", "").await, 200).await;
    let body = json_of(
        put_answer(&app, jwt, "7", "Open a reading café for kids — 📚 שלום").await,
        200,
    )
    .await;
    assert_eq!(body["next_step"], Value::Null);
    assert_eq!(body["near_term_goal_raw"], "");
    assert_eq!(
        body["long_term_goal_raw"],
        "Open a reading café for kids — 📚 שלום"
    );
    assert_eq!(body["answers"].as_array().unwrap().len(), 7);
    assert_eq!(body["answers"][4]["key"], "drives");

    let profile = json_of(
        send(app.with_bearer(jwt, Method::POST, "/discovery/conversation/me/complete")).await,
        201,
    )
    .await;
    let type_ = profile["enneagram_type"].as_u64().unwrap();
    let triad = match type_ {
        8 | 9 | 1 => "gut",
        2..=4 => "heart",
        _ => "head",
    };
    assert_eq!(profile["triad"], triad);
    assert_eq!(
        profile["near_term_goal_summary"],
        Value::Null,
        "no goal was stated"
    );
    assert!(
        profile["long_term_goal_summary"]
            .as_str()
            .unwrap()
            .contains("reading café")
    );
    assert_eq!(profile["version"], 1);
    assert_eq!(profile["locked"], false);

    let done = json_of(
        send(app.with_bearer(jwt, Method::GET, "/discovery/conversation/me")).await,
        200,
    )
    .await;
    assert_eq!(done["status"], "completed");
    assert!(done["completed_at"].is_string());
    assert_error(
        put_answer(&app, jwt, "6", "Run a marathon").await,
        409,
        "conversation_completed",
    )
    .await;
    assert_error(
        send(app.with_bearer(jwt, Method::POST, "/discovery/conversation/me/complete")).await,
        409,
        "conversation_completed",
    )
    .await;
}

#[tokio::test]
async fn completing_before_steps_one_to_five_is_a_conflict() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let jwt = ada.access_jwt.as_str();
    send(app.with_bearer(jwt, Method::POST, "/discovery/conversation")).await;
    for step in ["1", "2", "4"] {
        json_of(put_answer(&app, jwt, step, "Something true.").await, 200).await;
    }
    assert_error(
        send(app.with_bearer(jwt, Method::POST, "/discovery/conversation/me/complete")).await,
        409,
        "conversation_incomplete",
    )
    .await;
}

#[tokio::test]
async fn answers_are_validated_and_change_nothing_when_refused() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let jwt = ada.access_jwt.as_str();
    assert_error(
        put_answer(&app, jwt, "1", "Before starting").await,
        404,
        "not_found",
    )
    .await;
    send(app.with_bearer(jwt, Method::POST, "/discovery/conversation")).await;

    for step in ["0", "8", "abc", "-1"] {
        let error = assert_error(
            put_answer(&app, jwt, step, "x").await,
            422,
            "validation_failed",
        )
        .await;
        assert_eq!(error["error"]["details"][0]["field"], "step", "{step}");
    }
    for text in [&"x".repeat(10_001), "a\u{0}b", "bell\u{7}"] {
        let error = assert_error(
            put_answer(&app, jwt, "1", text).await,
            422,
            "validation_failed",
        )
        .await;
        assert_eq!(error["error"]["details"][0]["field"], "text");
    }
    let unknown = send(
        app.with_bearer(jwt, Method::PUT, "/discovery/conversation/me/answers/1")
            .json(&json!({"text": "a", "extra": 1})),
    )
    .await;
    assert_error(unknown, 422, "validation_failed").await;
    json_of(put_answer(&app, jwt, "1", &"y".repeat(10_000)).await, 200).await;

    let conversation = json_of(
        send(app.with_bearer(jwt, Method::GET, "/discovery/conversation/me")).await,
        200,
    )
    .await;
    assert_eq!(
        conversation["answers"].as_array().unwrap().len(),
        1,
        "only the valid answer was kept"
    );
}

#[tokio::test]
async fn a_blank_answer_to_a_required_step_is_a_draft_that_completion_waits_for() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let jwt = ada.access_jwt.as_str();
    send(app.with_bearer(jwt, Method::POST, "/discovery/conversation")).await;
    for step in 1..=5 {
        json_of(
            put_answer(&app, jwt, &step.to_string(), "An answer.").await,
            200,
        )
        .await;
    }
    // Cleared, as a person empties a field: accepted (the schema allows it), step 3 unanswered.
    let conversation = json_of(put_answer(&app, jwt, "3", "   ").await, 200).await;
    assert_eq!(conversation["next_step"], 3);
    let step3 = &conversation["answers"][2];
    assert_eq!((&step3["step"], &step3["text"]), (&json!(3), &json!("   ")));

    let refused =
        send(app.with_bearer(jwt, Method::POST, "/discovery/conversation/me/complete")).await;
    assert_error(refused, 409, "conversation_incomplete").await;
    let profile = send(app.with_bearer(jwt, Method::GET, "/discovery/profile/me")).await;
    assert_error(profile, 404, "not_found").await;

    json_of(
        put_answer(&app, jwt, "3", "Helping people learn.").await,
        200,
    )
    .await;
    let completed =
        send(app.with_bearer(jwt, Method::POST, "/discovery/conversation/me/complete")).await;
    assert_eq!(completed.status(), 201);
}

#[tokio::test]
async fn another_persons_conversation_is_invisible() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;
    send(app.with_bearer(&ada.access_jwt, Method::POST, "/discovery/conversation")).await;
    json_of(
        put_answer(&app, &ada.access_jwt, "1", "Ada's secret").await,
        200,
    )
    .await;

    assert_error(
        send(app.with_bearer(&bob.access_jwt, Method::GET, "/discovery/conversation/me")).await,
        404,
        "not_found",
    )
    .await;
    assert_error(
        put_answer(&app, &bob.access_jwt, "1", "Bob").await,
        404,
        "not_found",
    )
    .await;
    assert_error(
        send(app.api.get(app.url("/discovery/conversation/me"))).await,
        401,
        "unauthenticated",
    )
    .await;
}
