//! Personal API keys: created (the key shown once), listed (never with the key), used (acting as
//! the owner, logged as `mcp`), revoked.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{assert_error, send, spawn_app};

#[tokio::test]
async fn creating_a_key_shows_it_once_with_its_prefix() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    let created = app.create_api_key(&ada, "  time tracker ").await;

    let body = &created.body;
    for field in ["id", "name", "key", "prefix", "created_at"] {
        assert!(body.get(field).is_some(), "{field} in {body}");
    }
    assert_eq!(body["name"], "time tracker", "{body}");
    assert!(created.key.starts_with(&created.prefix), "{body}");
    assert!(
        created.prefix.len() < created.key.len() / 2,
        "the prefix tells keys apart, it does not reveal them: {body}"
    );
    assert!(created.key.len() >= 32, "{body}");
    assert!(uuid::Uuid::parse_str(&created.id).is_ok());
    let other = app.create_api_key(&ada, "assistant").await;
    assert_ne!(other.key, created.key);
}

#[tokio::test]
async fn the_key_list_never_shows_the_key() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let first = app.create_api_key(&ada, "tracker").await;
    let second = app.create_api_key(&ada, "assistant").await;

    let response = send(app.as_browser(&ada, Method::GET, "/api/me/api-keys")).await;
    assert_eq!(response.status(), StatusCode::OK);
    let text = response.text().await.unwrap();
    let keys: Vec<Value> = serde_json::from_str(&text).unwrap();

    assert_eq!(keys.len(), 2, "{text}");
    assert!(
        !text.contains(&first.key) && !text.contains(&second.key),
        "{text}"
    );
    for key in &keys {
        assert!(key.get("key").is_none(), "{key}");
        assert!(key.get("key_hash").is_none(), "{key}");
        for field in ["id", "name", "prefix", "created_at", "last_used_at"] {
            assert!(key.get(field).is_some(), "{field} in {key}");
        }
        assert!(key["last_used_at"].is_null(), "never used yet: {key}");
    }
    let ids: Vec<&str> = keys.iter().map(|k| k["id"].as_str().unwrap()).collect();
    assert!(ids.contains(&first.id.as_str()) && ids.contains(&second.id.as_str()));
    let listed = keys.iter().find(|k| k["id"] == first.id.as_str()).unwrap();
    assert_eq!(listed["prefix"], first.prefix.as_str());
    assert_eq!(listed["name"], "tracker");
}

#[tokio::test]
async fn a_key_acts_as_its_owner_and_is_logged_as_mcp() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let key = app.create_api_key(&ada, "tracker").await;

    let response = send(
        app.with_key(&key.key, Method::GET, "/api/me")
            .header("X-Request-Id", "key-use-1"),
    )
    .await;
    assert_eq!(response.status(), StatusCode::OK);
    let me: Value = response.json().await.unwrap();
    assert_eq!(me["id"], ada.user_id.as_str());
    assert_eq!(me["email"], "ada@example.org");

    let entry = app.activity_entry(&ada.user_id, "key-use-1").await;
    assert_eq!(entry["source"], "mcp", "{entry}");
    assert_eq!(entry["user_id"], ada.user_id.as_str(), "{entry}");

    // Its use is remembered.
    let response = send(app.with_bearer(&ada.access_jwt, Method::GET, "/api/me/api-keys")).await;
    let keys: Vec<Value> = response.json().await.unwrap();
    let listed = keys.iter().find(|k| k["id"] == key.id.as_str()).unwrap();
    assert!(listed["last_used_at"].is_string(), "{listed}");
}

#[tokio::test]
async fn a_revoked_key_is_refused_and_leaves_the_list() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let key = app.create_api_key(&ada, "tracker").await;
    let kept = app.create_api_key(&ada, "assistant").await;
    assert_eq!(
        send(app.with_key(&key.key, Method::GET, "/api/me"))
            .await
            .status(),
        StatusCode::OK
    );

    let response = send(app.as_browser(
        &ada,
        Method::DELETE,
        &format!("/api/me/api-keys/{}", key.id),
    ))
    .await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);

    let response = send(app.with_key(&key.key, Method::GET, "/api/me")).await;
    assert_error(response, 401, "unauthenticated").await;
    let response = send(app.with_bearer(&ada.access_jwt, Method::GET, "/api/me/api-keys")).await;
    let keys: Vec<Value> = response.json().await.unwrap();
    assert_eq!(keys.len(), 1);
    assert_eq!(keys[0]["id"], kept.id.as_str());
    assert_eq!(
        send(app.with_key(&kept.key, Method::GET, "/api/me"))
            .await
            .status(),
        StatusCode::OK
    );
    // A second revocation finds nothing to revoke.
    let response = send(app.as_browser(
        &ada,
        Method::DELETE,
        &format!("/api/me/api-keys/{}", key.id),
    ))
    .await;
    assert_error(response, 404, "not_found").await;
}

#[tokio::test]
async fn a_key_needs_a_name() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    for body in [json!({"name": "   "}), json!({"name": ""}), json!({})] {
        let response = send(
            app.as_browser(&ada, Method::POST, "/api/me/api-keys")
                .json(&body),
        )
        .await;
        let error = assert_error(response, 422, "validation_failed").await;
        assert_eq!(
            error["error"]["details"][0]["field"], "name",
            "{body}: {error}"
        );
    }
}

#[tokio::test]
async fn a_key_cannot_revoke_itself_or_probe_ids_and_a_key_cannot_be_revoked_by_an_unknown_id() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let key = app.create_api_key(&ada, "tracker").await;

    // Revoking is credential management: the browser session's, never a key's (docs/api.md, "Least
    // privilege"), and the key is refused before any id is looked at.
    let unknown = uuid::Uuid::now_v7().to_string();
    for id in [unknown.as_str(), "not-a-uuid", key.id.as_str()] {
        let response =
            send(app.with_key(&key.key, Method::DELETE, &format!("/api/me/api-keys/{id}"))).await;
        assert_error(response, 403, "session_required").await;
    }
    assert_eq!(
        send(app.with_key(&key.key, Method::GET, "/api/me"))
            .await
            .status(),
        StatusCode::OK,
        "the key still works"
    );
    for id in [unknown.as_str(), "not-a-uuid"] {
        let response =
            send(app.as_browser(&ada, Method::DELETE, &format!("/api/me/api-keys/{id}"))).await;
        assert_error(response, 404, "not_found").await;
    }
    let response = send(app.as_browser(
        &ada,
        Method::DELETE,
        &format!("/api/me/api-keys/{}", key.id),
    ))
    .await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert_eq!(
        send(app.with_key(&key.key, Method::GET, "/api/me"))
            .await
            .status(),
        StatusCode::UNAUTHORIZED
    );
}
