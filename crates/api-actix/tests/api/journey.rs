//! The whole journey of one person, end to end over HTTP: the prompts, the answers, the
//! extracted profile, reflection with the coach, an edit by hand, affirmation and the refusals it
//! brings, a check-in and its response, and a time tracker feeding fifty entries whose work
//! pattern adds up to the minute.

use std::collections::BTreeMap;

use reqwest::Method;
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use crate::helpers::{
    assert_error, goal_said_back, json_body, rfc3339, send, spawn_app, timestamp, triad_of,
    verdict_in,
};
use crate::integration::FOUNDATIONS;

const ANSWERS: [&str; 7] = [
    "I lose track of time when I cook for friends and when I repair old bicycles.",
    "People rely on me to explain hard things simply. Teaching feels natural.",
    "I care about kids who struggle to read; reading opened every door for me.",
    "I work as a primary school teacher and tutor in the evenings.",
    "I want to help people and be needed. Under pressure I take care of everyone else first.",
    "Finish my reading-tutor certificate by June.",
    "Open a reading café for kids — 📚 in my town.",
];

#[tokio::test]
async fn one_person_goes_from_the_prompts_to_an_exact_work_pattern() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let jwt = ada.access_jwt.as_str();
    let get = |path: &str| send(app.with_bearer(jwt, Method::GET, path));
    let post = |path: &str| send(app.with_bearer(jwt, Method::POST, path));

    // 1. The prompts and the answers.
    let prompts = json_body(get("/discovery/prompts").await, 200).await;
    assert_eq!(prompts.as_array().unwrap().len(), 7);
    json_body(post("/discovery/conversation").await, 201).await;
    for (step, text) in ANSWERS.iter().enumerate() {
        let path = format!("/discovery/conversation/me/answers/{}", step + 1);
        let response = send(
            app.with_bearer(jwt, Method::PUT, &path)
                .json(&json!({ "text": text })),
        )
        .await;
        json_body(response, 200).await;
    }

    // 2. The extracted profile.
    let profile = json_body(post("/discovery/conversation/me/complete").await, 201).await;
    let type_ = profile["enneagram_type"].as_u64().unwrap();
    assert_eq!(profile["triad"], triad_of(type_));
    assert_eq!(
        profile["near_term_goal_summary"],
        goal_said_back(ANSWERS[5])
    );
    // Said back in the person's words; the emoji is set aside.
    let long_goal = goal_said_back(ANSWERS[6]).replace("📚 ", "");
    assert_eq!(profile["long_term_goal_summary"], long_goal);
    assert_eq!(profile["version"], 1);
    assert_eq!(profile["locked"], false);

    // 3. Reflection: the opener changes nothing, a correction revises the mission.
    let opener = json_body(
        send(
            app.with_bearer(jwt, Method::POST, "/discovery/profile/me/reflect")
                .json(&json!({"opener": true})),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(opener["revisions"], json!([]));
    assert_eq!(opener["revision_note"], Value::Null);
    assert_eq!(opener["profile"], profile);
    let correction = "Actually, my mission is teaching every child to read.";
    let corrected = json_body(
        send(
            app.with_bearer(jwt, Method::POST, "/discovery/profile/me/reflect")
                .json(&json!({ "message": correction })),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(
        corrected["revisions"],
        json!([{
            "field": "mission_summary",
            "value": "Your mission is teaching every child to read. Reading opened every door for you."
        }]),
        "the correction replaces the lead sentence, says it back in the second person and keeps the rest"
    );
    assert!(
        corrected["revision_note"]
            .as_str()
            .unwrap()
            .contains(correction)
    );
    let reflected = corrected["profile"].clone();
    assert_eq!(reflected["version"], 2);
    assert_eq!(reflected["enneagram_type"], profile["enneagram_type"]);
    assert_eq!(reflected["triad"], profile["triad"]);

    // 4. An edit by hand, against the version seen.
    let edited = json_body(
        send(
            app.with_bearer(jwt, Method::PATCH, "/discovery/profile/me")
                .header("If-Match", "\"2\"")
                .json(
                    &json!({"vocation_summary": "Primary school teacher; reading tutor at night."}),
                ),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(edited["version"], 3);
    assert_eq!(
        edited["vocation_summary"],
        "Primary school teacher; reading tutor at night."
    );
    assert_eq!(edited["mission_summary"], reflected["mission_summary"]);

    // 5. Affirmation locks it; everything that would change it is refused.
    let affirmed = json_body(post("/discovery/profile/me/affirm").await, 200).await;
    assert_eq!(affirmed["locked"], true);
    assert!(affirmed["affirmed_at"].is_string());
    assert_error(
        send(
            app.with_bearer(jwt, Method::PATCH, "/discovery/profile/me")
                .json(&json!({"love_summary": "Sailing."})),
        )
        .await,
        409,
        "profile_locked",
    )
    .await;
    assert_error(
        send(
            app.with_bearer(jwt, Method::POST, "/discovery/profile/me/reflect")
                .json(&json!({"message": "My mission is sailing."})),
        )
        .await,
        409,
        "profile_locked",
    )
    .await;
    json_body(post("/discovery/conversation").await, 201).await;
    for (step, text) in ANSWERS.iter().enumerate().take(5) {
        let path = format!("/discovery/conversation/me/answers/{}", step + 1);
        let response = send(
            app.with_bearer(jwt, Method::PUT, &path)
                .json(&json!({ "text": text })),
        )
        .await;
        json_body(response, 200).await;
    }
    assert_error(
        post("/discovery/conversation/me/complete").await,
        409,
        "profile_locked",
    )
    .await;
    assert_eq!(
        json_body(get("/discovery/profile/me").await, 200).await,
        affirmed
    );

    let revisions = json_body(get("/discovery/profile/me/revisions").await, 200).await;
    let origins: Vec<&str> = revisions
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["origin"].as_str().unwrap())
        .collect();
    assert_eq!(origins, ["extraction", "reflection", "manual_edit"]);
    let turns = json_body(get("/discovery/profile/me/reflection").await, 200).await;
    let authors: Vec<&str> = turns
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["author"].as_str().unwrap())
        .collect();
    assert_eq!(authors, ["coach", "person", "coach"]);

    // 6. A check-in quotes the goals; the person answers it.
    let checkin = json_body(post("/coaching/checkins").await, 201).await;
    assert_eq!(
        checkin["quoted_goals"],
        json!([goal_said_back(ANSWERS[5]), long_goal])
    );
    assert_eq!(checkin["observation"], Value::Null, "no time logged yet");
    assert_eq!(verdict_in(checkin["message"].as_str().unwrap()), None);
    let id = checkin["id"].as_str().unwrap();
    let answered = json_body(
        send(
            app.with_bearer(
                jwt,
                Method::POST,
                &format!("/coaching/checkins/{id}/response"),
            )
            .json(&json!({"still_valid": true, "note": "Yes, still my direction."})),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(answered["still_valid"], true);
    assert_eq!(answered["response_note"], "Yes, still my direction.");
    assert!(answered["responded_at"].is_string());

    // 7. A time tracker with a personal key posts fifty entries: a batch of forty, nine single
    //    new ones and one repeat of an entry from the batch, which replaces it.
    let key = app.create_api_key(&ada, "time tracker").await;
    let now = OffsetDateTime::now_utc();
    let entry = |n: usize, prefix: &str| {
        let foundation = FOUNDATIONS[(n * 5 + n / 7) % 6];
        let minutes = (n * 37) % 200 + 5;
        let at = now - Duration::minutes(20) - Duration::hours(6 * n as i64);
        (
            format!("{prefix}-{n:02}"),
            json!({
                "external_task_id": format!("{prefix}-{n:02}"),
                "task_label": format!("Entry {n}"),
                "foundation": foundation,
                "minutes": minutes,
                "occurred_at": rfc3339(at),
            }),
        )
    };
    let mut expected: BTreeMap<String, Value> = BTreeMap::new();
    let batch: Vec<(String, Value)> = (0..40).map(|n| entry(n, "batch")).collect();
    let report = json_body(
        send(
            app.with_key(&key.key, Method::POST, "/integration/task-mappings/batch")
                .json(&json!({"items": batch.iter().map(|(_, v)| v).collect::<Vec<_>>()})),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(report, json!({"created": 40, "updated": 0}));
    expected.extend(batch);
    for n in 40..49 {
        let (id, body) = entry(n, "single");
        let response = send(
            app.with_key(&key.key, Method::POST, "/integration/task-mappings")
                .json(&body),
        )
        .await;
        json_body(response, 201).await;
        expected.insert(id, body);
    }
    let repeat = json!({
        "external_task_id": "batch-07",
        "task_label": "Entry 7, corrected",
        "foundation": "long_term",
        "minutes": 333,
        "occurred_at": rfc3339(now - Duration::days(3)),
    });
    let previous = expected["batch-07"].clone();
    assert_ne!(previous["minutes"], repeat["minutes"]);
    let replaced = json_body(
        send(
            app.with_key(&key.key, Method::POST, "/integration/task-mappings")
                .json(&repeat),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(replaced["minutes"], 333);
    assert_eq!(replaced["user_id"], ada.user_id.as_str());
    expected.insert("batch-07".to_owned(), repeat);
    assert_eq!(expected.len(), 49);

    // 8. The work pattern of the last fourteen days, exact to the minute.
    let mut per_foundation: BTreeMap<String, i64> = BTreeMap::new();
    let mut per_date: BTreeMap<String, BTreeMap<String, i64>> = BTreeMap::new();
    for body in expected.values() {
        let foundation = body["foundation"].as_str().unwrap();
        let minutes = body["minutes"].as_i64().unwrap();
        *per_foundation.entry(foundation.to_owned()).or_insert(0) += minutes;
        let date = timestamp(&body["occurred_at"]).date().to_string();
        *per_date
            .entry(date)
            .or_default()
            .entry(foundation.to_owned())
            .or_insert(0) += minutes;
    }
    let total: i64 = per_foundation.values().sum();

    let patterns = json_body(get("/integration/work-patterns?days=14").await, 200).await;
    assert_eq!(patterns["days"], 14);
    assert_eq!(patterns["total_minutes"], total, "{patterns:#}");
    let foundations = patterns["foundations"].as_array().unwrap();
    for (f, key) in foundations.iter().zip(FOUNDATIONS) {
        assert_eq!(f["foundation"], key);
        let minutes = per_foundation.get(key).copied().unwrap_or(0);
        assert_eq!(f["minutes"], minutes, "{key}");
        #[allow(clippy::cast_precision_loss)]
        let share = minutes as f64 / total as f64;
        assert!((f["share"].as_f64().unwrap() - share).abs() < 1e-9, "{key}");
        assert_eq!(f["neglected"], share < 0.05, "{key}");
    }
    assert_eq!(foundations.len(), 6);
    let daily = patterns["daily"].as_array().unwrap();
    assert_eq!(daily.len(), 15, "fourteen days touch fifteen dates");
    let mut daily_total = 0;
    for (i, key) in FOUNDATIONS.iter().enumerate() {
        let sum: i64 = daily
            .iter()
            .map(|d| d["minutes"][key].as_i64().unwrap())
            .sum();
        assert_eq!(
            foundations[i]["minutes"], sum,
            "{key}: daily sums equal the total"
        );
        daily_total += sum;
    }
    assert_eq!(daily_total, total);
    for day in daily {
        let date = day["date"].as_str().unwrap();
        for key in FOUNDATIONS {
            let want = per_date
                .get(date)
                .and_then(|m| m.get(key))
                .copied()
                .unwrap_or(0);
            assert_eq!(day["minutes"][key], want, "{date} {key}");
        }
    }
    assert!(!patterns["summary"].as_str().unwrap().trim().is_empty());

    // The tracker's entries are Ada's: her list holds all forty-nine.
    let list = json_body(get("/integration/task-mappings?limit=1000").await, 200).await;
    assert_eq!(list["items"].as_array().unwrap().len(), 49);

    // 9. The next check-in observes where the time went, without a verdict.
    let next = json_body(post("/coaching/checkins").await, 201).await;
    let observation = next["observation"].as_str().expect("an observation");
    assert!(!observation.trim().is_empty());
    assert_eq!(verdict_in(observation), None, "{observation}");
    let checkins = json_body(get("/coaching/checkins").await, 200).await;
    let ids: Vec<&str> = checkins["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [next["id"].as_str().unwrap(), id], "newest first");
}
