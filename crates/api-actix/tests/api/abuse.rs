//! Abuse: what an attacker or a careless client sends. Another person's ids are 404 and change
//! nothing; forged tokens are 401; oversized, deeply nested or mislabelled bodies are 413, 400 or
//! 415; NUL and control characters are 422 naming the field (never a 500, on either backend);
//! right-to-left text, combining characters and emoji come back byte for byte; and every answer
//! carries the protective headers.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey};
use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::helpers::{
    GUT_ANSWERS, JWT_SECRET, OPERATOR_KEY, SignedIn, TestApp, affirm, assert_error, assert_invalid,
    discover, json_body, my_profile, my_revisions, needs_session, send, sign_jwt, spawn_app,
    spawn_app_with, valid_claims,
};

/// The seven editable prose fields of a profile (docs/api.md).
const PROSE_FIELDS: [&str; 7] = [
    "love_summary",
    "strength_summary",
    "mission_summary",
    "vocation_summary",
    "overlap_narrative",
    "near_term_goal_summary",
    "long_term_goal_summary",
];

/// Right-to-left Hebrew, a skin-toned ZWJ emoji sequence, an Arabic ligature, a combining
/// accent (`e` + U+0301, not the precomposed `é`), a right-to-left mark and the three control
/// characters text may hold.
const WORLD: &str = "שלום 👩🏽\u{200d}💻 ﷽ e\u{301}\u{200f} tab\there\r\nnext line";

/// NUL, the other C0 controls at both ends of the range, bell and escape.
const FORBIDDEN: [char; 5] = ['\0', '\u{1}', '\u{7}', '\u{1b}', '\u{1f}'];

fn mapping(external_task_id: &str, task_label: Option<&str>) -> Value {
    json!({
        "external_task_id": external_task_id,
        "task_label": task_label,
        "foundation": "love",
        "minutes": 30,
        "occurred_at": "2026-11-20T10:00:00Z",
    })
}

/// Every byte percent-encoded: a path segment that survives any router as written.
fn encode_segment(text: &str) -> String {
    text.bytes().map(|b| format!("%{b:02X}")).collect()
}

async fn get_json(app: &TestApp, jwt: &str, path: &str) -> Value {
    json_body(send(app.with_bearer(jwt, Method::GET, path)).await, 200).await
}

/// Everything of `who`'s that another person might try to reach, as the API shows it.
async fn everything_of(app: &TestApp, who: &SignedIn) -> Value {
    let jwt = &who.access_jwt;
    let sessions: Vec<Value> = get_json(app, jwt, "/api/me/sessions")
        .await
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].clone())
        .collect();
    json!({
        "conversation": get_json(app, jwt, "/discovery/conversation/me").await,
        "profile": get_json(app, jwt, "/discovery/profile/me").await,
        "revisions": get_json(app, jwt, "/discovery/profile/me/revisions").await,
        "reflection": get_json(app, jwt, "/discovery/profile/me/reflection").await,
        "checkins": get_json(app, jwt, "/coaching/checkins").await,
        "task_mappings": get_json(app, jwt, "/integration/task-mappings").await,
        "api_keys": get_json(app, jwt, "/api/me/api-keys").await,
        "sessions": sessions,
    })
}

// ---------------------------------------------------------------------------------------------
// IDOR

#[tokio::test]
async fn every_id_bearing_route_answers_another_persons_id_with_not_found_and_changes_nothing() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;
    let bob_key = app.create_api_key(&bob, "bob's tracker").await;
    let ada_key = app.create_api_key(&ada, "ada's tracker").await;
    let profile = discover(&app, &ada.access_jwt, GUT_ANSWERS).await;
    affirm(&app, &ada.access_jwt).await;
    let checkin = json_body(
        send(app.with_bearer(&ada.access_jwt, Method::POST, "/coaching/checkins")).await,
        201,
    )
    .await;
    json_body(
        send(
            app.with_bearer(&ada.access_jwt, Method::POST, "/integration/task-mappings")
                .json(&mapping("ada-task", Some("Ada's work"))),
        )
        .await,
        201,
    )
    .await;
    let conversation = get_json(&app, &ada.access_jwt, "/discovery/conversation/me").await;
    let before = everything_of(&app, &ada).await;

    let conversation_id = conversation["id"].as_str().unwrap();
    let profile_id = profile["id"].as_str().unwrap();
    let checkin_id = checkin["id"].as_str().unwrap();
    // The contract's id-bearing routes, then `me` replaced by Ada's ids (which name no route).
    let attempts: Vec<(Method, String, Option<Value>)> = vec![
        (
            Method::DELETE,
            format!("/api/me/sessions/{}", ada.session_id),
            None,
        ),
        (
            Method::DELETE,
            format!("/api/me/api-keys/{}", ada_key.id),
            None,
        ),
        (
            Method::POST,
            format!("/coaching/checkins/{checkin_id}/response"),
            Some(json!({"still_valid": false, "note": "not mine"})),
        ),
        (
            Method::DELETE,
            "/integration/task-mappings/ada-task".into(),
            None,
        ),
        (
            Method::GET,
            format!("/discovery/conversation/{conversation_id}"),
            None,
        ),
        (
            Method::PUT,
            format!("/discovery/conversation/{conversation_id}/answers/1"),
            Some(json!({"text": "overwritten"})),
        ),
        (
            Method::POST,
            format!("/discovery/conversation/{conversation_id}/complete"),
            None,
        ),
        (
            Method::GET,
            format!("/discovery/profile/{profile_id}"),
            None,
        ),
        (
            Method::GET,
            format!("/discovery/profile/{}", ada.user_id),
            None,
        ),
        (
            Method::PATCH,
            format!("/discovery/profile/{profile_id}"),
            Some(json!({"love_summary": "overwritten"})),
        ),
        (
            Method::POST,
            format!("/discovery/profile/{profile_id}/affirm"),
            None,
        ),
        (
            Method::POST,
            format!("/discovery/profile/{profile_id}/reflect"),
            Some(json!({"message": "overwritten"})),
        ),
        (
            Method::GET,
            format!("/discovery/profile/{profile_id}/revisions"),
            None,
        ),
        (
            Method::GET,
            format!("/coaching/checkins/{checkin_id}"),
            None,
        ),
    ];
    for (method, path, body) in &attempts {
        // Credential management takes Bob's browser session: his token and his key are refused
        // before the id is even looked at (so they cannot probe for it either).
        let session_only = needs_session(method, path);
        let requests = [
            (
                app.with_bearer(&bob.access_jwt, method.clone(), path),
                session_only,
            ),
            (
                app.with_key(&bob_key.key, method.clone(), path),
                session_only,
            ),
            (app.as_browser(&bob, method.clone(), path), false),
        ];
        for (request, refused) in requests {
            let request = match body {
                Some(body) => request.json(body),
                None => request,
            };
            let response = send(request).await;
            let body = if refused {
                assert_error(response, 403, "session_required").await
            } else {
                assert_error(response, 404, "not_found").await
            };
            assert!(
                !body.to_string().contains(&ada.user_id),
                "{method} {path}: {body}"
            );
        }
    }
    // The admin route stays closed to Bob, whoever he names.
    let response = send(app.with_bearer(
        &bob.access_jwt,
        Method::GET,
        &format!("/api/admin/activity?user_id={}", ada.user_id),
    ))
    .await;
    assert_error(response, 403, "forbidden").await;

    assert_eq!(
        everything_of(&app, &ada).await,
        before,
        "Ada's data is unchanged"
    );
    let response = send(app.with_key(&ada_key.key, Method::GET, "/api/me")).await;
    assert_eq!(response.status(), StatusCode::OK, "Ada's key still works");
}

// ---------------------------------------------------------------------------------------------
// Tokens (what credentials.rs does not already cover)

/// A token with `header` over `claims`, signed as HS256 with `secret` whatever the header says:
/// the best an attacker holding the secret could do if the service believed the header.
fn token_with_header(header: &Value, claims: &Value, secret: &[u8]) -> String {
    let header = URL_SAFE_NO_PAD.encode(serde_json::to_vec(header).unwrap());
    let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(claims).unwrap());
    let message = format!("{header}.{payload}");
    let signature = jsonwebtoken::crypto::sign(
        message.as_bytes(),
        &EncodingKey::from_secret(secret),
        Algorithm::HS256,
    )
    .unwrap();
    format!("{message}.{signature}")
}

/// What an RSA public key looks like when pasted as an HMAC secret (the classic confusion).
const PUBLIC_KEY_PEM: &str = "-----BEGIN PUBLIC KEY-----\n\
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n\
4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u\n\
-----END PUBLIC KEY-----\n";

#[tokio::test]
async fn a_token_whose_header_names_an_asymmetric_algorithm_is_refused() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let claims = valid_claims(&ada);
    // The control: the same construction under HS256 is accepted.
    let honest = token_with_header(
        &json!({"alg": "HS256", "typ": "JWT"}),
        &claims,
        JWT_SECRET.as_bytes(),
    );
    assert_eq!(app.me_status_with_bearer(&honest).await, StatusCode::OK);

    for alg in ["RS256", "ES256", "PS256", "EdDSA", "none", "NONE", "hs256"] {
        let forged = token_with_header(
            &json!({"alg": alg, "typ": "JWT"}),
            &claims,
            JWT_SECRET.as_bytes(),
        );
        let response = send(app.with_bearer(&forged, Method::GET, "/api/me")).await;
        assert_error(response, 401, "unauthenticated").await;
    }
    // A header pointing at keys elsewhere changes nothing either.
    let forged = token_with_header(
        &json!({"alg": "RS256", "jku": "https://evil.example/jwks.json", "kid": "1"}),
        &claims,
        PUBLIC_KEY_PEM.as_bytes(),
    );
    let response = send(app.with_bearer(&forged, Method::GET, "/api/me")).await;
    assert_error(response, 401, "unauthenticated").await;
}

#[tokio::test]
async fn an_hs256_token_signed_with_public_key_text_as_the_secret_is_refused() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let claims = valid_claims(&ada);
    for secret in [
        PUBLIC_KEY_PEM,
        PUBLIC_KEY_PEM.trim(),
        "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 discovery@example",
    ] {
        let forged = sign_jwt(secret.as_bytes(), Algorithm::HS256, &claims);
        let response = send(app.with_bearer(&forged, Method::GET, "/api/me")).await;
        assert_error(response, 401, "unauthenticated").await;
        let response = send(
            app.api
                .get(app.url("/api/me"))
                .header("Cookie", format!("ds_access={forged}")),
        )
        .await;
        assert_error(response, 401, "unauthenticated").await;
    }
}

#[tokio::test]
async fn a_token_without_an_expiry_or_with_a_malformed_one_is_refused() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let mut without_exp = valid_claims(&ada);
    without_exp.as_object_mut().unwrap().remove("exp");
    let mut string_exp = valid_claims(&ada);
    string_exp["exp"] = json!("tomorrow");
    let mut far_past = valid_claims(&ada);
    far_past["exp"] = json!(0);
    for claims in [without_exp, string_exp, far_past] {
        let forged = sign_jwt(JWT_SECRET.as_bytes(), Algorithm::HS256, &claims);
        let response = send(app.with_bearer(&forged, Method::GET, "/api/me")).await;
        assert_error(response, 401, "unauthenticated").await;
    }
}

// ---------------------------------------------------------------------------------------------
// Bodies

/// Every route that reads a JSON body, with a body that is valid for it.
fn json_routes(checkin_id: &str) -> Vec<(Method, String, Value)> {
    vec![
        (
            Method::POST,
            "/api/auth/dev-login".into(),
            json!({"email": "x@example.org"}),
        ),
        (
            Method::POST,
            "/api/me/api-keys".into(),
            json!({"name": "k"}),
        ),
        (
            Method::PUT,
            "/discovery/conversation/me/answers/1".into(),
            json!({"text": "t"}),
        ),
        (
            Method::PATCH,
            "/discovery/profile/me".into(),
            json!({"love_summary": "l"}),
        ),
        (
            Method::POST,
            "/discovery/profile/me/reflect".into(),
            json!({"opener": true}),
        ),
        (
            Method::PUT,
            "/coaching/preferences".into(),
            json!({"coaching_frequency": "weekly"}),
        ),
        (
            Method::POST,
            format!("/coaching/checkins/{checkin_id}/response"),
            json!({"still_valid": true}),
        ),
        (
            Method::POST,
            "/integration/task-mappings".into(),
            mapping("m", None),
        ),
        (
            Method::POST,
            "/integration/task-mappings/batch".into(),
            json!({"items": [mapping("m", None)]}),
        ),
    ]
}

#[tokio::test]
async fn every_json_route_refuses_another_content_type_with_415_and_changes_nothing() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    discover(&app, &ada.access_jwt, GUT_ANSWERS).await;
    let before = my_profile(&app, &ada.access_jwt).await;
    let unknown = uuid::Uuid::now_v7().to_string();
    for (method, path, body) in json_routes(&unknown) {
        for content_type in [
            Some("text/plain"),
            Some("application/x-www-form-urlencoded"),
            Some("multipart/form-data; boundary=x"),
            Some("application/xml"),
            Some("text/json-not"),
            None,
        ] {
            let mut request = app
                .as_person(&ada, method.clone(), &path)
                .body(body.to_string());
            if let Some(content_type) = content_type {
                request = request.header("Content-Type", content_type);
            }
            let response = send(request).await;
            let status = response.status();
            assert_eq!(status, 415, "{method} {path} as {content_type:?}");
            assert_error(response, 415, "unsupported_media_type").await;
        }
    }
    assert_eq!(my_profile(&app, &ada.access_jwt).await, before);
    assert_eq!(
        get_json(&app, &ada.access_jwt, "/integration/task-mappings").await["items"],
        json!([])
    );
}

/// Sends `body` chunked (no `Content-Length`, so the size is only known while reading) over a
/// raw connection, with the credential headers `credentials` (each `Name: value\r\n`); returns
/// the status and the body of the answer.
async fn post_chunked(app: &TestApp, path: &str, credentials: &str, body: &[u8]) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", app.port))
        .await
        .unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{credentials}\
         Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    for chunk in body.chunks(8 * 1024) {
        // The service may answer and close before reading everything: that is its right.
        if stream
            .write_all(format!("{:X}\r\n", chunk.len()).as_bytes())
            .await
            .is_err()
            || stream.write_all(chunk).await.is_err()
            || stream.write_all(b"\r\n").await.is_err()
        {
            break;
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n").await;
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer)).await;
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("an HTTP answer: {answer:?}"));
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

#[tokio::test]
async fn a_body_over_the_limit_is_413_even_without_a_declared_length() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    // Keys are made in the browser: its session cookie, from the service's own origin.
    let big = json!({"name": "x".repeat(70 * 1024)}).to_string();
    let browser = format!(
        "Cookie: ds_access={}\r\nOrigin: {}\r\n",
        ada.access_jwt,
        app.origin()
    );
    let (status, body) = post_chunked(&app, "/api/me/api-keys", &browser, big.as_bytes()).await;
    assert_eq!(status, 413, "{body}");
    assert!(body.contains("payload_too_large"), "{body}");
    // And the batch route, with a Bearer token.
    let bearer = format!("Authorization: Bearer {}\r\n", ada.access_jwt);
    let batch = json!({"items": [mapping(&"x".repeat(5 * 1024 * 1024), None)]}).to_string();
    let (status, body) = post_chunked(
        &app,
        "/integration/task-mappings/batch",
        &bearer,
        batch.as_bytes(),
    )
    .await;
    assert_eq!(status, 413, "{body}");
    assert!(body.contains("payload_too_large"), "{body}");

    // The batch route's larger limit has an end too.
    let items: Vec<Value> = (0..25_000)
        .map(|n| mapping(&format!("task-{n:06}-{}", "x".repeat(150)), None))
        .collect();
    let response = send(
        app.with_bearer(
            &ada.access_jwt,
            Method::POST,
            "/integration/task-mappings/batch",
        )
        .json(&json!({ "items": items })),
    )
    .await;
    assert_error(response, 413, "payload_too_large").await;
    assert_eq!(
        get_json(&app, &ada.access_jwt, "/api/me/api-keys").await,
        json!([]),
        "nothing was created"
    );
}

#[tokio::test]
async fn deeply_nested_json_is_400_in_the_contract_shape_and_the_service_lives_on() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    discover(&app, &ada.access_jwt, GUT_ANSWERS).await;
    let profile = my_profile(&app, &ada.access_jwt).await;

    let nested = |open: &str, close: &str, levels: usize, closed: bool| {
        let mut body = open.repeat(levels);
        if closed {
            body.push_str(&close.repeat(levels));
        }
        body
    };
    // Within 64 KiB (closed too) for the ordinary routes; 100,000 levels on the batch route,
    // whose limit is 4 MiB.
    let cases = [
        ("/api/me/api-keys", Method::POST, "[", "]", 30_000),
        ("/api/me/api-keys", Method::POST, r#"{"a":"#, "}", 10_000),
        ("/discovery/profile/me", Method::PATCH, "[", "]", 30_000),
        (
            "/discovery/profile/me",
            Method::PATCH,
            r#"{"a":"#,
            "}",
            10_000,
        ),
        (
            "/integration/task-mappings/batch",
            Method::POST,
            "[",
            "]",
            100_000,
        ),
        (
            "/integration/task-mappings/batch",
            Method::POST,
            r#"{"a":"#,
            "}",
            100_000,
        ),
    ];
    for (path, method, open, close, levels) in cases {
        for closed in [false, true] {
            let response = send(
                app.as_person(&ada, method.clone(), path)
                    .header("Content-Type", "application/json")
                    .body(nested(open, close, levels, closed)),
            )
            .await;
            assert_error(response, 400, "invalid_json").await;
        }
    }
    // Nesting inside an otherwise right shape, shallow enough to parse, is a 422 naming the field.
    let inner = format!("{}1{}", "[".repeat(100), "]".repeat(100));
    let response = send(
        app.with_bearer(&ada.access_jwt, Method::PATCH, "/discovery/profile/me")
            .header("Content-Type", "application/json")
            .body(format!(r#"{{"love_summary": {inner}}}"#)),
    )
    .await;
    assert_invalid(response, "love_summary").await;

    let response = send(app.api.get(app.url("/healthz"))).await;
    assert_eq!(response.status(), StatusCode::OK, "the service lives on");
    assert_eq!(my_profile(&app, &ada.access_jwt).await, profile);
}

// ---------------------------------------------------------------------------------------------
// NUL and control characters

/// `before{c}after`.
fn with_char(c: char) -> String {
    format!("before{c}after")
}

#[tokio::test]
async fn nul_and_control_characters_are_refused_in_every_text_field_naming_it() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    discover(&app, &ada.access_jwt, GUT_ANSWERS).await;
    let jwt = ada.access_jwt.as_str();
    let key = app.create_api_key(&ada, "ada's tracker").await;

    let before = everything_of(&app, &ada).await;
    for c in FORBIDDEN {
        let bad = with_char(c);
        let mut attempts: Vec<(Method, String, Value, String)> = vec![
            (
                Method::PUT,
                "/discovery/conversation/me/answers/1".into(),
                json!({"text": bad}),
                "text".into(),
            ),
            (
                Method::PUT,
                "/discovery/conversation/me/answers/6".into(),
                json!({"text": bad}),
                "text".into(),
            ),
            (
                Method::POST,
                "/discovery/profile/me/reflect".into(),
                json!({"message": bad}),
                "message".into(),
            ),
            (
                Method::POST,
                "/api/me/api-keys".into(),
                json!({"name": bad}),
                "name".into(),
            ),
            (
                Method::POST,
                "/integration/task-mappings".into(),
                mapping(&bad, None),
                "external_task_id".into(),
            ),
            (
                Method::POST,
                "/integration/task-mappings".into(),
                mapping("t-1", Some(&bad)),
                "task_label".into(),
            ),
            (
                Method::POST,
                "/integration/task-mappings/batch".into(),
                json!({"items": [mapping("t-1", None), mapping("t-2", Some(&bad))]}),
                "items[1].task_label".into(),
            ),
            (
                Method::POST,
                "/integration/task-mappings/batch".into(),
                json!({"items": [mapping(&bad, None)]}),
                "items[0].external_task_id".into(),
            ),
        ];
        for field in PROSE_FIELDS {
            attempts.push((
                Method::PATCH,
                "/discovery/profile/me".into(),
                json!({ field: bad }),
                field.into(),
            ));
        }
        for (method, path, body, field) in attempts {
            let response = send(app.as_person(&ada, method.clone(), &path).json(&body)).await;
            let status = response.status();
            assert_eq!(status, 422, "{method} {path} with U+{:04X}", u32::from(c));
            assert_invalid(response, &field).await;
        }
        let response = send(
            app.api
                .post(app.url("/api/auth/dev-login"))
                .header("Origin", app.origin())
                .json(&json!({"email": format!("ada{c}@example.org")})),
        )
        .await;
        assert_invalid(response, "email").await;
    }
    assert_eq!(everything_of(&app, &ada).await, before, "nothing changed");
    // The key is unchanged and still the only one.
    let keys = get_json(&app, jwt, "/api/me/api-keys").await;
    assert_eq!(keys.as_array().unwrap().len(), 1);
    assert_eq!(keys[0]["id"], key.id.as_str());
}

#[tokio::test]
async fn a_check_in_note_with_control_characters_is_refused_and_the_check_in_stays_open() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    discover(&app, &ada.access_jwt, GUT_ANSWERS).await;
    affirm(&app, &ada.access_jwt).await;
    let checkin = json_body(
        send(app.with_bearer(&ada.access_jwt, Method::POST, "/coaching/checkins")).await,
        201,
    )
    .await;
    let path = format!(
        "/coaching/checkins/{}/response",
        checkin["id"].as_str().unwrap()
    );
    for c in FORBIDDEN {
        let response = send(
            app.with_bearer(&ada.access_jwt, Method::POST, &path)
                .json(&json!({"still_valid": true, "note": with_char(c)})),
        )
        .await;
        assert_invalid(response, "note").await;
    }
    let list = get_json(&app, &ada.access_jwt, "/coaching/checkins").await;
    assert_eq!(list["items"], json!([checkin]), "still unanswered");
}

#[tokio::test]
async fn nul_and_control_characters_in_paths_and_query_strings_never_make_a_500() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let jwt = ada.access_jwt.as_str();
    json_body(
        send(
            app.with_bearer(jwt, Method::POST, "/integration/task-mappings")
                .json(&mapping("a", None)),
        )
        .await,
        201,
    )
    .await;

    for encoded in ["%00", "%01", "%1B", "a%00b"] {
        let response = send(app.with_bearer(
            jwt,
            Method::DELETE,
            &format!("/integration/task-mappings/{encoded}"),
        ))
        .await;
        assert_error(response, 404, "not_found").await;
        for path in [
            format!("/api/me/sessions/{encoded}"),
            format!("/api/me/api-keys/{encoded}"),
        ] {
            // Revocations take the browser session; a Bearer token is refused before the id.
            let response = send(app.as_browser(&ada, Method::DELETE, &path)).await;
            assert_error(response, 404, "not_found").await;
            let response = send(app.with_bearer(jwt, Method::DELETE, &path)).await;
            assert_error(response, 403, "session_required").await;
        }
        let response = send(
            app.with_bearer(
                jwt,
                Method::POST,
                &format!("/coaching/checkins/{encoded}/response"),
            )
            .json(&json!({"still_valid": true})),
        )
        .await;
        assert_error(response, 404, "not_found").await;

        for path in [
            format!("/integration/task-mappings?before={encoded}"),
            format!("/integration/task-mappings?foundation={encoded}"),
            format!("/integration/task-mappings?from={encoded}"),
            format!("/integration/work-patterns?days={encoded}"),
            format!("/coaching/checkins?before={encoded}"),
            format!("/api/activity?before={encoded}"),
            format!("/api/activity/summary?days={encoded}"),
        ] {
            let response = send(app.with_bearer(jwt, Method::GET, &path)).await;
            let status = response.status().as_u16();
            assert!(matches!(status, 400 | 422), "{path}: {status}");
            assert_error(
                response,
                status,
                if status == 400 {
                    "invalid_json"
                } else {
                    "validation_failed"
                },
            )
            .await;
        }
        let response = send(app.with_key(
            OPERATOR_KEY,
            Method::GET,
            &format!("/api/admin/activity?user_id={encoded}"),
        ))
        .await;
        assert!(response.status().is_client_error(), "{}", response.status());
        // Sign-in answers browsers with redirects, whatever they send.
        for path in [
            format!("/api/auth/login?redirect=/{encoded}"),
            format!("/api/auth/callback?code={encoded}&state={encoded}"),
        ] {
            let response = send(app.client().get(app.url(&path))).await;
            assert!(
                response.status().is_redirection() || response.status().is_client_error(),
                "{path}: {}",
                response.status()
            );
        }
    }
    assert_eq!(
        get_json(&app, jwt, "/integration/task-mappings").await["items"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

// ---------------------------------------------------------------------------------------------
// Right-to-left, combining characters and emoji

#[tokio::test]
async fn right_to_left_combining_and_emoji_text_round_trips_byte_for_byte_in_every_text_field() {
    let app = spawn_app().await;
    let email = "שלום.e\u{301}.👩🏽\u{200d}💻@example.org";
    let ada = app.dev_login(email).await;
    let jwt = ada.access_jwt.as_str();
    let me = get_json(&app, jwt, "/api/me").await;
    assert_eq!(me["email"].as_str().unwrap().as_bytes(), email.as_bytes());

    // Answers, the goal answers stored raw on the conversation.
    let answers = [WORLD; 7];
    let profile = discover(&app, jwt, answers).await;
    let conversation = get_json(&app, jwt, "/discovery/conversation/me").await;
    for answer in conversation["answers"].as_array().unwrap() {
        assert_eq!(
            answer["text"].as_str().unwrap().as_bytes(),
            WORLD.as_bytes()
        );
    }
    for raw in ["near_term_goal_raw", "long_term_goal_raw"] {
        assert_eq!(
            conversation[raw].as_str().unwrap().as_bytes(),
            WORLD.as_bytes()
        );
    }

    // The seven prose fields, one edit.
    let edit: serde_json::Map<String, Value> = PROSE_FIELDS
        .iter()
        .map(|f| ((*f).to_owned(), json!(format!("{f}: {WORLD}"))))
        .collect();
    let edited = json_body(
        send(
            app.with_bearer(jwt, Method::PATCH, "/discovery/profile/me")
                .json(&edit),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(edited["version"], profile["version"].as_i64().unwrap() + 1);
    let read = my_profile(&app, jwt).await;
    for field in PROSE_FIELDS {
        let expected = format!("{field}: {WORLD}");
        assert_eq!(
            read[field].as_str().unwrap().as_bytes(),
            expected.as_bytes(),
            "{field}"
        );
    }
    let revisions = my_revisions(&app, jwt).await;
    let last = revisions.last().unwrap();
    assert_eq!(
        last["snapshot"]["love_summary"]
            .as_str()
            .unwrap()
            .as_bytes(),
        format!("love_summary: {WORLD}").as_bytes()
    );

    // A reflection turn.
    json_body(
        send(
            app.with_bearer(jwt, Method::POST, "/discovery/profile/me/reflect")
                .json(&json!({"message": WORLD})),
        )
        .await,
        200,
    )
    .await;
    let dialogue = get_json(&app, jwt, "/discovery/profile/me/reflection").await;
    let mine: Vec<&str> = dialogue
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["author"] == "person")
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(mine.len(), 1);
    assert_eq!(mine[0].as_bytes(), WORLD.as_bytes());

    // A check-in response note.
    affirm(&app, jwt).await;
    let checkin = json_body(
        send(app.with_bearer(jwt, Method::POST, "/coaching/checkins")).await,
        201,
    )
    .await;
    let path = format!(
        "/coaching/checkins/{}/response",
        checkin["id"].as_str().unwrap()
    );
    let answered = json_body(
        send(
            app.with_bearer(jwt, Method::POST, &path)
                .json(&json!({"still_valid": true, "note": WORLD})),
        )
        .await,
        200,
    )
    .await;
    assert_eq!(
        answered["response_note"].as_str().unwrap().as_bytes(),
        WORLD.as_bytes()
    );
    let listed = get_json(&app, jwt, "/coaching/checkins").await;
    assert_eq!(
        listed["items"][0]["response_note"]
            .as_str()
            .unwrap()
            .as_bytes(),
        WORLD.as_bytes()
    );

    // A task mapping's id and label, single and batch, and deletion by that id.
    let single_id = format!("single {WORLD}");
    let batch_id = format!("batch {WORLD}");
    json_body(
        send(
            app.with_bearer(jwt, Method::POST, "/integration/task-mappings")
                .json(&mapping(&single_id, Some(WORLD))),
        )
        .await,
        201,
    )
    .await;
    json_body(
        send(
            app.with_bearer(jwt, Method::POST, "/integration/task-mappings/batch")
                .json(&json!({"items": [mapping(&batch_id, Some(WORLD))]})),
        )
        .await,
        200,
    )
    .await;
    let listed = get_json(&app, jwt, "/integration/task-mappings").await;
    let mut ids: Vec<&[u8]> = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            assert_eq!(
                m["task_label"].as_str().unwrap().as_bytes(),
                WORLD.as_bytes()
            );
            m["external_task_id"].as_str().unwrap().as_bytes()
        })
        .collect();
    ids.sort_unstable();
    let mut expected = [batch_id.as_bytes(), single_id.as_bytes()];
    expected.sort_unstable();
    assert_eq!(ids, expected);
    let response = send(app.with_bearer(
        jwt,
        Method::DELETE,
        &format!("/integration/task-mappings/{}", encode_segment(&single_id)),
    ))
    .await;
    assert_eq!(
        response.status(),
        StatusCode::NO_CONTENT,
        "deleted by its exact id"
    );

    // An API key's name.
    let key = app.create_api_key(&ada, WORLD).await;
    assert_eq!(
        key.body["name"].as_str().unwrap().as_bytes(),
        WORLD.as_bytes()
    );
    let keys = get_json(&app, jwt, "/api/me/api-keys").await;
    assert_eq!(
        keys[0]["name"].as_str().unwrap().as_bytes(),
        WORLD.as_bytes()
    );
}

// ---------------------------------------------------------------------------------------------
// Protective headers

fn header<'a>(response: &'a Response, name: &str) -> Option<&'a str> {
    response.headers().get(name).and_then(|v| v.to_str().ok())
}

/// `nosniff` and a `Referrer-Policy` on anything; on a page also a policy that forbids framing.
fn assert_headers(label: &str, response: &Response, page: bool) {
    assert_eq!(
        header(response, "x-content-type-options"),
        Some("nosniff"),
        "{label}"
    );
    assert_eq!(
        header(response, "referrer-policy"),
        Some("same-origin"),
        "{label}"
    );
    if page {
        let policy = header(response, "content-security-policy").unwrap_or_default();
        assert!(
            policy.contains("frame-ancestors 'none'"),
            "{label}: {policy:?}"
        );
    }
}

#[tokio::test]
async fn every_answer_carries_nosniff_and_a_referrer_policy_and_pages_forbid_framing() {
    let app = spawn_app_with(&[("RATE_LIMIT_SIGN_IN_PER_MINUTE", "3")]).await;
    let ada = app.dev_login("ada@example.org").await;
    let jwt = ada.access_jwt.as_str();
    let key = app.create_api_key(&ada, "k").await;

    let mut answers: Vec<(String, Response, bool)> = Vec::new();
    let mut add = |label: &str, response: Response, page: bool| {
        answers.push((label.to_owned(), response, page));
    };
    add(
        "healthz",
        send(app.api.get(app.url("/healthz"))).await,
        false,
    );
    add("readyz", send(app.api.get(app.url("/readyz"))).await, false);
    add(
        "me",
        send(app.with_bearer(jwt, Method::GET, "/api/me")).await,
        false,
    );
    add("401", send(app.api.get(app.url("/api/me"))).await, false);
    add(
        "404 api",
        send(app.api.get(app.url("/api/nothing"))).await,
        false,
    );
    add(
        "404 write",
        send(app.api.post(app.url("/nothing.html"))).await,
        false,
    );
    add(
        "415",
        send(
            app.as_browser(&ada, Method::POST, "/api/me/api-keys")
                .header("Content-Type", "text/plain")
                .body("x"),
        )
        .await,
        false,
    );
    add(
        "422",
        send(
            app.as_browser(&ada, Method::POST, "/api/me/api-keys")
                .json(&json!({"nope": 1})),
        )
        .await,
        false,
    );
    add(
        "413",
        send(
            app.as_browser(&ada, Method::POST, "/api/me/api-keys")
                .json(&json!({"name": "x".repeat(70 * 1024)})),
        )
        .await,
        false,
    );
    add(
        "204",
        send(app.as_browser(
            &ada,
            Method::DELETE,
            &format!("/api/me/api-keys/{}", key.id),
        ))
        .await,
        false,
    );
    add(
        "403 session_required",
        send(
            app.with_bearer(jwt, Method::POST, "/api/me/api-keys")
                .json(&json!({"name": "k"})),
        )
        .await,
        false,
    );
    add(
        "302 sign-in",
        send(app.client().get(app.url("/api/auth/login"))).await,
        false,
    );
    add(
        "preflight",
        send(
            app.api
                .request(Method::OPTIONS, app.url("/api/me"))
                .header("Origin", "https://evil.example")
                .header("Access-Control-Request-Method", "DELETE"),
        )
        .await,
        false,
    );
    for path in [
        "/",
        "/login",
        "/profile.html",
        "/js/api.js",
        "/missing-page.html",
    ] {
        add(path, send(app.api.get(app.url(path))).await, true);
    }
    // Over the sign-in limit (one sign-in spent above, three allowed).
    for n in 0..3 {
        let response = send(
            app.api
                .post(app.url("/api/auth/dev-login"))
                .header("Origin", app.origin())
                .json(&json!({"email": format!("p{n}@example.org")})),
        )
        .await;
        let label = format!("sign-in {n}: {}", response.status());
        add(&label, response, false);
    }
    let statuses: Vec<u16> = answers
        .iter()
        .map(|(_, r, _)| r.status().as_u16())
        .collect();
    for status in [200, 204, 302, 401, 403, 404, 413, 415, 422, 429] {
        assert!(
            statuses.contains(&status),
            "a {status} is among {statuses:?}"
        );
    }
    for (label, response, page) in &answers {
        assert_headers(label, response, *page);
    }
}
