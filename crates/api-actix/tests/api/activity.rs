//! The activity log: every request is recorded (asynchronously) with its user, source
//! (`web` cookie, `api` Bearer, `mcp` API key), method, path, status and duration, and named
//! actions carry their names; `/api/activity` pages through the caller's, `/summary` counts it.

use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::helpers::{OPERATOR_KEY, SignedIn, TestApp, USER_AGENT, count, send, spawn_app};

/// The caller's own activity through `/api/activity` (Bearer), newest first.
async fn my_activity(app: &TestApp, who: &SignedIn, query: &str) -> Value {
    let response = send(app.with_bearer(
        &who.access_jwt,
        Method::GET,
        &format!("/api/activity{query}"),
    ))
    .await;
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
}

#[tokio::test]
async fn each_request_is_recorded_with_its_source_method_path_and_status() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let key = app.create_api_key(&ada, "tracker").await;

    let web = app
        .as_browser(&ada, Method::GET, "/api/me/sessions")
        .header("X-Request-Id", "by-web");
    assert_eq!(send(web).await.status(), StatusCode::OK);
    let api = app
        .with_bearer(&ada.access_jwt, Method::GET, "/api/me/stats")
        .header("X-Request-Id", "by-api");
    assert_eq!(send(api).await.status(), StatusCode::OK);
    let mcp = app
        .with_key(&key.key, Method::GET, "/api/me")
        .header("X-Request-Id", "by-mcp");
    assert_eq!(send(mcp).await.status(), StatusCode::OK);
    let missing = uuid::Uuid::now_v7();
    let not_found = app
        .as_browser(&ada, Method::DELETE, &format!("/api/me/sessions/{missing}"))
        .header("X-Request-Id", "a-404");
    assert_eq!(send(not_found).await.status(), StatusCode::NOT_FOUND);
    // Revoking a session takes the browser session: with the Bearer token it is refused, and
    // the refusal is recorded as Ada's too.
    let refused = app
        .with_bearer(
            &ada.access_jwt,
            Method::DELETE,
            &format!("/api/me/sessions/{missing}"),
        )
        .header("X-Request-Id", "a-403");
    assert_eq!(send(refused).await.status(), StatusCode::FORBIDDEN);

    let cases = [
        ("by-web", "web", "GET", "/api/me/sessions".to_owned(), 200),
        ("by-api", "api", "GET", "/api/me/stats".to_owned(), 200),
        ("by-mcp", "mcp", "GET", "/api/me".to_owned(), 200),
        (
            "a-404",
            "web",
            "DELETE",
            format!("/api/me/sessions/{missing}"),
            404,
        ),
        (
            "a-403",
            "api",
            "DELETE",
            format!("/api/me/sessions/{missing}"),
            403,
        ),
    ];
    for (request_id, source, method, path, status) in cases {
        let entry = app.activity_entry(&ada.user_id, request_id).await;
        assert_eq!(entry["source"], source, "{entry}");
        assert_eq!(entry["method"], method, "{entry}");
        assert_eq!(entry["path"], path.as_str(), "{entry}");
        assert_eq!(entry["status"], status, "{entry}");
        assert_eq!(entry["user_id"], ada.user_id.as_str(), "{entry}");
        assert_eq!(entry["ip"], "127.0.0.1", "{entry}");
        assert_eq!(entry["user_agent"], USER_AGENT, "{entry}");
        assert!(
            entry["duration_ms"].as_i64().is_some_and(|d| d >= 0),
            "{entry}"
        );
        assert!(
            entry["action"].as_str().is_some_and(|a| !a.is_empty()),
            "{entry}"
        );
        assert!(
            entry["id"].is_string() && entry["at"].is_string(),
            "{entry}"
        );
    }

    // The same entries through the person's own list, in the contract's shape.
    let mine = my_activity(&app, &ada, "?limit=1000").await;
    let items = mine["items"].as_array().unwrap();
    for request_id in ["by-web", "by-api", "by-mcp", "a-404", "a-403"] {
        let entry = items
            .iter()
            .find(|i| i["request_id"] == request_id)
            .unwrap_or_else(|| panic!("{request_id}: {mine:#}"));
        for field in [
            "id",
            "at",
            "action",
            "method",
            "path",
            "status",
            "source",
            "duration_ms",
        ] {
            assert!(entry.get(field).is_some(), "{field} in {entry}");
        }
    }
}

#[tokio::test]
async fn a_request_without_credentials_is_recorded_without_a_person() {
    let app = spawn_app().await;

    let response = send(
        app.api
            .get(app.url("/api/me"))
            .header("X-Request-Id", "anonymous-1"),
    )
    .await;
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);

    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let response =
            send(app.with_key(OPERATOR_KEY, Method::GET, "/api/admin/activity?limit=1000")).await;
        let body: Value = response.json().await.unwrap();
        if let Some(entry) = body["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["request_id"] == "anonymous-1")
        {
            assert!(entry["user_id"].is_null(), "{entry}");
            assert!(entry["source"].is_null(), "{entry}");
            assert_eq!(entry["status"], 401, "{entry}");
            assert_eq!(entry["path"], "/api/me", "{entry}");
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never recorded: {body:#}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
}

#[tokio::test]
async fn requests_no_route_took_are_recorded_as_static_files_or_unmatched() {
    let app = spawn_app().await;
    let requests = [
        ("/js/api.js", "GET static"),
        ("/no-such-page.html", "GET unmatched"),
        // Under an API prefix whose scope has no such route.
        ("/api/me/nothing-here", "GET unmatched"),
    ];
    for (n, (path, _)) in requests.iter().enumerate() {
        let response = send(
            app.api
                .get(app.url(path))
                .header("X-Request-Id", format!("unrouted-{n}")),
        )
        .await;
        assert!(
            response.status() == 200 || response.status() == 404,
            "{path}"
        );
    }

    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let response =
            send(app.with_key(OPERATOR_KEY, Method::GET, "/api/admin/activity?limit=1000")).await;
        let body: Value = response.json().await.unwrap();
        let items = body["items"].as_array().unwrap();
        let actions: Vec<_> = (0..requests.len())
            .filter_map(|n| {
                items
                    .iter()
                    .find(|i| i["request_id"] == format!("unrouted-{n}"))
                    .map(|i| i["action"].clone())
            })
            .collect();
        if actions.len() == requests.len() {
            let want: Vec<_> = requests.iter().map(|(_, action)| *action).collect();
            assert_eq!(actions, want);
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never recorded: {body:#}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
}

#[tokio::test]
async fn sign_in_key_creation_refresh_and_revocations_are_recorded_as_named_actions() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let phone = app.dev_login("ada@example.org").await;
    let key = app.create_api_key(&ada, "tracker").await;
    let response = send(app.as_browser(&ada, Method::POST, "/api/auth/refresh")).await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    let response = send(app.as_browser(
        &ada,
        Method::DELETE,
        &format!("/api/me/api-keys/{}", key.id),
    ))
    .await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    let response = send(app.as_browser(
        &ada,
        Method::DELETE,
        &format!("/api/me/sessions/{}", phone.session_id),
    ))
    .await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);

    let wanted = [
        "auth.dev_login",
        "api_key.create",
        "auth.refresh",
        "api_key.revoke",
        "session.revoke",
    ];
    let items = app
        .activity_until(&ada.user_id, |items| {
            wanted
                .iter()
                .all(|w| items.iter().any(|i| i["action"] == *w))
        })
        .await;
    let refresh = items
        .iter()
        .find(|i| i["action"] == "auth.refresh")
        .unwrap();
    assert_eq!(refresh["source"], "web", "{refresh}");
    assert_eq!(refresh["status"], 204, "{refresh}");
    let create = items
        .iter()
        .find(|i| i["action"] == "api_key.create")
        .unwrap();
    // Keys are made in the browser only.
    assert_eq!(create["source"], "web", "{create}");
    assert_eq!(create["status"], 201, "{create}");
}

#[tokio::test]
async fn signing_out_is_recorded_in_the_persons_activity() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    let response = send(
        app.as_browser(&ada, Method::POST, "/api/auth/logout")
            .header("X-Request-Id", "logout-1"),
    )
    .await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);

    let entry = app.activity_entry(&ada.user_id, "logout-1").await;
    assert_eq!(entry["action"], "auth.logout", "{entry}");
    assert_eq!(entry["source"], "web", "{entry}");
}

#[tokio::test]
async fn the_activity_list_pages_newest_first() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    for n in 0..5 {
        let request = app
            .with_bearer(&ada.access_jwt, Method::GET, "/api/me")
            .header("X-Request-Id", format!("page-{n}"));
        assert_eq!(send(request).await.status(), StatusCode::OK);
    }
    app.activity_entry(&ada.user_id, "page-4").await;

    let first = my_activity(&app, &ada, "?limit=2").await;
    let first_items = first["items"].as_array().unwrap();
    assert_eq!(first_items.len(), 2, "{first:#}");
    let cursor = first["next_cursor"]
        .as_str()
        .expect("more pages")
        .to_owned();
    let second = my_activity(&app, &ada, &format!("?limit=2&before={cursor}")).await;
    let second_items = second["items"].as_array().unwrap();
    assert_eq!(second_items.len(), 2, "{second:#}");

    let ids: std::collections::HashSet<&str> = first_items
        .iter()
        .chain(second_items)
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 4, "pages do not overlap: {ids:?}");
    let ats: Vec<&str> = first_items
        .iter()
        .chain(second_items)
        .map(|i| i["at"].as_str().unwrap())
        .collect();
    let mut sorted = ats.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(ats, sorted, "newest first");

    // The whole log fits one default page: no cursor.
    let all = my_activity(&app, &ada, "").await;
    assert!(all["next_cursor"].is_null(), "{all:#}");
}

#[tokio::test]
async fn the_activity_summary_counts_the_callers_requests_by_action_source_and_day() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let key = app.create_api_key(&ada, "tracker").await;
    for _ in 0..3 {
        assert_eq!(
            send(app.with_key(&key.key, Method::GET, "/api/me"))
                .await
                .status(),
            StatusCode::OK
        );
    }
    assert_eq!(
        send(app.as_browser(&ada, Method::GET, "/api/me"))
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        app.me_status_with_bearer(&ada.access_jwt).await,
        StatusCode::OK
    );
    let logged = app
        .activity_until(&ada.user_id, |items| items.len() >= 7)
        .await;
    assert_eq!(
        logged.len(),
        7,
        "dev login, key creation (web), 3 key calls, 1 cookie call, 1 Bearer call: {logged:#?}"
    );

    let response = send(app.with_bearer(
        &ada.access_jwt,
        Method::GET,
        "/api/activity/summary?days=30",
    ))
    .await;
    assert_eq!(response.status(), StatusCode::OK);
    let summary: Value = response.json().await.unwrap();

    assert_eq!(summary["days"], 30, "{summary}");
    assert_eq!(summary["by_source"]["mcp"], 3, "{summary}");
    assert_eq!(summary["by_source"]["web"], 3, "{summary}");
    assert_eq!(summary["by_source"]["api"], 1, "{summary}");
    assert_eq!(summary["by_action"]["api_key.create"], 1, "{summary}");
    assert_eq!(summary["by_action"]["auth.dev_login"], 1, "{summary}");
    let by_day = summary["by_day"].as_array().unwrap();
    let total: i64 = by_day.iter().map(|d| d["count"].as_i64().unwrap()).sum();
    assert_eq!(total, 7, "{summary}");
    let today = time::OffsetDateTime::now_utc().date().to_string();
    assert!(
        by_day.iter().any(|d| d["date"] == today.as_str()),
        "{summary}"
    );

    // The default window is 30 days.
    let response =
        send(app.with_bearer(&ada.access_jwt, Method::GET, "/api/activity/summary")).await;
    let default: Value = response.json().await.unwrap();
    assert_eq!(default["days"], 30);
}

#[tokio::test]
async fn a_signed_in_callers_rejected_request_is_still_recorded_as_theirs() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    let bad_query = app
        .with_bearer(&ada.access_jwt, Method::GET, "/api/activity?limit=abc")
        .header("X-Request-Id", "bad-query");
    assert_eq!(send(bad_query).await.status(), StatusCode::BAD_REQUEST);
    let bad_body = app
        .with_bearer(&ada.access_jwt, Method::POST, "/integration/task-mappings")
        .header("X-Request-Id", "bad-body")
        .header("Content-Type", "application/json")
        .body("{");
    assert_eq!(send(bad_body).await.status(), StatusCode::BAD_REQUEST);
    let browser_bad_body = app
        .as_browser(&ada, Method::POST, "/api/me/api-keys")
        .header("X-Request-Id", "browser-bad-body")
        .header("Content-Type", "application/json")
        .body("{");
    assert_eq!(
        send(browser_bad_body).await.status(),
        StatusCode::BAD_REQUEST
    );
    // Refused for want of the session cookie: still hers.
    let session_required = app
        .with_bearer(&ada.access_jwt, Method::POST, "/api/me/api-keys")
        .header("X-Request-Id", "session-required")
        .json(&serde_json::json!({"name": "from a script"}));
    assert_eq!(send(session_required).await.status(), StatusCode::FORBIDDEN);

    for (request_id, status, source) in [
        ("bad-query", 400, "api"),
        ("bad-body", 400, "api"),
        ("browser-bad-body", 400, "web"),
        ("session-required", 403, "api"),
    ] {
        let entry = app.activity_entry(&ada.user_id, request_id).await;
        assert_eq!(entry["status"], status, "{entry}");
        assert_eq!(entry["source"], source, "{entry}");
    }
}

#[tokio::test]
async fn each_entry_keeps_the_peers_address_whatever_forwarding_headers_say() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    let spoofed = app
        .with_bearer(&ada.access_jwt, Method::GET, "/api/me")
        .header("X-Request-Id", "spoofed")
        .header("X-Forwarded-For", "203.0.113.9")
        .header("Forwarded", "for=203.0.113.10")
        .header("X-Real-IP", "203.0.113.11");
    assert_eq!(send(spoofed).await.status(), StatusCode::OK);

    let entry = app.activity_entry(&ada.user_id, "spoofed").await;
    assert_eq!(entry["ip"], "127.0.0.1", "{entry}");
    // Nor is any of the written addresses stored anywhere in the log.
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) AS n FROM activity_log WHERE ip LIKE '203.0.113.%'"
        ),
        0
    );
}
