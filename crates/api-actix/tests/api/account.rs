//! The account: `/api/me` (read and delete with everything in it), its export and its stats.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{
    OPERATOR_KEY, SignedIn, TestApp, USER_AGENT, assert_error, assert_session_cookies_cleared,
    count, literal, send, set_cookies, spawn_app, tables_with_user_id, where_stored,
};

fn is_rfc3339_utc(value: &Value) -> bool {
    value.as_str().is_some_and(|s| {
        s.ends_with('Z')
            && time::OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339)
                .is_ok()
    })
}

#[tokio::test]
async fn me_describes_the_caller() {
    let app = spawn_app().await;
    let ada = app.dev_login("Ada@Example.org").await;

    let response = send(app.as_browser(&ada, Method::GET, "/api/me")).await;

    assert_eq!(response.status(), StatusCode::OK);
    let me: Value = response.json().await.unwrap();
    for field in [
        "id",
        "email",
        "name",
        "is_admin",
        "created_at",
        "last_login_at",
    ] {
        assert!(me.get(field).is_some(), "{field} in {me}");
    }
    assert_eq!(me["id"], ada.user_id.as_str());
    assert!(uuid::Uuid::parse_str(&ada.user_id).is_ok());
    assert_eq!(me["email"], "ada@example.org");
    assert_eq!(me["is_admin"], false);
    assert!(is_rfc3339_utc(&me["created_at"]), "{me}");
    assert!(is_rfc3339_utc(&me["last_login_at"]), "{me}");
    assert_eq!(me, ada.user, "dev login answers with the same user");
}

#[tokio::test]
async fn signing_in_again_with_the_same_email_is_the_same_person() {
    let app = spawn_app().await;
    let first = app.dev_login("ada@example.org").await;
    let again = app.dev_login("ADA@example.org").await;
    let other = app.dev_login("bob@example.org").await;

    assert_eq!(first.user_id, again.user_id);
    assert_ne!(first.user_id, other.user_id);
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) AS n FROM users WHERE email LIKE '%@example.org'"
        ),
        2
    );
}

/// Ada with two sessions, a key and some activity; Bob likewise.
async fn two_people(app: &TestApp) -> (SignedIn, SignedIn, SignedIn) {
    let ada = app.dev_login("ada@example.org").await;
    let ada_phone = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;
    for who in [&ada, &bob] {
        let key = app.create_api_key(who, "tracker").await;
        assert_eq!(
            send(app.with_key(&key.key, Method::GET, "/api/me"))
                .await
                .status(),
            StatusCode::OK
        );
        assert_eq!(
            send(app.as_browser(who, Method::GET, "/api/me/sessions"))
                .await
                .status(),
            StatusCode::OK
        );
    }
    app.flush_activity().await;
    (ada, ada_phone, bob)
}

#[tokio::test]
async fn the_export_holds_the_callers_records_and_nothing_of_anyone_else() {
    let app = spawn_app().await;
    let (ada, ada_phone, bob) = two_people(&app).await;
    let bob_keys: Vec<Value> =
        send(app.with_bearer(&bob.access_jwt, Method::GET, "/api/me/api-keys"))
            .await
            .json()
            .await
            .unwrap();

    let response = send(app.as_browser(&ada, Method::GET, "/api/me/export")).await;
    assert_eq!(response.status(), StatusCode::OK);
    let disposition = response
        .headers()
        .get("content-disposition")
        .map(|v| v.to_str().unwrap().to_owned());
    assert!(
        disposition.is_some_and(|d| d.starts_with("attachment")),
        "offered as a download"
    );
    let text = response.text().await.unwrap();
    let export: Value = serde_json::from_str(&text).unwrap();

    assert_eq!(export["user"]["id"], ada.user_id.as_str());
    assert_eq!(export["user"]["email"], "ada@example.org");
    let sessions = export["sessions"].as_array().expect("sessions");
    let session_ids: Vec<&str> = sessions.iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert!(
        session_ids.contains(&ada.session_id.as_str())
            && session_ids.contains(&ada_phone.session_id.as_str()),
        "{export:#}"
    );
    let keys = export["api_keys"].as_array().expect("api_keys");
    assert_eq!(keys.len(), 1, "{export:#}");
    assert!(
        keys[0].get("key").is_none() && keys[0].get("key_hash").is_none(),
        "{export:#}"
    );
    let activity = export["activity"].as_array().expect("activity");
    assert!(
        activity.len() >= 4,
        "sign-in, key creation, key use, session list: {export:#}"
    );
    assert!(
        activity
            .iter()
            .all(|a| a["user_id"] == ada.user_id.as_str()),
        "{export:#}"
    );
    // Every stored detail of a request is in the export, where it came from included.
    assert!(
        activity
            .iter()
            .all(|a| a["ip"] == "127.0.0.1" && a["user_agent"] == USER_AGENT),
        "{export:#}"
    );
    for kind in [
        "conversations",
        "revisions",
        "reflection",
        "checkins",
        "task_mappings",
    ] {
        assert!(export[kind].is_array(), "{kind} in the export: {export:#}");
    }

    // Nothing of Bob's: not his id, e-mail, session, key, nor any of his requests.
    let bob_key_id = bob_keys[0]["id"].as_str().unwrap();
    let bob_prefix = bob_keys[0]["prefix"].as_str().unwrap();
    for trace in [
        bob.user_id.as_str(),
        "bob@example.org",
        bob.session_id.as_str(),
        bob_key_id,
        bob_prefix,
    ] {
        assert!(!text.contains(trace), "{trace} in Ada's export");
    }
    // Nor any secret of Ada's.
    for secret in [ada.refresh_token.as_str(), ada.access_jwt.as_str()] {
        assert!(!text.contains(secret), "a secret in the export");
    }
}

#[tokio::test]
async fn the_stats_count_the_callers_records() {
    let app = spawn_app().await;
    let (ada, _phone, _bob) = two_people(&app).await;
    // One call with the Bearer token, so each source is counted.
    assert_eq!(
        app.me_status_with_bearer(&ada.access_jwt).await,
        StatusCode::OK
    );
    let logged = app
        .activity_until(&ada.user_id, |items| items.len() >= 6)
        .await;
    let count_of = |source: &str| logged.iter().filter(|i| i["source"] == source).count();

    let response = send(app.with_bearer(&ada.access_jwt, Method::GET, "/api/me/stats")).await;
    assert_eq!(response.status(), StatusCode::OK);
    let stats: Value = response.json().await.unwrap();

    // dev login twice (web), key creation (web: keys are made in the browser), key use (mcp),
    // session list (web), the Bearer call (api).
    assert_eq!(logged.len(), 6, "{logged:#?}");
    assert_eq!(stats["total_requests"], 6, "{stats}");
    assert_eq!(stats["requests_last_30_days"], 6, "{stats}");
    assert_eq!(stats["by_source"]["web"], count_of("web"), "{stats}");
    assert_eq!(stats["by_source"]["api"], count_of("api"), "{stats}");
    assert_eq!(stats["by_source"]["mcp"], count_of("mcp"), "{stats}");
    assert_eq!(stats["by_source"]["web"], 4, "{stats}");
    assert_eq!(stats["by_source"]["api"], 1, "{stats}");
    assert_eq!(stats["by_source"]["mcp"], 1, "{stats}");
    assert_eq!(stats["task_mappings"], 0, "{stats}");
    assert_eq!(stats["checkins"], 0, "{stats}");
    assert_eq!(stats["reflection_turns"], 0, "{stats}");
    assert!(is_rfc3339_utc(&stats["first_activity_at"]), "{stats}");
    assert!(is_rfc3339_utc(&stats["last_activity_at"]), "{stats}");
    assert!(stats["first_activity_at"].as_str() <= stats["last_activity_at"].as_str());
}

#[tokio::test]
async fn a_new_persons_stats_start_at_their_sign_in() {
    let app = spawn_app().await;
    let response = send(app.with_key(OPERATOR_KEY, Method::GET, "/api/me/stats")).await;
    assert_eq!(response.status(), StatusCode::OK);
    let stats: Value = response.json().await.unwrap();

    assert_eq!(stats["total_requests"], 0, "{stats}");
    assert_eq!(
        stats["by_source"],
        serde_json::json!({"web": 0, "api": 0, "mcp": 0}),
        "{stats}"
    );
    assert!(
        stats["first_activity_at"].is_null() && stats["last_activity_at"].is_null(),
        "{stats}"
    );
}

/// Rows that mention `user_id` anywhere, and rows that point at it through a `user_id` column.
fn traces_of(app: &TestApp, who: &SignedIn, extra: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for table in tables_with_user_id(app) {
        let n = count(
            app,
            &format!(
                r#"SELECT COUNT(*) AS n FROM "{table}" WHERE user_id = {}"#,
                literal(&who.user_id)
            ),
        );
        if n > 0 {
            found.push(format!("{n} row(s) of {table} with user_id"));
        }
    }
    let n = count(
        app,
        &format!(
            "SELECT COUNT(*) AS n FROM users WHERE id = {}",
            literal(&who.user_id)
        ),
    );
    if n > 0 {
        found.push("the users row".to_owned());
    }
    for needle in [
        who.user_id.as_str(),
        who.email.as_str(),
        who.session_id.as_str(),
    ]
    .iter()
    .chain(extra)
    {
        for place in where_stored(app, needle) {
            found.push(format!("{needle:?} in {place}"));
        }
    }
    found
}

#[tokio::test]
async fn deleting_the_account_clears_the_cookies_and_leaves_no_row_of_the_person() {
    let app = spawn_app().await;
    let (ada, ada_phone, bob) = two_people(&app).await;
    let ada_key = app.create_api_key(&ada, "another").await;
    assert!(
        !traces_of(&app, &ada, &[]).is_empty(),
        "the check finds Ada before the deletion"
    );

    let response = send(app.as_browser(&ada, Method::DELETE, "/api/me")).await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert_session_cookies_cleared(&set_cookies(response.headers()));
    // Let any activity still queued be written before looking.
    app.flush_activity().await;

    let left = traces_of(
        &app,
        &ada,
        &[ada_phone.session_id.as_str(), ada_key.id.as_str()],
    );
    assert!(left.is_empty(), "left behind: {left:#?}");
    let sessions = count(
        &app,
        &format!(
            "SELECT COUNT(*) AS n FROM refresh_tokens WHERE session_id IN ({}, {})",
            literal(&ada.session_id),
            literal(&ada_phone.session_id)
        ),
    );
    assert_eq!(sessions, 0, "refresh tokens of Ada's sessions");

    // Every credential of Ada's is dead.
    assert_eq!(
        app.me_status_with_bearer(&ada.access_jwt).await,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        app.me_status_with_bearer(&ada_phone.access_jwt).await,
        StatusCode::UNAUTHORIZED
    );
    let response = send(app.with_key(&ada_key.key, Method::GET, "/api/me")).await;
    assert_error(response, 401, "unauthenticated").await;
    // Bob is untouched.
    assert!(!traces_of(&app, &bob, &[]).is_empty());
    assert_eq!(
        app.me_status_with_bearer(&bob.access_jwt).await,
        StatusCode::OK
    );
    // Signing in again makes a new person.
    let again = app.dev_login("ada@example.org").await;
    assert_ne!(again.user_id, ada.user_id);
}

/// What the account of `who` holds, as the database and the API show it.
async fn account_of(app: &TestApp, who: &SignedIn) -> (i64, Value, Value) {
    let users = count(
        app,
        &format!(
            "SELECT COUNT(*) AS n FROM users WHERE id = {}",
            literal(&who.user_id)
        ),
    );
    // Each key as made (`last_used_at` moves when a key is shown, even when refused).
    let keys: Value = send(app.as_browser(who, Method::GET, "/api/me/api-keys"))
        .await
        .json()
        .await
        .unwrap();
    let keys = keys
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            json!([
                k["id"],
                k["name"],
                k["prefix"],
                k["scopes"],
                k["expires_at"],
                k["created_at"]
            ])
        })
        .collect();
    let sessions: Value = send(app.as_browser(who, Method::GET, "/api/me/sessions"))
        .await
        .json()
        .await
        .unwrap();
    let session_ids = sessions
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].clone())
        .collect();
    (users, keys, session_ids)
}

#[tokio::test]
async fn deleting_the_account_with_a_bearer_token_or_an_api_key_is_refused_and_deletes_nothing() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;
    let ada_key = app.create_api_key(&ada, "tracker").await;
    let bob_key = app.create_api_key(&bob, "tracker").await;
    let before = (account_of(&app, &ada).await, account_of(&app, &bob).await);

    // docs/api.md, "Least privilege": the account goes only from a browser session.
    let response = send(app.with_bearer(&ada.access_jwt, Method::DELETE, "/api/me")).await;
    assert_error(response, 403, "session_required").await;
    let response = send(app.with_key(&bob_key.key, Method::DELETE, "/api/me")).await;
    assert_error(response, 403, "session_required").await;
    let response = send(app.with_key(&ada_key.key, Method::DELETE, "/api/me")).await;
    assert_error(response, 403, "session_required").await;
    // A Bearer token wins over the cookie sent beside it (docs/api.md's order), so it is refused too.
    let response = send(
        app.as_browser(&ada, Method::DELETE, "/api/me")
            .header("Authorization", format!("Bearer {}", ada.access_jwt)),
    )
    .await;
    assert_error(response, 403, "session_required").await;
    app.flush_activity().await;

    for who in [&ada, &bob] {
        let left = traces_of(&app, who, &[]);
        assert!(!left.is_empty(), "{} is still there", who.email);
        assert_eq!(
            app.me_status_with_bearer(&who.access_jwt).await,
            StatusCode::OK
        );
    }
    assert_eq!(
        (account_of(&app, &ada).await, account_of(&app, &bob).await),
        before,
        "nothing was deleted"
    );
    for key in [&ada_key, &bob_key] {
        let response = send(app.with_key(&key.key, Method::GET, "/api/me")).await;
        assert_eq!(response.status(), StatusCode::OK, "the keys still work");
    }
    // The browser session may.
    let response = send(app.as_browser(&ada, Method::DELETE, "/api/me")).await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    app.flush_activity().await;
    let left = traces_of(&app, &ada, &[]);
    assert!(left.is_empty(), "left behind: {left:#?}");
    assert_eq!(
        app.me_status_with_bearer(&ada.access_jwt).await,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_an_account_while_its_requests_are_being_logged_loses_no_one_elses_activity() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;
    app.flush_activity().await;

    // Ada's requests are in flight while her account goes; Bob's alongside, sharing the
    // activity queue (and so its batches) with hers.
    let mut ada_tasks = Vec::new();
    let mut bob_tasks = Vec::new();
    for n in 0..60 {
        let ada_request = app.as_browser(&ada, Method::GET, "/api/me/export");
        ada_tasks.push(tokio::spawn(async move {
            ada_request.send().await.map(|r| r.status())
        }));
        let bob_request = app
            .with_bearer(&bob.access_jwt, Method::GET, "/api/me")
            .header("X-Request-Id", format!("bob-{n}"));
        bob_tasks.push(tokio::spawn(async move {
            bob_request.send().await.unwrap().status()
        }));
        if n == 30 {
            let response = send(app.as_browser(&ada, Method::DELETE, "/api/me")).await;
            assert_eq!(response.status(), StatusCode::NO_CONTENT);
        }
    }
    for task in bob_tasks {
        assert_eq!(task.await.unwrap(), StatusCode::OK);
    }
    for task in ada_tasks {
        let _ = task.await.unwrap();
    }

    // Every one of Bob's 60 requests is logged (read with the operator key).
    let bobs = app
        .activity_until(&bob.user_id, |items| {
            (0..60).all(|n| {
                items
                    .iter()
                    .any(|i| i["request_id"] == format!("bob-{n}").as_str())
            })
        })
        .await;
    assert!(bobs.len() >= 60);
    let left = traces_of(&app, &ada, &[]);
    assert!(left.is_empty(), "left behind: {left:#?}");
}
