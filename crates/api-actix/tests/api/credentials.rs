//! Who is calling: API key, then Bearer JWT, then the session cookie; a credential that is
//! present but invalid is a 401 and never falls through to the next kind.

use jsonwebtoken::Algorithm;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{
    JWT_SECRET, OPERATOR_KEY, assert_error, jwt_claims, send, sign_jwt, spawn_app, unsigned_jwt,
    valid_claims, with_payload,
};

const ACCOUNT_ROUTES: [(&str, &str); 9] = [
    ("GET", "/api/me"),
    ("DELETE", "/api/me"),
    ("GET", "/api/me/export"),
    ("GET", "/api/me/stats"),
    ("GET", "/api/me/sessions"),
    ("GET", "/api/me/api-keys"),
    ("GET", "/api/activity"),
    ("GET", "/api/activity/summary"),
    ("GET", "/api/admin/activity"),
];

#[tokio::test]
async fn every_account_route_refuses_a_request_without_credentials() {
    let app = spawn_app().await;

    for (method, path) in ACCOUNT_ROUTES {
        let method: Method = method.parse().unwrap();
        let response = send(app.api.request(method, app.url(path))).await;
        assert_error(response, 401, "unauthenticated").await;
    }
    let response = send(
        app.api
            .post(app.url("/api/me/api-keys"))
            .json(&json!({"name": "x"})),
    )
    .await;
    assert_error(response, 401, "unauthenticated").await;
}

#[tokio::test]
async fn a_token_forged_with_the_right_secret_is_accepted_which_makes_the_refusals_below_meaningful()
 {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    let token = sign_jwt(JWT_SECRET.as_bytes(), Algorithm::HS256, &valid_claims(&ada));

    assert_eq!(app.me_status_with_bearer(&token).await, StatusCode::OK);
    assert_eq!(
        app.me_status_with_bearer(&ada.access_jwt).await,
        StatusCode::OK
    );
}

#[tokio::test]
async fn garbage_bearer_tokens_are_refused() {
    let app = spawn_app().await;

    for token in ["garbage", "a.b.c", "eyJhbGciOiJIUzI1NiJ9..", "", "  "] {
        let response = send(
            app.api
                .get(app.url("/api/me"))
                .header("Authorization", format!("Bearer {token}")),
        )
        .await;
        assert_error(response, 401, "unauthenticated").await;
    }
}

#[tokio::test]
async fn an_authorization_header_that_is_not_bearer_is_refused_even_with_a_valid_cookie() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    for value in ["Basic YWRhOnNlY3JldA==", "bearer-less", "Token abc"] {
        let response = send(
            app.as_browser(&ada, Method::GET, "/api/me")
                .header("Authorization", value),
        )
        .await;
        assert_error(response, 401, "unauthenticated").await;
    }
    // The same browser without the header is signed in.
    let response = send(app.as_browser(&ada, Method::GET, "/api/me")).await;
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn an_expired_token_is_refused() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let now = time::OffsetDateTime::now_utc().unix_timestamp();

    let mut claims = valid_claims(&ada);
    claims["iat"] = json!(now - 3_600);
    claims["exp"] = json!(now - 60);
    let expired = sign_jwt(JWT_SECRET.as_bytes(), Algorithm::HS256, &claims);

    let response = send(app.with_bearer(&expired, Method::GET, "/api/me")).await;
    assert_error(response, 401, "unauthenticated").await;
}

#[tokio::test]
async fn a_token_whose_payload_was_changed_is_refused() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;

    let mut as_admin = jwt_claims(&ada.access_jwt);
    as_admin["adm"] = json!(true);
    let mut as_bob = jwt_claims(&ada.access_jwt);
    as_bob["sub"] = json!(bob.user_id);
    as_bob["sid"] = json!(bob.session_id);
    let mut longer = jwt_claims(&ada.access_jwt);
    longer["exp"] = json!(longer["exp"].as_i64().unwrap() + 86_400);

    for claims in [as_admin, as_bob, longer] {
        let tampered = with_payload(&ada.access_jwt, &claims);
        let response = send(app.with_bearer(&tampered, Method::GET, "/api/me")).await;
        assert_error(response, 401, "unauthenticated").await;
    }
    // The admin route stays closed to the would-be admin too.
    let mut as_admin = jwt_claims(&ada.access_jwt);
    as_admin["adm"] = json!(true);
    let tampered = with_payload(&ada.access_jwt, &as_admin);
    let response = send(app.with_bearer(&tampered, Method::GET, "/api/admin/activity")).await;
    assert_error(response, 401, "unauthenticated").await;
}

#[tokio::test]
async fn an_unsigned_token_with_alg_none_is_refused() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    let unsigned = unsigned_jwt(&valid_claims(&ada));
    let response = send(app.with_bearer(&unsigned, Method::GET, "/api/me")).await;
    assert_error(response, 401, "unauthenticated").await;

    // Also as the session cookie.
    let response = send(
        app.api
            .get(app.url("/api/me"))
            .header("Cookie", format!("ds_access={unsigned}")),
    )
    .await;
    assert_error(response, 401, "unauthenticated").await;
}

#[tokio::test]
async fn a_token_signed_with_another_secret_is_refused() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    let forged = sign_jwt(
        b"another-secret-of-at-least-32-bytes!!",
        Algorithm::HS256,
        &valid_claims(&ada),
    );
    let response = send(app.with_bearer(&forged, Method::GET, "/api/me")).await;
    assert_error(response, 401, "unauthenticated").await;
}

#[tokio::test]
async fn a_token_signed_with_the_right_secret_under_another_algorithm_is_refused() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    for algorithm in [Algorithm::HS384, Algorithm::HS512] {
        let forged = sign_jwt(JWT_SECRET.as_bytes(), algorithm, &valid_claims(&ada));
        let response = send(app.with_bearer(&forged, Method::GET, "/api/me")).await;
        assert_error(response, 401, "unauthenticated").await;
    }
}

#[tokio::test]
async fn a_token_for_another_audience_or_from_another_issuer_is_refused() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    let cases: [(&str, Value); 4] = [
        ("aud", json!("another-audience")),
        ("aud", json!("discovery-login")),
        ("iss", json!("https://evil.example")),
        ("iss", json!("discovery-service-2")),
    ];
    for (claim, value) in cases {
        let mut claims = valid_claims(&ada);
        claims[claim] = value;
        let forged = sign_jwt(JWT_SECRET.as_bytes(), Algorithm::HS256, &claims);
        let response = send(app.with_bearer(&forged, Method::GET, "/api/me")).await;
        assert_error(response, 401, "unauthenticated").await;
    }
}

#[tokio::test]
async fn a_well_signed_token_without_a_session_or_with_an_unknown_one_is_refused() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    let mut unknown_session = valid_claims(&ada);
    unknown_session["sid"] = json!(uuid::Uuid::now_v7().to_string());
    let mut no_session = valid_claims(&ada);
    no_session.as_object_mut().unwrap().remove("sid");
    let mut no_expiry = valid_claims(&ada);
    no_expiry.as_object_mut().unwrap().remove("exp");
    let mut not_a_user = valid_claims(&ada);
    not_a_user["sub"] = json!("not-a-uuid");

    for claims in [unknown_session, no_session, no_expiry, not_a_user] {
        let forged = sign_jwt(JWT_SECRET.as_bytes(), Algorithm::HS256, &claims);
        let response = send(app.with_bearer(&forged, Method::GET, "/api/me")).await;
        assert_error(response, 401, "unauthenticated").await;
    }
}

#[tokio::test]
async fn a_garbage_session_cookie_is_refused() {
    let app = spawn_app().await;

    let response = send(
        app.api
            .get(app.url("/api/me"))
            .header("Cookie", "ds_access=garbage"),
    )
    .await;
    assert_error(response, 401, "unauthenticated").await;
}

#[tokio::test]
async fn a_revoked_sessions_access_token_stops_working_at_once() {
    let app = spawn_app().await;
    let laptop = app.dev_login("ada@example.org").await;
    let phone = app.dev_login("ada@example.org").await;
    assert_eq!(laptop.user_id, phone.user_id);
    assert_ne!(laptop.session_id, phone.session_id);

    let response = send(app.as_browser(
        &phone,
        Method::DELETE,
        &format!("/api/me/sessions/{}", laptop.session_id),
    ))
    .await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);

    // Long before its expiry, the laptop's token is refused: as Bearer and as cookie.
    assert_eq!(
        app.me_status_with_bearer(&laptop.access_jwt).await,
        StatusCode::UNAUTHORIZED
    );
    let response = send(app.as_browser(&laptop, Method::GET, "/api/me")).await;
    assert_error(response, 401, "unauthenticated").await;
    // The phone's session is untouched.
    assert_eq!(
        app.me_status_with_bearer(&phone.access_jwt).await,
        StatusCode::OK
    );
}

#[tokio::test]
async fn after_logout_the_old_access_token_is_refused_at_once() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    assert_eq!(
        app.me_status_with_bearer(&ada.access_jwt).await,
        StatusCode::OK
    );

    let response = send(app.as_browser(&ada, Method::POST, "/api/auth/logout")).await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);

    assert_eq!(
        app.me_status_with_bearer(&ada.access_jwt).await,
        StatusCode::UNAUTHORIZED
    );
    let response = send(
        app.api
            .get(app.url("/api/me"))
            .header("Cookie", format!("ds_access={}", ada.access_jwt)),
    )
    .await;
    assert_error(response, 401, "unauthenticated").await;
}

#[tokio::test]
async fn a_bearer_logout_revokes_the_tokens_session() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    let response = send(app.with_bearer(&ada.access_jwt, Method::POST, "/api/auth/logout")).await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);

    assert_eq!(
        app.me_status_with_bearer(&ada.access_jwt).await,
        StatusCode::UNAUTHORIZED
    );
}

async fn me_id(response: reqwest::Response) -> String {
    assert_eq!(response.status(), StatusCode::OK);
    let me: Value = response.json().await.unwrap();
    me["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn an_api_key_is_tried_before_a_bearer_token_and_a_bearer_token_before_the_cookie() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let bob = app.dev_login("bob@example.org").await;
    let carol = app.dev_login("carol@example.org").await;
    let ada_key = app.create_api_key(&ada, "tracker").await;

    // Carol's cookies, Bob's bearer token, Ada's key: Ada.
    let all_three = app
        .as_browser(&carol, Method::GET, "/api/me")
        .header("Authorization", format!("Bearer {}", bob.access_jwt))
        .header("X-API-Key", &ada_key.key);
    assert_eq!(me_id(send(all_three).await).await, ada.user_id);

    // Carol's cookies and Bob's bearer token: Bob.
    let two = app
        .as_browser(&carol, Method::GET, "/api/me")
        .header("Authorization", format!("Bearer {}", bob.access_jwt));
    assert_eq!(me_id(send(two).await).await, bob.user_id);

    // The cookies alone: Carol.
    assert_eq!(
        me_id(send(app.as_browser(&carol, Method::GET, "/api/me")).await).await,
        carol.user_id
    );
}

#[tokio::test]
async fn an_invalid_api_key_does_not_fall_through_to_a_valid_bearer_token_or_cookie() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let revoked = app.create_api_key(&ada, "old").await;
    let response = send(app.as_browser(
        &ada,
        Method::DELETE,
        &format!("/api/me/api-keys/{}", revoked.id),
    ))
    .await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);

    let bad_keys = [
        "dsk_0000000000000000000000000000000000000000000000000000000000000000".to_owned(),
        "not-a-key".to_owned(),
        format!("{OPERATOR_KEY}x"),
        revoked.key.clone(),
        String::new(),
    ];
    for key in &bad_keys {
        let with_bearer = app
            .with_bearer(&ada.access_jwt, Method::GET, "/api/me")
            .header("X-API-Key", key);
        assert_error(send(with_bearer).await, 401, "unauthenticated").await;
        let with_cookie = app
            .as_browser(&ada, Method::GET, "/api/me")
            .header("X-API-Key", key);
        assert_error(send(with_cookie).await, 401, "unauthenticated").await;
    }
}

#[tokio::test]
async fn an_invalid_bearer_token_does_not_fall_through_to_a_valid_cookie() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    let response = send(
        app.as_browser(&ada, Method::GET, "/api/me")
            .header("Authorization", "Bearer garbage"),
    )
    .await;
    assert_error(response, 401, "unauthenticated").await;
}

#[tokio::test]
async fn the_operator_key_acts_as_the_synthetic_admin() {
    let app = spawn_app().await;

    let response = send(app.with_key(OPERATOR_KEY, Method::GET, "/api/me")).await;
    assert_eq!(response.status(), StatusCode::OK);
    let me: Value = response.json().await.unwrap();
    assert_eq!(me["is_admin"], true, "{me}");
    assert!(
        me["email"].as_str().unwrap().starts_with("api-key-admin"),
        "{me}"
    );
    assert_eq!(me["name"], "api-key-admin", "{me}");
}

#[tokio::test]
async fn credentials_are_judged_before_the_query_or_the_body() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    for _ in 0..5 {
        let anonymous_query = app.api.get(app.url("/api/activity?limit=abc"));
        assert_error(send(anonymous_query).await, 401, "unauthenticated").await;
        let anonymous_body = app
            .api
            .post(app.url("/api/me/api-keys"))
            .header("Content-Type", "application/json")
            .body("{");
        assert_error(send(anonymous_body).await, 401, "unauthenticated").await;
        let bad_token_query = app.with_bearer("garbage", Method::GET, "/api/activity?limit=abc");
        assert_error(send(bad_token_query).await, 401, "unauthenticated").await;
        // A signed-in caller's bad query is the caller's mistake.
        let signed_in = app.with_bearer(&ada.access_jwt, Method::GET, "/api/activity?limit=abc");
        assert_error(send(signed_in).await, 400, "invalid_json").await;
    }
}

#[tokio::test]
async fn a_revoked_token_is_unauthenticated_whatever_the_query_or_body() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let response = send(app.with_bearer(&ada.access_jwt, Method::POST, "/api/auth/logout")).await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);

    // Well-signed but revoked: only the database can tell, and it must be asked first.
    let bad_query = app.with_bearer(&ada.access_jwt, Method::GET, "/api/activity?limit=abc");
    assert_error(send(bad_query).await, 401, "unauthenticated").await;
    let bad_body = app
        .with_bearer(&ada.access_jwt, Method::POST, "/api/me/api-keys")
        .header("Content-Type", "application/json")
        .body("{");
    assert_error(send(bad_body).await, 401, "unauthenticated").await;
}
