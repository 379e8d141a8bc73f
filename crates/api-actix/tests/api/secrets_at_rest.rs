//! Secrets at rest: the raw API key and the raw refresh tokens appear nowhere in the database —
//! every column of every table is read back as text and searched — only their SHA-256 hashes do.

use reqwest::{Method, StatusCode};
use sha2::{Digest, Sha256};

use crate::helpers::{
    JWT_SECRET, OPERATOR_KEY, cookie_named, send, set_cookies, spawn_app, where_stored,
};

fn sha256_hex(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

#[tokio::test]
async fn the_raw_api_key_is_stored_nowhere_only_its_hash() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let key = app.create_api_key(&ada, "tracker").await;
    // Use it once, so its use is recorded too.
    assert_eq!(
        send(app.with_key(&key.key, Method::GET, "/api/me"))
            .await
            .status(),
        StatusCode::OK
    );
    app.flush_activity().await;

    assert_eq!(
        where_stored(&app, &key.key),
        Vec::<String>::new(),
        "the raw key"
    );
    // Not even the part after the shown prefix.
    let hidden = &key.key[key.prefix.len()..];
    assert_eq!(
        where_stored(&app, hidden),
        Vec::<String>::new(),
        "the secret part of the key"
    );
    // The search does find what is there: the hash (and the shown prefix).
    assert_eq!(
        where_stored(&app, &sha256_hex(&key.key)),
        ["api_keys.key_hash"]
    );
    assert!(!where_stored(&app, &key.prefix).is_empty());
}

#[tokio::test]
async fn the_raw_refresh_tokens_are_stored_nowhere_only_their_hashes() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let response = send(app.as_browser(&ada, Method::POST, "/api/auth/refresh")).await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    let rotated = cookie_named(&set_cookies(response.headers()), "ds_refresh")
        .value
        .clone();
    app.flush_activity().await;

    for token in [&ada.refresh_token, &rotated] {
        assert_eq!(
            where_stored(&app, token),
            Vec::<String>::new(),
            "a raw refresh token"
        );
        assert_eq!(
            where_stored(&app, &sha256_hex(token)),
            ["refresh_tokens.token_hash"]
        );
    }
}

#[tokio::test]
async fn no_other_secret_reaches_the_database() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    assert_eq!(
        send(app.with_key(OPERATOR_KEY, Method::GET, "/api/me"))
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        app.me_status_with_bearer(&ada.access_jwt).await,
        StatusCode::OK
    );
    app.flush_activity().await;

    assert_eq!(
        where_stored(&app, OPERATOR_KEY),
        Vec::<String>::new(),
        "the operator key"
    );
    assert_eq!(
        where_stored(&app, JWT_SECRET),
        Vec::<String>::new(),
        "the JWT secret"
    );
    let signature = ada.access_jwt.rsplit('.').next().unwrap();
    assert_eq!(
        where_stored(&app, signature),
        Vec::<String>::new(),
        "an access token"
    );
    // The search itself works: Ada's e-mail is where it belongs (dev login also uses it as the
    // subject).
    let places = where_stored(&app, "ada@example.org");
    assert!(places.contains(&"users.email".to_owned()), "{places:?}");
    assert!(places.iter().all(|p| p.starts_with("users.")), "{places:?}");
}
