//! Least privilege (docs/api.md, "Authentication and account"): a personal API key acts as its owner
//! only within its scopes (`integration`, `profile:read`, `coaching`; 403 `insufficient_scope`
//! elsewhere), never as an admin, and not at all once expired (401); managing credentials and
//! the account needs the browser session (403 `session_required` with any key or Bearer token).
//! Each attack is made for real and shown to change nothing; the scope matrix walks every
//! operation of `/openapi.json` with a key of each single scope, checks each answer against the
//! route's policy (its only access declaration) and is kept in `scope_matrix.md` (generated:
//! rewritten when `UPDATE_SCOPE_MATRIX=1`, compared otherwise).

use std::time::Duration;

use api_actix::auth::policy::Policy;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{
    ADMIN_EMAIL, GUT_ANSWERS, OPERATOR_KEY, SignedIn, TestApp, affirm, assert_error,
    assert_invalid, count, detail_fields, discover, execute, json_body, literal, send, spawn_app,
    timestamp,
};

/// The scopes of a personal key (docs/api.md).
const SCOPES: [&str; 3] = ["integration", "profile:read", "coaching"];

/// `who`'s keys as listed in their browser: `(id, name, scopes, expires_at)`, by id.
async fn keys_of(app: &TestApp, who: &SignedIn) -> Vec<(String, String, Value, Value)> {
    let keys = json_body(
        send(app.as_browser(who, Method::GET, "/api/me/api-keys")).await,
        200,
    )
    .await;
    let mut keys: Vec<_> = keys
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["id"].as_str().unwrap().to_owned(),
                k["name"].as_str().unwrap().to_owned(),
                k["scopes"].clone(),
                k["expires_at"].clone(),
            )
        })
        .collect();
    keys.sort_by(|a, b| a.0.cmp(&b.0));
    keys
}

/// Every key row of the database, whoever owns it.
fn key_rows(app: &TestApp) -> i64 {
    count(app, "SELECT COUNT(*) AS n FROM api_keys")
}

/// `who`'s session ids as listed in their browser, sorted.
async fn sessions_of(app: &TestApp, who: &SignedIn) -> Vec<String> {
    let sessions = json_body(
        send(app.as_browser(who, Method::GET, "/api/me/sessions")).await,
        200,
    )
    .await;
    let mut ids: Vec<String> = sessions
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

/// A task mapping with this external id.
fn mapping(external_task_id: &str) -> Value {
    json!({
        "external_task_id": external_task_id,
        "foundation": "mission",
        "minutes": 25,
        "occurred_at": "2026-11-20T10:00:00Z",
    })
}

// ---------------------------------------------------------------------------------------------
// Credential and account management: the browser session's alone

#[tokio::test]
async fn a_key_cannot_mint_a_key_whatever_its_scopes() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let mut keys = Vec::new();
    for scope in SCOPES {
        keys.push(app.create_scoped_key(&ada, scope, &[scope]).await);
    }
    keys.push(app.create_api_key(&ada, "everything").await);
    let before = keys_of(&app, &ada).await;
    assert_eq!(before.len(), 4);
    let rows = key_rows(&app);

    let body = json!({"name": "minted by a key", "scopes": SCOPES});
    for key in &keys {
        // The session check comes before the scope check: `session_required`, whatever the
        // key may otherwise do.
        let response = send(
            app.with_key(&key.key, Method::POST, "/api/me/api-keys")
                .json(&body),
        )
        .await;
        let error = assert_error(response, 403, "session_required").await;
        assert!(error.get("key").is_none(), "{error}");
        // With the service's own Origin, as if from its pages: still a key.
        let response = send(
            app.with_key(&key.key, Method::POST, "/api/me/api-keys")
                .header("Origin", app.origin())
                .json(&body),
        )
        .await;
        assert_error(response, 403, "session_required").await;
        // Beside Ada's own session cookie: the key is the credential (docs/api.md's order), and a
        // key is refused.
        let response = send(
            app.as_browser(&ada, Method::POST, "/api/me/api-keys")
                .header("X-API-Key", &key.key)
                .json(&body),
        )
        .await;
        assert_error(response, 403, "session_required").await;
    }
    // Nor the operator key, for the synthetic admin.
    let response = send(
        app.with_key(OPERATOR_KEY, Method::POST, "/api/me/api-keys")
            .json(&body),
    )
    .await;
    assert_error(response, 403, "session_required").await;

    assert_eq!(keys_of(&app, &ada).await, before, "no key was made");
    assert_eq!(key_rows(&app), rows, "no key was made for anyone");
    // The browser session may.
    let made = app.create_api_key(&ada, "from the browser").await;
    assert_eq!(made.body["scopes"], json!(SCOPES));
    assert_eq!(keys_of(&app, &ada).await.len(), 5);
}

#[tokio::test]
async fn a_key_cannot_export_or_delete_the_account_or_revoke_a_credential() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let phone = app.dev_login("ada@example.org").await;
    let key = app.create_api_key(&ada, "everything").await;
    json_body(
        send(
            app.with_key(&key.key, Method::POST, "/integration/task-mappings")
                .json(&mapping("ada-task")),
        )
        .await,
        201,
    )
    .await;
    let keys = keys_of(&app, &ada).await;
    let sessions = sessions_of(&app, &ada).await;
    assert_eq!(sessions.len(), 2);

    let attempts = [
        (Method::GET, "/api/me/export".to_owned()),
        (Method::DELETE, "/api/me".to_owned()),
        (
            Method::DELETE,
            format!("/api/me/sessions/{}", phone.session_id),
        ),
        (Method::DELETE, format!("/api/me/api-keys/{}", key.id)),
    ];
    for keyholder in [key.key.as_str(), OPERATOR_KEY] {
        for (method, path) in &attempts {
            let response = send(app.with_key(keyholder, method.clone(), path)).await;
            let error = assert_error(response, 403, "session_required").await;
            let text = error.to_string();
            assert!(
                !text.contains("ada@example.org") && !text.contains("ada-task"),
                "{method} {path}: nothing of Ada's in {text}"
            );
        }
    }

    // The account is whole: the person, both sessions, the key, the data.
    assert_eq!(
        count(
            &app,
            &format!(
                "SELECT COUNT(*) AS n FROM users WHERE id = {}",
                literal(&ada.user_id)
            )
        ),
        1
    );
    assert_eq!(sessions_of(&app, &ada).await, sessions);
    assert_eq!(keys_of(&app, &ada).await, keys);
    assert_eq!(
        app.me_status_with_bearer(&phone.access_jwt).await,
        StatusCode::OK
    );
    let response = send(app.with_key(&key.key, Method::GET, "/api/me")).await;
    assert_eq!(response.status(), StatusCode::OK, "the key still works");
    let export = json_body(
        send(app.as_browser(&ada, Method::GET, "/api/me/export")).await,
        200,
    )
    .await;
    assert_eq!(export["user"]["id"], ada.user_id.as_str());
    assert!(export.to_string().contains("ada-task"), "{export:#}");
}

#[tokio::test]
async fn a_bearer_token_cannot_create_a_key_revoke_a_session_or_delete_the_account() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let phone = app.dev_login("ada@example.org").await;
    let key = app.create_api_key(&ada, "tracker").await;
    let keys = keys_of(&app, &ada).await;
    let sessions = sessions_of(&app, &ada).await;
    let rows = key_rows(&app);

    let attempts = [
        (
            Method::POST,
            "/api/me/api-keys".to_owned(),
            Some(json!({"name": "from a script", "scopes": SCOPES})),
        ),
        (
            Method::DELETE,
            format!("/api/me/sessions/{}", phone.session_id),
            None,
        ),
        (Method::DELETE, format!("/api/me/api-keys/{}", key.id), None),
        (Method::GET, "/api/me/export".to_owned(), None),
        (Method::DELETE, "/api/me".to_owned(), None),
    ];
    for (method, path, body) in &attempts {
        let requests = [
            app.with_bearer(&ada.access_jwt, method.clone(), path),
            // From the service's own Origin: still a Bearer token.
            app.with_bearer(&ada.access_jwt, method.clone(), path)
                .header("Origin", app.origin()),
            // The other session's token.
            app.with_bearer(&phone.access_jwt, method.clone(), path),
            // Beside the session cookie, the Bearer token is the credential (docs/api.md's order).
            app.as_browser(&ada, method.clone(), path)
                .header("Authorization", format!("Bearer {}", ada.access_jwt)),
        ];
        for request in requests {
            let request = match body {
                Some(body) => request.json(body),
                None => request,
            };
            assert_error(send(request).await, 403, "session_required").await;
        }
    }

    assert_eq!(keys_of(&app, &ada).await, keys, "no key made or revoked");
    assert_eq!(key_rows(&app), rows);
    assert_eq!(
        sessions_of(&app, &ada).await,
        sessions,
        "no session revoked"
    );
    for token in [&ada.access_jwt, &phone.access_jwt] {
        assert_eq!(app.me_status_with_bearer(token).await, StatusCode::OK);
    }
    let response = send(app.with_key(&key.key, Method::GET, "/api/me")).await;
    assert_eq!(response.status(), StatusCode::OK, "the key still works");
}

// ---------------------------------------------------------------------------------------------
// Never an admin

#[tokio::test]
async fn an_admins_personal_key_is_never_an_admin_while_the_admins_browser_is() {
    let app = spawn_app().await;
    // Ada is due a check-in: what a batch run would change.
    let ada = app.dev_login("ada@example.org").await;
    discover(&app, &ada.access_jwt, GUT_ANSWERS).await;
    affirm(&app, &ada.access_jwt).await;
    let admin = app.admin_login(ADMIN_EMAIL).await;
    assert_eq!(admin.user["is_admin"], true);
    let key = app.create_api_key(&admin, "the admin's assistant").await;

    let me = json_body(
        send(app.with_key(&key.key, Method::GET, "/api/me")).await,
        200,
    )
    .await;
    assert_eq!(me["id"], admin.user_id.as_str());
    assert_eq!(me["is_admin"], false, "{me}");
    for (method, path) in [
        (Method::POST, "/coaching/run"),
        (Method::GET, "/api/admin/activity"),
        (
            Method::GET,
            &*format!("/api/admin/activity?user_id={}", ada.user_id),
        ),
    ] {
        let response = send(app.with_key(&key.key, method.clone(), path)).await;
        let error = assert_error(response, 403, "insufficient_scope").await;
        assert!(!error.to_string().contains(&ada.user_id), "{path}: {error}");
    }
    let checkins = json_body(
        send(app.with_bearer(&ada.access_jwt, Method::GET, "/coaching/checkins")).await,
        200,
    )
    .await;
    assert_eq!(checkins["items"], json!([]), "the key ran nothing");

    // The same admin, in the browser.
    let report = json_body(
        send(app.as_browser(&admin, Method::POST, "/coaching/run")).await,
        200,
    )
    .await;
    assert_eq!(report["created"], 1, "{report}");
    let activity = json_body(
        send(app.as_browser(
            &admin,
            Method::GET,
            &format!("/api/admin/activity?user_id={}&limit=1000", ada.user_id),
        ))
        .await,
        200,
    )
    .await;
    assert!(
        !activity["items"].as_array().unwrap().is_empty(),
        "{activity:#}"
    );
}

// ---------------------------------------------------------------------------------------------
// Scopes and lifetimes as asked for

#[tokio::test]
async fn a_key_has_the_integration_scope_unless_asked_otherwise_and_refused_requests_make_nothing()
{
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let create = |body: Value| {
        send(
            app.as_browser(&ada, Method::POST, "/api/me/api-keys")
                .json(&body),
        )
    };

    let plain = json_body(create(json!({"name": "plain"})).await, 201).await;
    assert_eq!(plain["scopes"], json!(["integration"]), "{plain}");
    assert!(plain["expires_at"].is_null(), "{plain}");
    let all = json_body(
        create(json!({"name": "all", "scopes": ["coaching", "integration", "profile:read"]})).await,
        201,
    )
    .await;
    let mut scopes: Vec<&str> = all["scopes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    scopes.sort_unstable();
    assert_eq!(scopes, ["coaching", "integration", "profile:read"], "{all}");
    let listed = keys_of(&app, &ada).await;
    let plain_listed = listed.iter().find(|k| k.0 == plain["id"]).unwrap();
    assert_eq!(plain_listed.2, json!(["integration"]));
    assert!(plain_listed.3.is_null());
    let rows = key_rows(&app);

    // Refused, each naming the field; nothing made.
    for (body, field) in [
        (json!({"name": "none", "scopes": []}), "scopes"),
        (json!({"name": "one", "scopes": "integration"}), "scopes"),
        (json!({"name": "admin", "scopes": ["admin"]}), "scopes[0]"),
        (
            json!({"name": "more", "scopes": ["integration", "everything"]}),
            "scopes[1]",
        ),
        (
            json!({"name": "upper", "scopes": ["Integration"]}),
            "scopes[0]",
        ),
        (
            json!({"name": "zero", "expires_in_days": 0}),
            "expires_in_days",
        ),
        (
            json!({"name": "year+1", "expires_in_days": 366}),
            "expires_in_days",
        ),
        (
            json!({"name": "past", "expires_in_days": -1}),
            "expires_in_days",
        ),
        (
            json!({"name": "half", "expires_in_days": 1.5}),
            "expires_in_days",
        ),
        (
            json!({"name": "text", "expires_in_days": "30"}),
            "expires_in_days",
        ),
    ] {
        let response = create(body.clone()).await;
        let error = assert_invalid(response, field).await;
        assert!(
            detail_fields(&error)
                .iter()
                .all(|f| f.starts_with(field.split('[').next().unwrap())),
            "{body}: {error}"
        );
    }
    assert_eq!(key_rows(&app), rows, "nothing was made");
    assert_eq!(keys_of(&app, &ada).await, listed);

    // A lifetime in days from now, at both ends of the range.
    for days in [1_i64, 30, 365] {
        let asked = time::OffsetDateTime::now_utc();
        let made = json_body(
            create(json!({"name": format!("{days} days"), "expires_in_days": days})).await,
            201,
        )
        .await;
        let answered = time::OffsetDateTime::now_utc();
        let expires_at = timestamp(&made["expires_at"]);
        let lifetime = time::Duration::days(days);
        assert!(
            expires_at >= asked + lifetime - time::Duration::seconds(1)
                && expires_at <= answered + lifetime + time::Duration::seconds(1),
            "{days} days from {asked}: {made}"
        );
        assert_eq!(made["scopes"], json!(["integration"]), "{made}");
        let listed = keys_of(&app, &ada).await;
        let listed = listed.iter().find(|k| k.0 == made["id"]).unwrap();
        assert_eq!(
            timestamp(&listed.3),
            expires_at,
            "the list says the same: {listed:?}"
        );
        // Not yet expired.
        let response =
            send(app.with_key(made["key"].as_str().unwrap(), Method::GET, "/api/me")).await;
        assert_eq!(response.status(), StatusCode::OK);
    }
    let null = json_body(
        create(json!({"name": "forever", "expires_in_days": null})).await,
        201,
    )
    .await;
    assert!(null["expires_at"].is_null(), "{null}");
}

#[tokio::test]
async fn an_expired_key_is_unauthenticated_even_if_it_was_just_used() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let unused = app.create_api_key(&ada, "never used").await;
    let used = app.create_api_key(&ada, "used").await;
    let kept = app.create_api_key(&ada, "kept").await;
    let response = send(app.with_key(&used.key, Method::GET, "/api/me")).await;
    assert_eq!(response.status(), StatusCode::OK);

    // A day cannot pass in a test: the two keys' expiry is moved to their creation instant,
    // which is past.
    for key in [&unused, &used] {
        let changed = execute(
            &app,
            &format!(
                "UPDATE api_keys SET expires_at = created_at WHERE id = {}",
                literal(&key.id)
            ),
        );
        assert_eq!(changed, 1);
    }

    let response = send(app.with_key(&unused.key, Method::GET, "/api/me")).await;
    assert_error(response, 401, "unauthenticated").await;
    // The key just used may be remembered for the credential cache's expiry (1 s by default),
    // never longer.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    loop {
        let response = send(app.with_key(&used.key, Method::GET, "/api/me")).await;
        if response.status() == StatusCode::UNAUTHORIZED {
            assert_error(response, 401, "unauthenticated").await;
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the expired key still works: {}",
            response.status()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for key in [&unused, &used] {
        // Invalid credentials are 401 before any question of scope or session.
        for (method, path) in [
            (Method::GET, "/integration/foundations"),
            (Method::GET, "/discovery/profile/me"),
            (Method::POST, "/api/me/api-keys"),
            (Method::DELETE, "/api/me"),
        ] {
            let response = send(app.with_key(&key.key, method, path)).await;
            assert_error(response, 401, "unauthenticated").await;
        }
        // Nor does it fall through to the cookie beside it.
        let response = send(
            app.as_browser(&ada, Method::GET, "/api/me")
                .header("X-API-Key", &key.key),
        )
        .await;
        assert_error(response, 401, "unauthenticated").await;
    }
    let response = send(app.with_key(&kept.key, Method::GET, "/api/me")).await;
    assert_eq!(response.status(), StatusCode::OK, "other keys still work");
}

// ---------------------------------------------------------------------------------------------
// The scope matrix

/// What one key did with one operation.
fn cell(status: u16, body: &Value) -> String {
    match (status, body["error"]["code"].as_str()) {
        (403, Some(code @ ("insufficient_scope" | "session_required"))) => code.to_owned(),
        (401, _) => "unauthenticated".to_owned(),
        _ => "allowed".to_owned(),
    }
}

/// What a key with only `scope` should get from `method path` (a documented path template):
/// what the route's policy says, its only access declaration (`Route::new` in
/// `crates/api-actix/src/routes/`; docs/api.md, "Least privilege"). The matrix test checks that
/// the server does exactly this, for every operation and scope.
fn expected(method: &str, path: &str, scope: &str) -> &'static str {
    let policy = api_actix::routes::api()
        .into_iter()
        .flat_map(|(_, routes)| routes)
        .find(|route| route.method().as_str() == method && route.path() == path)
        .unwrap_or_else(|| panic!("{method} {path} is documented but no route declares it"))
        .policy();
    match policy {
        Policy::Public => "n/a",
        Policy::Session => "session_required",
        Policy::Key(granted) if granted.key() == scope => "allowed",
        Policy::Key(_) | Policy::SignedIn => "insufficient_scope",
    }
}

/// A documented path with each `{parameter}` filled with something plausible.
fn concrete(path: &str) -> String {
    let mut out = String::new();
    let mut rest = path;
    while let Some((before, after)) = rest.split_once('{') {
        let (name, after) = after.split_once('}').expect("a closed parameter");
        out.push_str(before);
        out.push_str(&match name {
            "step" => "1".to_owned(),
            "external_task_id" => "matrix-task".to_owned(),
            _ => uuid::Uuid::now_v7().to_string(),
        });
        rest = after;
    }
    out.push_str(rest);
    out
}

const MATRIX_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/api/scope_matrix.md");

#[tokio::test]
async fn the_scope_matrix_matches_the_policies_and_the_golden_file() {
    let app = spawn_app().await;
    let doc = json_body(send(app.api.get(app.url("/openapi.json"))).await, 200).await;
    let mut operations: Vec<(String, String, bool)> = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            if ["get", "put", "post", "delete", "patch"].contains(&method.as_str()) {
                let authenticated = operation["security"]
                    .as_array()
                    .is_some_and(|s| !s.is_empty());
                operations.push((method.to_uppercase(), path.clone(), authenticated));
            }
        }
    }
    operations.sort_by(|a, b| (&a.1, &a.0).cmp(&(&b.1, &b.0)));
    assert!(operations.len() > 40, "{operations:?}");

    // One person per key, so what one key may do cannot disturb another's walk; the account's
    // deletion is asked last.
    let mut order: Vec<usize> = (0..operations.len()).collect();
    order.sort_by_key(|&i| operations[i].0 == "DELETE" && operations[i].1 == "/api/me");
    let columns: Vec<Vec<&str>> = SCOPES
        .iter()
        .map(|s| vec![*s])
        .chain([SCOPES.to_vec()])
        .collect();
    let mut cells = vec![vec![String::new(); columns.len()]; operations.len()];
    for (column, scopes) in columns.iter().enumerate() {
        let who = app.dev_login(&format!("matrix-{column}@example.org")).await;
        let key = app.create_scoped_key(&who, "matrix", scopes).await;
        for &i in &order {
            let (method, path, _) = &operations[i];
            let mut request = app.with_key(&key.key, method.parse().unwrap(), &concrete(path));
            if ["POST", "PUT", "PATCH"].contains(&method.as_str()) {
                request = request.json(&json!({}));
            }
            let response = send(request).await;
            let status = response.status().as_u16();
            let body: Value = response.json().await.unwrap_or(Value::Null);
            cells[i][column] = cell(status, &body);
        }
    }

    let mut disagreements = Vec::new();
    let mut table = String::from(
        "# Personal API keys: what each scope may call\n\
         \n\
         Every operation of `/openapi.json`, called with a personal API key of exactly one scope\n\
         (path parameters filled with plausible ids, bodies `{}`): `allowed` (anything but a\n\
         refusal for the key), `insufficient_scope` or `session_required` (403), `n/a` (an\n\
         operation that takes no credential). Each cell is what the route's policy says (its\n\
         `Route::new` line in `crates/api-actix/src/routes/`, the one place access is declared) and\n\
         what the server answered: the test fails when they differ. Generated, never edited by hand:\n\
         `UPDATE_SCOPE_MATRIX=1 cargo test -p api-actix --test api scope_matrix` rewrites it; the test\n\
         compares it otherwise. docs/api.md, \"Least privilege\".\n\
         \n\
         | method path | integration | profile:read | coaching |\n\
         |---|---|---|---|\n",
    );
    for (i, (method, path, authenticated)) in operations.iter().enumerate() {
        let row = &cells[i];
        let shown: Vec<&str> = (0..SCOPES.len())
            .map(|c| {
                let seen = row[c].as_str();
                if !authenticated && seen == "allowed" {
                    "n/a"
                } else {
                    seen
                }
            })
            .collect();
        table.push_str(&format!("| {method} {path} | {} |\n", shown.join(" | ")));
        for (c, scope) in SCOPES.iter().enumerate() {
            let expected = expected(method, path, scope);
            if shown[c] != expected {
                disagreements.push(format!(
                    "{method} {path} with {scope}: {} (its policy: {expected})",
                    shown[c]
                ));
            }
        }
        // A key with all three scopes may do what any one of them may, and nothing more.
        let all = row[SCOPES.len()].as_str();
        let union = if row[..SCOPES.len()].iter().any(|c| c == "allowed") {
            "allowed"
        } else {
            row[0].as_str()
        };
        if all != union {
            disagreements.push(format!(
                "{method} {path} with all three scopes: {all} (the scopes one by one: {union})"
            ));
        }
    }
    let update = std::env::var("UPDATE_SCOPE_MATRIX").is_ok_and(|v| v == "1");
    if update {
        std::fs::write(MATRIX_FILE, &table).unwrap();
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreement(s) between the routes' policies and the server's answers:\n{}\n\n{table}",
        disagreements.len(),
        disagreements.join("\n")
    );
    if update {
        return;
    }
    let golden = std::fs::read_to_string(MATRIX_FILE)
        .unwrap_or_else(|e| panic!("{MATRIX_FILE}: {e} (write it with UPDATE_SCOPE_MATRIX=1)"));
    if golden != table {
        let changed: Vec<String> = table
            .lines()
            .filter(|l| !golden.lines().any(|g| g == *l))
            .map(|l| format!("now:    {l}"))
            .chain(
                golden
                    .lines()
                    .filter(|g| !table.lines().any(|l| l == *g))
                    .map(|g| format!("before: {g}")),
            )
            .collect();
        panic!(
            "the scope matrix changed (UPDATE_SCOPE_MATRIX=1 rewrites {MATRIX_FILE} once it is \
             right):\n{}",
            changed.join("\n")
        );
    }
}

/// Published over https, every answer tells browsers to use nothing else (HSTS); over plain
/// http (a dev machine) it would be meaningless, so it is not sent.
#[tokio::test]
async fn https_deployments_send_strict_transport_security_and_others_do_not() {
    let https =
        crate::helpers::spawn_app_with(&[("PUBLIC_BASE_URL", "https://discovery.example.org")])
            .await;
    let plain = crate::helpers::spawn_app().await;
    for path in ["/healthz", "/api/me", "/login"] {
        let response = crate::helpers::send(https.api.get(https.url(path))).await;
        assert_eq!(
            response
                .headers()
                .get("strict-transport-security")
                .and_then(|v| v.to_str().ok()),
            Some("max-age=31536000"),
            "{path}"
        );
        let response = crate::helpers::send(plain.api.get(plain.url(path))).await;
        assert!(
            response
                .headers()
                .get("strict-transport-security")
                .is_none(),
            "{path}"
        );
    }
}
