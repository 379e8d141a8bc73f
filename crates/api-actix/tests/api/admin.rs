//! `/api/admin/activity`: everyone's activity, for the people in `ADMIN_EMAILS` and the
//! operator key only.

use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::helpers::{
    ADMIN_EMAIL, OPERATOR_KEY, assert_error, jwt_claims, send, spawn_app, spawn_app_with,
};

#[tokio::test]
async fn a_normal_user_is_forbidden_from_the_admin_activity() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let key = app.create_api_key(&ada, "tracker").await;

    let response = send(app.with_bearer(&ada.access_jwt, Method::GET, "/api/admin/activity")).await;
    assert_error(response, 403, "forbidden").await;
    let response = send(app.as_browser(&ada, Method::GET, "/api/admin/activity")).await;
    assert_error(response, 403, "forbidden").await;
    // A personal key is refused for its scopes before anyone asks whether its owner is an admin.
    let response = send(app.with_key(&key.key, Method::GET, "/api/admin/activity")).await;
    assert_error(response, 403, "insufficient_scope").await;
}

#[tokio::test]
async fn an_admin_by_email_sees_everyones_activity() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let admin = app.admin_login(ADMIN_EMAIL).await;
    assert_eq!(admin.user["is_admin"], true);
    assert_eq!(ada.user["is_admin"], false);
    // Wait until Ada's sign-in is written.
    app.activity_until(&ada.user_id, |items| !items.is_empty())
        .await;

    let response =
        send(app.as_browser(&admin, Method::GET, "/api/admin/activity?limit=1000")).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    let items = body["items"].as_array().unwrap();
    assert!(
        items.iter().any(|i| i["user_id"] == ada.user_id.as_str()),
        "{body:#}"
    );
    assert!(body.get("next_cursor").is_some(), "{body}");

    // Filtered to one person.
    let path = format!("/api/admin/activity?user_id={}", ada.user_id);
    let response = send(app.with_bearer(&admin.access_jwt, Method::GET, &path)).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    let items = body["items"].as_array().unwrap();
    assert!(!items.is_empty());
    assert!(
        items.iter().all(|i| i["user_id"] == ada.user_id.as_str()),
        "{body:#}"
    );
}

#[tokio::test]
async fn the_operator_key_sees_everyones_activity() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    let items = app
        .activity_until(&ada.user_id, |items| !items.is_empty())
        .await;
    assert!(items.iter().all(|i| i["user_id"] == ada.user_id.as_str()));

    let response = send(app.with_key(OPERATOR_KEY, Method::GET, "/api/admin/activity")).await;
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn admin_emails_are_matched_whatever_their_case() {
    let app = spawn_app_with(&[("ADMIN_EMAILS", "Boss@Example.ORG")]).await;
    let boss = app.admin_login("boss@example.org").await;

    assert_eq!(boss.user["is_admin"], true);
    let response =
        send(app.with_bearer(&boss.access_jwt, Method::GET, "/api/admin/activity")).await;
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn dev_login_never_makes_an_admin_even_with_an_admin_email() {
    let app = spawn_app().await;
    let pretender = app.dev_login(ADMIN_EMAIL).await;

    assert_eq!(pretender.user["is_admin"], false);
    assert_eq!(jwt_claims(&pretender.access_jwt)["adm"], false);
    let response = send(app.as_browser(&pretender, Method::GET, "/api/admin/activity")).await;
    assert_error(response, 403, "forbidden").await;
    let response = send(app.as_browser(&pretender, Method::POST, "/coaching/run")).await;
    assert_error(response, 403, "forbidden").await;
}

#[tokio::test]
async fn a_malformed_user_filter_is_a_validation_error() {
    let app = spawn_app().await;

    let response = send(app.with_key(
        OPERATOR_KEY,
        Method::GET,
        "/api/admin/activity?user_id=nope",
    ))
    .await;
    assert_error(response, 422, "validation_failed").await;
}
