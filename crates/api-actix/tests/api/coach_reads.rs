//! The offline coach through the real routes, as a new user would meet it (issue 42): a
//! correction, an addition, a removal and a question, written the way people write (no cue
//! the engine was taught for the sentence), each changing only the part it is about and
//! keeping the rest; the question changes nothing. Runs on SQLite and, with
//! `TEST_DATABASE_URL`, on PostgreSQL.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{Answers, TestApp, discover, json_body, my_profile, send, spawn_app};

/// A person of our own: a baker who writes in lower case, with chat shorthand.
const BAKER: Answers<'static> = [
    "baking sourdough at 5am before anyone is up and also chess in the park on saturdays",
    "ppl come to me when the oven breaks and i train the new apprentices on the mixer",
    "kids from the estate who never had anyone teach them a trade",
    "i run the early shift at a bakery and could get paid for wedding cakes on the side",
    "i want things done right. under stress i get short with people and work harder",
    "get my pastry diploma and stop working every sunday",
    "open my own bakery by the canal",
];

async fn reflect(app: &TestApp, jwt: &str, message: &str) -> Value {
    json_body(
        send(
            app.with_bearer(jwt, Method::POST, "/discovery/profile/me/reflect")
                .json(&json!({ "message": message })),
        )
        .await,
        200,
    )
    .await
}

const EDITABLE: [&str; 7] = [
    "love_summary",
    "strength_summary",
    "mission_summary",
    "vocation_summary",
    "overlap_narrative",
    "near_term_goal_summary",
    "long_term_goal_summary",
];

/// The fields whose text differs between two profiles.
fn changed(before: &Value, after: &Value) -> Vec<&'static str> {
    EDITABLE
        .into_iter()
        .filter(|f| before[f] != after[f])
        .collect()
}

fn text<'a>(profile: &'a Value, field: &str) -> &'a str {
    profile[field].as_str().unwrap_or_default()
}

#[tokio::test]
async fn a_correction_an_addition_a_removal_and_a_question_each_touch_only_their_part() {
    let app = spawn_app().await;
    let jwt = app.dev_login("baker@example.org").await.access_jwt;
    let first = discover(&app, &jwt, BAKER).await;
    assert!(text(&first, "love_summary").contains("chess"), "{first:#}");

    // A correction with the part named by its content, not by a cue word.
    let reply = reflect(
        &app,
        &jwt,
        "nah its not the early shift anymore, they pay me to run the whole night bake now",
    )
    .await;
    let after = &reply["profile"];
    assert_eq!(changed(&first, after), ["vocation_summary"], "{reply:#}");
    assert!(
        text(after, "vocation_summary").contains("night bake"),
        "{reply:#}"
    );
    assert!(
        !text(after, "vocation_summary").contains(" my "),
        "{reply:#}"
    );
    let said = reply["message"].as_str().unwrap();
    assert!(
        said.starts_with("I rewrote what you can be paid for"),
        "{said}"
    );

    // An addition keeps everything the part already said.
    let before = after.clone();
    let reply = reflect(
        &app,
        &jwt,
        "oh and dont forget i can fix any oven on the line lol",
    )
    .await;
    let after = &reply["profile"];
    assert_eq!(changed(&before, after), ["strength_summary"], "{reply:#}");
    let strength = text(after, "strength_summary");
    assert!(
        strength.starts_with(text(&before, "strength_summary")),
        "{strength}"
    );
    assert!(strength.contains("fix any oven"), "{strength}");

    // A removal drops only the words the person points at.
    let before = after.clone();
    let reply = reflect(&app, &jwt, "pls drop the chess bit, havent played in ages").await;
    let after = &reply["profile"];
    assert_eq!(changed(&before, after), ["love_summary"], "{reply:#}");
    assert!(!text(after, "love_summary").contains("chess"), "{reply:#}");
    assert!(
        text(after, "love_summary").contains("sourdough"),
        "{reply:#}"
    );

    // A question is answered and changes nothing.
    let before = after.clone();
    let reply = reflect(&app, &jwt, "whats the overlap thing supposed to mean").await;
    assert!(
        reply["revisions"].as_array().is_none_or(Vec::is_empty),
        "{reply:#}"
    );
    assert!(
        changed(&before, &my_profile(&app, &jwt).await).is_empty(),
        "{reply:#}"
    );
    let said = reply["message"].as_str().unwrap();
    assert!(said.contains("comes back"), "{said}");

    // Every coach turn records the engine that wrote it; the person's turns none.
    assert_eq!(reply["engine"], "offline", "{reply:#}");
    let turns = json_body(
        send(app.with_bearer(&jwt, Method::GET, "/discovery/profile/me/reflection")).await,
        200,
    )
    .await;
    let turns = turns.as_array().expect("a list of turns");
    assert_eq!(turns.len(), 8, "{turns:#?}");
    for turn in turns {
        let expected = if turn["author"] == "coach" {
            json!("offline")
        } else {
            Value::Null
        };
        assert_eq!(turn["engine"], expected, "{turn:#}");
    }
}
