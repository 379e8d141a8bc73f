//! Sessions: the cookies and their flags, the access token's claims, refresh-token rotation
//! with re-use detection, logout, and the session list.

use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::helpers::{
    JWT_AUDIENCE, JWT_ISSUER, SetCookie, SignedIn, TestApp, USER_AGENT, assert_error,
    assert_session_cookies_cleared, cookie_named, count, execute, jwt_claims, literal, send,
    set_cookies, spawn_app, spawn_app_with,
};

/// `POST /api/auth/refresh` from the service's own page, with the refresh token `token`.
async fn refresh_with(app: &TestApp, token: &str) -> reqwest::Response {
    send(
        app.api
            .post(app.url("/api/auth/refresh"))
            .header("Origin", app.origin())
            .header("Cookie", format!("ds_refresh={token}")),
    )
    .await
}

/// Refreshes with `token` and returns the new (access, refresh) pair.
async fn rotate(app: &TestApp, token: &str) -> (String, String) {
    let response = refresh_with(app, token).await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    let cookies = set_cookies(response.headers());
    (
        cookie_named(&cookies, "ds_access").value.clone(),
        cookie_named(&cookies, "ds_refresh").value.clone(),
    )
}

fn assert_access_cookie(cookie: &SetCookie, max_age: &str, secure: bool) {
    assert!(!cookie.value.is_empty(), "{cookie:?}");
    assert!(cookie.has_flag("HttpOnly"), "{cookie:?}");
    assert_eq!(cookie.attribute("SameSite"), Some("Lax"), "{cookie:?}");
    assert_eq!(cookie.attribute("Path"), Some("/"), "{cookie:?}");
    assert_eq!(cookie.attribute("Max-Age"), Some(max_age), "{cookie:?}");
    assert_eq!(cookie.has_flag("Secure"), secure, "{cookie:?}");
}

fn assert_refresh_cookie(cookie: &SetCookie, secure: bool) {
    assert!(!cookie.value.is_empty(), "{cookie:?}");
    assert!(cookie.has_flag("HttpOnly"), "{cookie:?}");
    assert_eq!(cookie.attribute("SameSite"), Some("Strict"), "{cookie:?}");
    assert_eq!(cookie.attribute("Path"), Some("/api/auth"), "{cookie:?}");
    assert_eq!(cookie.has_flag("Secure"), secure, "{cookie:?}");
    let max_age: i64 = cookie
        .attribute("Max-Age")
        .expect("a Max-Age")
        .parse()
        .unwrap();
    // The refresh lifetime (30 days by default), give or take the seconds the test took.
    assert!(
        (2_592_000 - 60..=2_592_000).contains(&max_age),
        "{cookie:?}"
    );
}

async fn dev_login_cookies(app: &TestApp, email: &str) -> Vec<SetCookie> {
    let response = send(
        app.api
            .post(app.url("/api/auth/dev-login"))
            .header("Origin", app.origin())
            .json(&serde_json::json!({ "email": email })),
    )
    .await;
    assert_eq!(response.status(), StatusCode::OK);
    set_cookies(response.headers())
}

#[tokio::test]
async fn signing_in_sets_both_session_cookies_with_the_contracts_flags_and_no_secure_in_dev() {
    let app = spawn_app().await;

    let cookies = dev_login_cookies(&app, "ada@example.org").await;

    assert_access_cookie(cookie_named(&cookies, "ds_access"), "900", false);
    assert_refresh_cookie(cookie_named(&cookies, "ds_refresh"), false);
}

#[tokio::test]
async fn with_cookie_secure_both_session_cookies_are_secure() {
    let app = spawn_app_with(&[("COOKIE_SECURE", "true")]).await;

    let cookies = dev_login_cookies(&app, "ada@example.org").await;

    assert_access_cookie(cookie_named(&cookies, "ds_access"), "900", true);
    assert_refresh_cookie(cookie_named(&cookies, "ds_refresh"), true);
}

#[tokio::test]
async fn the_access_cookie_lives_as_long_as_the_configured_access_lifetime() {
    let app = spawn_app_with(&[("JWT_ACCESS_TTL_SECONDS", "120")]).await;

    let cookies = dev_login_cookies(&app, "ada@example.org").await;

    let access = cookie_named(&cookies, "ds_access");
    assert_access_cookie(access, "120", false);
    let claims = jwt_claims(&access.value);
    assert_eq!(
        claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap(),
        120
    );
}

#[tokio::test]
async fn the_access_token_carries_the_contracts_claims() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let admin = app.admin_login(crate::helpers::ADMIN_EMAIL).await;

    let claims = jwt_claims(&ada.access_jwt);
    assert_eq!(claims["sub"], ada.user_id.as_str());
    assert_eq!(claims["adm"], false);
    assert_eq!(claims["iss"], JWT_ISSUER);
    assert_eq!(claims["aud"], JWT_AUDIENCE);
    assert_eq!(
        claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap(),
        900
    );
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    assert!(
        (claims["iat"].as_i64().unwrap() - now).abs() < 60,
        "{claims}"
    );
    assert!(
        uuid::Uuid::parse_str(claims["sid"].as_str().unwrap()).is_ok(),
        "{claims}"
    );
    let header: Value = serde_json::from_slice(
        &base64::Engine::decode(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD,
            ada.access_jwt.split('.').next().unwrap(),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(header["alg"], "HS256");
    assert_eq!(jwt_claims(&admin.access_jwt)["adm"], true);
}

#[tokio::test]
async fn refreshing_rotates_the_refresh_token_and_sets_new_cookies() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    // The browser's own jar sends ds_refresh (Path=/api/auth) to the refresh route.
    let response = send(app.as_browser(&ada, Method::POST, "/api/auth/refresh")).await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    let cookies = set_cookies(response.headers());
    let access = cookie_named(&cookies, "ds_access");
    let refresh = cookie_named(&cookies, "ds_refresh");
    assert_access_cookie(access, "900", false);
    assert_refresh_cookie(refresh, false);
    assert_ne!(
        refresh.value, ada.refresh_token,
        "the refresh token is rotated"
    );
    // Same session, same person.
    let claims = jwt_claims(&access.value);
    assert_eq!(claims["sid"], ada.session_id.as_str());
    assert_eq!(claims["sub"], ada.user_id.as_str());
    assert_eq!(
        app.me_status_with_bearer(&access.value).await,
        StatusCode::OK
    );

    // The jar now holds the new token: the browser can refresh again.
    let response = send(app.as_browser(&ada, Method::POST, "/api/auth/refresh")).await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    let newest = cookie_named(&set_cookies(response.headers()), "ds_refresh")
        .value
        .clone();
    assert_ne!(newest, refresh.value);
    assert_ne!(newest, ada.refresh_token);
}

#[tokio::test]
async fn a_rotated_refresh_token_is_refused_and_its_reuse_revokes_the_whole_session() {
    // No grace: the replay below comes "after the window".
    let app = spawn_app_with(&[("REFRESH_REUSE_GRACE_SECONDS", "0")]).await;
    let ada = app.dev_login("ada@example.org").await;
    let (access2, refresh2) = rotate(&app, &ada.refresh_token).await;
    assert_eq!(app.me_status_with_bearer(&access2).await, StatusCode::OK);

    // Someone replays the first (rotated) token.
    let response = refresh_with(&app, &ada.refresh_token).await;
    let cookies = set_cookies(response.headers());
    assert_error(response, 401, "unauthenticated").await;
    assert_session_cookies_cleared(&cookies);

    // The whole session is gone: the newest refresh token and every access token of it.
    let response = refresh_with(&app, &refresh2).await;
    assert_error(response, 401, "unauthenticated").await;
    assert_eq!(
        app.me_status_with_bearer(&access2).await,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        app.me_status_with_bearer(&ada.access_jwt).await,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn reuse_of_a_refresh_token_does_not_touch_the_persons_other_sessions() {
    let app = spawn_app_with(&[("REFRESH_REUSE_GRACE_SECONDS", "0")]).await;
    let laptop = app.dev_login("ada@example.org").await;
    let phone = app.dev_login("ada@example.org").await;
    rotate(&app, &laptop.refresh_token).await;

    let response = refresh_with(&app, &laptop.refresh_token).await;
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);

    assert_eq!(
        app.me_status_with_bearer(&phone.access_jwt).await,
        StatusCode::OK
    );
    rotate(&app, &phone.refresh_token).await;
}

#[tokio::test]
async fn refreshing_without_or_with_an_unknown_refresh_token_is_unauthenticated() {
    let app = spawn_app().await;

    let response = send(
        app.api
            .post(app.url("/api/auth/refresh"))
            .header("Origin", app.origin()),
    )
    .await;
    let cookies = set_cookies(response.headers());
    assert_error(response, 401, "unauthenticated").await;
    assert_session_cookies_cleared(&cookies);

    let response = refresh_with(
        &app,
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    )
    .await;
    assert_error(response, 401, "unauthenticated").await;
}

#[tokio::test]
async fn logout_clears_both_cookies_and_revokes_the_session() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    let response = send(app.as_browser(&ada, Method::POST, "/api/auth/logout")).await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert_session_cookies_cleared(&set_cookies(response.headers()));

    // The browser holds no session cookie any more.
    let response = send(app.as_browser(&ada, Method::GET, "/api/me")).await;
    assert_error(response, 401, "unauthenticated").await;
    // Copies kept elsewhere are dead too.
    assert_eq!(
        app.me_status_with_bearer(&ada.access_jwt).await,
        StatusCode::UNAUTHORIZED
    );
    let response = refresh_with(&app, &ada.refresh_token).await;
    assert_error(response, 401, "unauthenticated").await;
}

#[tokio::test]
async fn logout_with_only_the_refresh_cookie_revokes_the_session() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    let response = send(
        app.api
            .post(app.url("/api/auth/logout"))
            .header("Origin", app.origin())
            .header("Cookie", format!("ds_refresh={}", ada.refresh_token)),
    )
    .await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert_session_cookies_cleared(&set_cookies(response.headers()));

    assert_eq!(
        app.me_status_with_bearer(&ada.access_jwt).await,
        StatusCode::UNAUTHORIZED
    );
}

async fn sessions_of(app: &TestApp, who: &SignedIn) -> Vec<Value> {
    let response = send(app.as_browser(who, Method::GET, "/api/me/sessions")).await;
    assert_eq!(response.status(), StatusCode::OK);
    response.json::<Vec<Value>>().await.unwrap()
}

#[tokio::test]
async fn the_session_list_shows_the_persons_open_sessions_and_marks_the_callers() {
    let app = spawn_app().await;
    let laptop = app.dev_login("ada@example.org").await;
    let phone = app.dev_login("ada@example.org").await;

    let sessions = sessions_of(&app, &laptop).await;

    assert_eq!(sessions.len(), 2, "{sessions:#?}");
    for session in &sessions {
        for field in [
            "id",
            "created_at",
            "last_used_at",
            "expires_at",
            "user_agent",
            "ip",
            "current",
        ] {
            assert!(session.get(field).is_some(), "{field} in {session}");
        }
        for field in ["created_at", "last_used_at", "expires_at"] {
            let at = session[field].as_str().unwrap();
            assert!(
                time::OffsetDateTime::parse(at, &time::format_description::well_known::Rfc3339)
                    .is_ok()
                    && at.ends_with('Z'),
                "{field}: {at}"
            );
        }
        assert_eq!(session["user_agent"], USER_AGENT);
        assert_eq!(session["ip"], "127.0.0.1");
        assert_eq!(
            session["current"],
            session["id"] == laptop.session_id.as_str(),
            "{session}"
        );
    }
    assert!(
        sessions
            .iter()
            .any(|s| s["id"] == phone.session_id.as_str())
    );
    // From the phone, the phone is current.
    let from_phone = sessions_of(&app, &phone).await;
    let current: Vec<_> = from_phone.iter().filter(|s| s["current"] == true).collect();
    assert_eq!(current.len(), 1);
    assert_eq!(current[0]["id"], phone.session_id.as_str());

    // A revoked session leaves the list.
    let response = send(app.as_browser(
        &laptop,
        Method::DELETE,
        &format!("/api/me/sessions/{}", phone.session_id),
    ))
    .await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    let sessions = sessions_of(&app, &laptop).await;
    assert_eq!(sessions.len(), 1, "{sessions:#?}");
    assert_eq!(sessions[0]["id"], laptop.session_id.as_str());
}

#[tokio::test]
async fn each_session_names_its_device_in_words_beside_the_raw_user_agent() {
    let app = spawn_app().await;
    let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
    let iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 \
                  (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1";
    let laptop = app
        .dev_login_with("ada@example.org", &[("User-Agent", firefox)])
        .await;
    app.dev_login_with("ada@example.org", &[("User-Agent", iphone)])
        .await;
    app.dev_login("ada@example.org").await;

    let mut named: Vec<(Value, Value)> = sessions_of(&app, &laptop)
        .await
        .into_iter()
        .map(|s| (s["user_agent"].clone(), s["device"].clone()))
        .collect();
    named.sort_by_key(|(agent, _)| agent.to_string());
    assert_eq!(
        named,
        [
            (Value::from(firefox), Value::from("Firefox on Linux")),
            (Value::from(iphone), Value::from("Safari on iPhone")),
            // The tests' own client names no browser: no name, and the page shows the string.
            (Value::from(USER_AGENT), Value::Null),
        ]
    );
}

#[tokio::test]
async fn revoking_an_unknown_session_is_not_found() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    let unknown = uuid::Uuid::now_v7().to_string();
    for id in [unknown.as_str(), "not-a-uuid"] {
        let response =
            send(app.as_browser(&ada, Method::DELETE, &format!("/api/me/sessions/{id}"))).await;
        assert_error(response, 404, "not_found").await;
    }
    assert_eq!(
        app.me_status_with_bearer(&ada.access_jwt).await,
        StatusCode::OK
    );
}

// A session's address is tested where sessions come from behind a proxy: the identity provider's
// callback (`sign_in.rs`); dev login refuses forwarded requests outright (`least_privilege.rs`).

/// Two tabs refresh at the same moment with the same token: both succeed, into one session, and
/// each tab's new token keeps working.
#[tokio::test]
async fn two_refreshes_with_one_token_within_the_grace_window_both_succeed_in_one_session() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;
    let (first, second) = tokio::join!(
        refresh_with(&app, &ada.refresh_token),
        refresh_with(&app, &ada.refresh_token)
    );
    let mut tabs = Vec::new();
    for response in [first, second] {
        assert_eq!(response.status(), StatusCode::NO_CONTENT);
        let cookies = set_cookies(response.headers());
        tabs.push((
            cookie_named(&cookies, "ds_access").value.clone(),
            cookie_named(&cookies, "ds_refresh").value.clone(),
        ));
    }
    // And once more with the old token, a moment later (still within 30 s).
    let (access3, _) = rotate(&app, &ada.refresh_token).await;
    for (access, refresh) in &tabs {
        assert_eq!(app.me_status_with_bearer(access).await, StatusCode::OK);
        let (next, _) = rotate(&app, refresh).await;
        assert_eq!(app.me_status_with_bearer(&next).await, StatusCode::OK);
    }
    assert_eq!(app.me_status_with_bearer(&access3).await, StatusCode::OK);
    let sessions = count(
        &app,
        &format!(
            "SELECT COUNT(*) AS n FROM sessions WHERE user_id = {} AND revoked_at IS NULL",
            literal(&ada.user_id)
        ),
    );
    assert_eq!(sessions, 1, "one session");
}

/// A re-use after the window still revokes the session, even after a re-use within it.
#[tokio::test]
async fn a_reuse_after_the_grace_window_revokes_the_session() {
    let app = spawn_app_with(&[("REFRESH_REUSE_GRACE_SECONDS", "1")]).await;
    let ada = app.dev_login("ada@example.org").await;
    let (access2, _) = rotate(&app, &ada.refresh_token).await;
    tokio::time::sleep(std::time::Duration::from_millis(2_100)).await;
    let response = refresh_with(&app, &ada.refresh_token).await;
    assert_error(response, 401, "unauthenticated").await;
    // The session is revoked: its tokens stop working (within the credential cache's second).
    tokio::time::sleep(std::time::Duration::from_millis(1_100)).await;
    assert_eq!(
        app.me_status_with_bearer(&access2).await,
        StatusCode::UNAUTHORIZED
    );
}

/// A session nobody used for the idle timeout can no longer refresh.
#[tokio::test]
async fn a_session_idle_past_the_timeout_cannot_refresh() {
    let app = spawn_app_with(&[("SESSION_IDLE_TIMEOUT_SECONDS", "3600")]).await;
    let ada = app.dev_login("ada@example.org").await;
    let (_, refresh2) = rotate(&app, &ada.refresh_token).await;
    // Last used long ago (set in the database: the service has no clock to turn).
    let set = execute(
        &app,
        &format!(
            "UPDATE sessions SET last_used_at = '2026-01-01 00:00:00' WHERE id = {}",
            literal(&ada.session_id)
        ),
    );
    assert_eq!(set, 1);
    let response = refresh_with(&app, &refresh2).await;
    assert_error(response, 401, "unauthenticated").await;
}
