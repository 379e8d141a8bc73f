//! Sign-in end to end against a real OpenID provider (`tests/oidc-provider`, panva's
//! oidc-provider on Node): `/api/auth/login` → the provider's login and consent pages, driven
//! with an HTTP client → `/api/auth/callback`. The browser stand-in keeps one cookie jar for the
//! provider and the service (cookies ignore ports; the names differ: `_session`... vs `ds_*`).
//!
//! Skipped (with a message) when the provider's `node_modules` is missing, unless
//! `REQUIRE_OIDC_E2E` is set: then they fail.

use adapters_oidc::testing::{
    CLIENT_ID, CLIENT_SECRET, Callback, IdpOptions, TestIdp, browser, free_port, sign_in_with,
};
use reqwest::{Method, Response, StatusCode};
use serde_json::Value;
use url::Url;

use crate::helpers::{
    SetCookie, TestApp, assert_session_cookies_cleared, cookie_named, count, literal, send,
    set_cookies, spawn_app_with,
};

/// The service wired to a test provider, and a browser.
struct SignIn {
    app: TestApp,
    idp: TestIdp,
    browser: reqwest::Client,
    redirect_uri: String,
}

/// Starts the provider (which must know our callback up front) and then the service on the
/// port the callback names; `None` when these tests are skipped.
async fn start(vars: &[(&str, &str)]) -> Option<SignIn> {
    start_with(IdpOptions::default(), vars).await
}

/// [`start`] with a provider started as `options` say (its redirect URI is ours).
async fn start_with(options: IdpOptions, vars: &[(&str, &str)]) -> Option<SignIn> {
    let port = free_port();
    let address = format!("http://127.0.0.1:{port}");
    let redirect_uri = format!("{address}/api/auth/callback");
    let idp = TestIdp::start_with(IdpOptions {
        redirect_uri: Some(redirect_uri.clone()),
        ..options
    })
    .await?;
    let bind = format!("127.0.0.1:{port}");
    let mut all: Vec<(&str, &str)> = vec![
        ("BIND_ADDR", &bind),
        ("OIDC_ISSUER_URL", &idp.issuer),
        ("OIDC_CLIENT_ID", CLIENT_ID),
        ("OIDC_CLIENT_SECRET", CLIENT_SECRET),
        ("OAUTH_REDIRECT_URI", &redirect_uri),
        ("PUBLIC_BASE_URL", &address),
    ];
    all.extend_from_slice(vars);
    let app = spawn_app_with(&all).await;
    assert_eq!(app.port, port);
    Some(SignIn {
        app,
        idp,
        browser: browser(),
        redirect_uri,
    })
}

/// Where a redirect points.
fn location(response: &Response) -> String {
    response
        .headers()
        .get("location")
        .unwrap_or_else(|| panic!("a Location on {}", response.status()))
        .to_str()
        .unwrap()
        .to_owned()
}

/// A `/login?error=<code>` redirect's code.
fn login_error(location: &str) -> Option<String> {
    let url = Url::parse("http://x").unwrap().join(location).unwrap();
    (url.path() == "/login").then(|| {
        url.query_pairs()
            .find(|(k, _)| k == "error")
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default()
    })
}

/// Checks that a callback answer is a redirect and not JSON (never a 500).
async fn assert_redirect_not_json(response: Response) -> (String, Vec<SetCookie>) {
    let status = response.status();
    let to = response
        .headers()
        .get("location")
        .map(|v| v.to_str().unwrap().to_owned());
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned());
    let cookies = set_cookies(response.headers());
    let body = response.text().await.unwrap();
    assert_eq!(status, StatusCode::FOUND, "{to:?}: {body}");
    assert!(
        !content_type.unwrap_or_default().contains("json"),
        "JSON on the callback: {body}"
    );
    assert!(
        serde_json::from_str::<Value>(&body).is_err() || body.is_empty(),
        "JSON on the callback: {body}"
    );
    (to.expect("a Location"), cookies)
}

impl SignIn {
    /// `GET /api/auth/login` (with `?redirect=` when given): the redirect to the provider.
    async fn begin(&self, redirect: Option<&str>) -> Response {
        let mut url = Url::parse(&self.app.url("/api/auth/login")).unwrap();
        if let Some(redirect) = redirect {
            url.query_pairs_mut().append_pair("redirect", redirect);
        }
        send(self.browser.get(url)).await
    }

    /// Begins a sign-in and goes through the provider's pages as `login`; returns the callback
    /// the provider sends the browser to (not yet requested) and the `ds_login` cookie.
    async fn at_provider(&self, login: &str, redirect: Option<&str>) -> (Callback, SetCookie) {
        let response = self.begin(redirect).await;
        assert_eq!(response.status(), StatusCode::FOUND);
        let to = location(&response);
        let login_state = cookie_named(&set_cookies(response.headers()), "ds_login").clone();
        let callback = sign_in_with(&self.browser, &to, login, &self.redirect_uri).await;
        (callback, login_state)
    }

    /// A whole sign-in: the callback's answer.
    async fn sign_in(&self, login: &str, redirect: Option<&str>) -> Response {
        let (callback, _) = self.at_provider(login, redirect).await;
        send(self.browser.get(&callback.url)).await
    }

    fn users_with(&self, subject: &str) -> i64 {
        count(
            &self.app,
            &format!(
                "SELECT COUNT(*) AS n FROM users WHERE oidc_issuer = {} AND oidc_subject = {}",
                literal(&self.idp.issuer),
                literal(subject)
            ),
        )
    }

    fn sessions(&self) -> i64 {
        count(&self.app, "SELECT COUNT(*) AS n FROM sessions")
    }
}

#[tokio::test]
async fn login_redirects_to_the_provider_with_pkce_state_and_nonce_and_sets_a_login_cookie() {
    let Some(s) = start(&[]).await else { return };

    // The sign-in page learns that a provider is configured (dev login is on too: dev mode).
    let config = send(s.app.api.get(s.app.url("/api/auth/config"))).await;
    assert_eq!(
        config.json::<Value>().await.unwrap(),
        serde_json::json!({"sign_in": true, "dev_login": true})
    );

    let response = s.begin(Some("/profile.html")).await;

    assert_eq!(response.status(), StatusCode::FOUND);
    let to = Url::parse(&location(&response)).unwrap();
    assert!(
        to.as_str().starts_with(&format!("{}/auth?", s.idp.issuer)),
        "{to}"
    );
    let param = |name: &str| {
        to.query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    };
    assert_eq!(param("response_type").as_deref(), Some("code"));
    assert_eq!(param("client_id").as_deref(), Some(CLIENT_ID));
    assert_eq!(
        param("redirect_uri").as_deref(),
        Some(s.redirect_uri.as_str())
    );
    assert_eq!(param("code_challenge_method").as_deref(), Some("S256"));
    assert!(param("code_challenge").is_some_and(|c| c.len() >= 43));
    assert!(param("state").is_some_and(|v| v.len() >= 16));
    assert!(param("nonce").is_some_and(|v| v.len() >= 16));
    let cookies = set_cookies(response.headers());
    let login = cookie_named(&cookies, "ds_login");
    assert!(!login.value.is_empty());
    assert!(login.has_flag("HttpOnly"), "{login:?}");
    assert_eq!(login.attribute("SameSite"), Some("Lax"), "{login:?}");
    assert!(
        login
            .attribute("Max-Age")
            .and_then(|m| m.parse::<i64>().ok())
            .is_some_and(|m| m > 0 && m <= 3_600),
        "{login:?}"
    );
    // The PKCE verifier and the state never travel in the clear.
    assert!(
        !login.value.contains(&param("state").unwrap()),
        "the login cookie is opaque: {login:?}"
    );
    assert!(
        cookies
            .iter()
            .all(|c| c.name != "ds_access" && c.name != "ds_refresh")
    );
}

#[tokio::test]
async fn a_full_sign_in_creates_the_person_sets_the_session_cookies_and_returns_to_the_page() {
    let Some(s) = start(&[]).await else { return };

    let response = s.sign_in("ada.lovelace", Some("/profile.html")).await;

    let (to, cookies) = assert_redirect_not_json(response).await;
    assert_eq!(to, "/profile.html");
    let access = cookie_named(&cookies, "ds_access");
    assert!(
        !access.value.is_empty() && access.has_flag("HttpOnly") && !access.has_flag("Secure"),
        "{access:?}"
    );
    assert_eq!(access.attribute("SameSite"), Some("Lax"));
    assert_eq!(access.attribute("Path"), Some("/"));
    assert_eq!(access.attribute("Max-Age"), Some("900"));
    let refresh = cookie_named(&cookies, "ds_refresh");
    assert!(
        !refresh.value.is_empty() && refresh.has_flag("HttpOnly") && !refresh.has_flag("Secure"),
        "{refresh:?}"
    );
    assert_eq!(refresh.attribute("SameSite"), Some("Strict"));
    assert_eq!(refresh.attribute("Path"), Some("/api/auth"));
    // The one-time login state is spent.
    assert_eq!(
        cookie_named(&cookies, "ds_login").attribute("Max-Age"),
        Some("0")
    );

    assert_eq!(
        s.users_with("ada.lovelace"),
        1,
        "the person is stored by issuer and subject"
    );
    let response = send(s.browser.get(s.app.url("/api/me"))).await;
    assert_eq!(response.status(), StatusCode::OK);
    let me: Value = response.json().await.unwrap();
    assert_eq!(me["email"], "ada.lovelace@example.org");
    assert_eq!(me["name"], "Ada Lovelace");
    assert_eq!(me["is_admin"], false);
    // The cookie's token is a Bearer token too, and the browser can refresh.
    assert_eq!(
        s.app.me_status_with_bearer(&access.value).await,
        StatusCode::OK
    );
    let response = send(
        s.browser
            .post(s.app.url("/api/auth/refresh"))
            .header("Origin", s.app.origin()),
    )
    .await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);

    // The sign-in is in the person's activity.
    let id = me["id"].as_str().unwrap().to_owned();
    let items = s
        .app
        .activity_until(&id, |items| {
            items.iter().any(|i| i["action"] == "auth.login")
        })
        .await;
    let login = items.iter().find(|i| i["action"] == "auth.login").unwrap();
    assert_eq!(login["status"], 302, "{login}");
    assert_eq!(login["source"], "web", "{login}");
}

/// With `OIDC_CLIENT_SECRET` empty the service is a public client (PKCE only). The provider
/// registered it with no secret and refuses a token request that carries one, even `""`.
#[tokio::test]
async fn an_empty_client_secret_signs_in_as_a_public_client() {
    let public = IdpOptions {
        public_client: true,
        ..IdpOptions::default()
    };
    let Some(s) = start_with(public, &[("OIDC_CLIENT_SECRET", "")]).await else {
        return;
    };

    let response = s.sign_in("ada.lovelace", Some("/profile.html")).await;

    let (to, cookies) = assert_redirect_not_json(response).await;
    assert_eq!(to, "/profile.html");
    assert!(!cookie_named(&cookies, "ds_access").value.is_empty());
    assert_eq!(s.users_with("ada.lovelace"), 1);
    let me = send(s.browser.get(s.app.url("/api/me"))).await;
    assert_eq!(me.status(), StatusCode::OK);
}

#[tokio::test]
async fn signing_in_again_is_the_same_person_with_a_second_session() {
    let Some(s) = start(&[("ADMIN_EMAILS", "grace@navy.mil")]).await else {
        return;
    };

    let (first, _) = assert_redirect_not_json(s.sign_in("grace@navy.mil", None).await).await;
    let (second, cookies) = assert_redirect_not_json(s.sign_in("grace@navy.mil", None).await).await;

    assert_eq!(
        (first.as_str(), second.as_str()),
        ("/", "/"),
        "POST_LOGIN_REDIRECT by default"
    );
    assert_eq!(s.users_with("grace@navy.mil"), 1);
    assert_eq!(s.sessions(), 2);
    // An admin by e-mail after a real sign-in.
    let access = cookie_named(&cookies, "ds_access").value.clone();
    let response = send(
        s.app
            .with_bearer(&access, Method::GET, "/api/admin/activity"),
    )
    .await;
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn an_email_outside_the_allowed_domains_is_refused_and_no_one_is_stored() {
    let Some(mut s) = start(&[("ALLOWED_EMAIL_DOMAINS", "Example.org")]).await else {
        return;
    };

    let (to, cookies) =
        assert_redirect_not_json(s.sign_in("grace@navy.mil", Some("/profile.html")).await).await;

    assert_eq!(
        login_error(&to).as_deref(),
        Some("email_domain_not_allowed"),
        "{to}"
    );
    assert!(
        cookies
            .iter()
            .all(|c| c.name != "ds_access" && c.name != "ds_refresh"),
        "{cookies:?}"
    );
    assert_eq!(s.users_with("grace@navy.mil"), 0);
    assert_eq!(
        count(
            &s.app,
            "SELECT COUNT(*) AS n FROM users WHERE email = 'grace@navy.mil'"
        ),
        0
    );
    assert_eq!(s.sessions(), 0);
    assert_eq!(
        send(s.browser.get(s.app.url("/api/me"))).await.status(),
        StatusCode::UNAUTHORIZED
    );

    // A person of an allowed domain gets in (a new browser: the provider remembers Grace).
    s.browser = browser();
    let (to, _) = assert_redirect_not_json(s.sign_in("ada.lovelace", None).await).await;
    assert_eq!(to, "/");
    assert_eq!(s.users_with("ada.lovelace"), 1);
}

#[tokio::test]
async fn an_unverified_email_is_refused_and_no_one_is_stored() {
    let Some(s) = start(&[]).await else { return };

    let (to, cookies) = assert_redirect_not_json(s.sign_in("unverified-bob", None).await).await;

    assert_eq!(
        login_error(&to).as_deref(),
        Some("email_not_verified"),
        "{to}"
    );
    assert!(
        cookies
            .iter()
            .all(|c| c.name != "ds_access" && c.name != "ds_refresh"),
        "{cookies:?}"
    );
    assert_eq!(s.users_with("unverified-bob"), 0);
    assert_eq!(s.sessions(), 0);
}

#[tokio::test]
async fn a_mailbox_expression_as_the_e_mail_is_refused_and_no_one_is_stored() {
    let Some(s) = start(&[]).await else { return };

    // The test provider vouches (verified) for whatever was typed as the address.
    let login = "x<victim@evil.example>";
    let (to, cookies) = assert_redirect_not_json(s.sign_in(login, None).await).await;

    assert_eq!(login_error(&to).as_deref(), Some("invalid_email"), "{to}");
    assert!(
        cookies
            .iter()
            .all(|c| c.name != "ds_access" && c.name != "ds_refresh"),
        "{cookies:?}"
    );
    assert_eq!(s.users_with(login), 0);
    assert_eq!(
        count(
            &s.app,
            "SELECT COUNT(*) AS n FROM users WHERE email LIKE '%victim%'"
        ),
        0
    );
    assert_eq!(s.sessions(), 0);
}

#[tokio::test]
async fn a_wrong_state_is_refused() {
    let Some(s) = start(&[]).await else { return };
    let (callback, _) = s.at_provider("ada.lovelace", None).await;

    let mut url = Url::parse(&callback.url).unwrap();
    let pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(k, v)| {
            let value = if k == "state" {
                format!("{v}x")
            } else {
                v.into_owned()
            };
            (k.into_owned(), value)
        })
        .collect();
    url.query_pairs_mut().clear().extend_pairs(pairs);
    let (to, cookies) = assert_redirect_not_json(send(s.browser.get(url)).await).await;

    assert_eq!(login_error(&to).as_deref(), Some("invalid_state"), "{to}");
    assert!(cookies.iter().all(|c| c.name != "ds_access"), "{cookies:?}");
    assert_eq!(s.users_with("ada.lovelace"), 0);
}

#[tokio::test]
async fn a_callback_without_the_login_cookie_is_an_expired_login() {
    let Some(s) = start(&[]).await else { return };
    let (callback, _) = s.at_provider("ada.lovelace", None).await;

    // Another browser (or this one after the cookie expired) brings the provider's answer.
    let (to, _) = assert_redirect_not_json(send(browser().get(&callback.url)).await).await;

    assert_eq!(login_error(&to).as_deref(), Some("login_expired"), "{to}");
    assert_eq!(s.users_with("ada.lovelace"), 0);
}

#[tokio::test]
async fn a_tampered_login_cookie_is_an_expired_login() {
    let Some(s) = start(&[]).await else { return };
    let (callback, login_state) = s.at_provider("ada.lovelace", None).await;

    let mut tampered = login_state.value.clone();
    tampered.insert(tampered.len() / 2, 'x');
    let response = send(
        s.app
            .client()
            .get(&callback.url)
            .header("Cookie", format!("ds_login={tampered}")),
    )
    .await;
    let (to, _) = assert_redirect_not_json(response).await;

    assert_eq!(login_error(&to).as_deref(), Some("login_expired"), "{to}");
    assert_eq!(s.users_with("ada.lovelace"), 0);
}

#[tokio::test]
async fn a_replayed_code_is_refused() {
    let Some(s) = start(&[]).await else { return };
    let (callback, login_state) = s.at_provider("ada.lovelace", None).await;
    let (to, _) = assert_redirect_not_json(send(s.browser.get(&callback.url)).await).await;
    assert_eq!(to, "/");
    assert_eq!(s.sessions(), 1);

    // The same browser again: the login state is spent.
    let (to, cookies) = assert_redirect_not_json(send(s.browser.get(&callback.url)).await).await;
    assert!(login_error(&to).is_some(), "{to}");
    assert!(cookies.iter().all(|c| c.name != "ds_access"), "{cookies:?}");

    // Someone who kept a copy of the login cookie: the provider refuses the used code.
    let response = send(
        s.app
            .client()
            .get(&callback.url)
            .header("Cookie", format!("ds_login={}", login_state.value)),
    )
    .await;
    let (to, cookies) = assert_redirect_not_json(response).await;
    assert_eq!(login_error(&to).as_deref(), Some("code_rejected"), "{to}");
    assert!(cookies.iter().all(|c| c.name != "ds_access"), "{cookies:?}");
    assert_eq!(s.sessions(), 1, "no second session from the replay");
}

#[tokio::test]
async fn an_authorization_response_claiming_another_issuer_is_refused() {
    let Some(s) = start(&[]).await else { return };
    let (callback, _) = s.at_provider("ada.lovelace", None).await;
    assert_eq!(
        callback.iss.as_deref(),
        Some(s.idp.issuer.as_str()),
        "the provider sends iss (RFC 9207)"
    );

    let mut url = Url::parse(&callback.url).unwrap();
    let pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(k, v)| {
            let value = if k == "iss" {
                "https://evil.example".to_owned()
            } else {
                v.into_owned()
            };
            (k.into_owned(), value)
        })
        .collect();
    url.query_pairs_mut().clear().extend_pairs(pairs);
    let (to, _) = assert_redirect_not_json(send(s.browser.get(url)).await).await;

    assert!(login_error(&to).is_some(), "{to}");
    assert_eq!(s.users_with("ada.lovelace"), 0);
}

#[tokio::test]
async fn an_open_redirect_lands_on_the_post_login_page_instead() {
    let Some(s) = start(&[]).await else { return };

    for target in [
        "//evil.example",
        "https://evil.example",
        "/\\evil",
        "/\\/evil.example/",
        "javascript:alert(1)",
        "evil.example",
    ] {
        let (to, cookies) =
            assert_redirect_not_json(s.sign_in("ada.lovelace", Some(target)).await).await;
        assert_eq!(to, "/", "{target}");
        cookie_named(&cookies, "ds_access");
    }
    // A local path with a query is kept as it is.
    let (to, _) = assert_redirect_not_json(
        s.sign_in("ada.lovelace", Some("/profile.html?tab=keys"))
            .await,
    )
    .await;
    assert_eq!(to, "/profile.html?tab=keys");
}

#[tokio::test]
async fn without_a_redirect_the_person_lands_on_the_configured_post_login_page() {
    let Some(s) = start(&[("POST_LOGIN_REDIRECT", "/welcome.html")]).await else {
        return;
    };

    let (to, _) = assert_redirect_not_json(s.sign_in("ada.lovelace", None).await).await;
    assert_eq!(to, "/welcome.html");
    let (to, _) = assert_redirect_not_json(
        s.sign_in("ada.lovelace", Some("https://evil.example/"))
            .await,
    )
    .await;
    assert_eq!(to, "/welcome.html");
}

#[tokio::test]
async fn broken_callbacks_redirect_to_the_login_page_never_json_never_a_500() {
    let Some(s) = start(&[]).await else { return };
    // A code the provider really issued (not yet redeemed).
    let (callback, _) = s.at_provider("ada.lovelace", None).await;
    let issuer = s.idp.issuer.clone();

    // `{state}` is the state of a live sign-in in the browser, so the checks after the login
    // cookie's are reached too.
    let queries = [
        String::new(),
        "?error=access_denied&error_description=no".to_owned(),
        "?error=access_denied&state={state}".to_owned(),
        "?state={state}".to_owned(),
        "?code=abc".to_owned(),
        format!("?code=garbage&state={{state}}&iss={issuer}"),
        "?code=%ZZ&state=%".to_owned(),
        format!("?code={}&code=other&state={{state}}", callback.code),
    ];
    for query in queries {
        // Each failure spends the login state: begin a fresh sign-in before each attempt.
        let begun = s.begin(None).await;
        let to = Url::parse(&location(&begun)).unwrap();
        let state = to
            .query_pairs()
            .find(|(k, _)| k == "state")
            .map(|(_, v)| v.into_owned())
            .unwrap();
        let query = query.replace("{state}", &state);
        let response = send(
            s.browser
                .get(s.app.url(&format!("/api/auth/callback{query}"))),
        )
        .await;
        let (to, _) = assert_redirect_not_json(response).await;
        assert!(
            login_error(&to).is_some_and(|e| !e.is_empty()),
            "{query}: {to}"
        );
    }
    assert_eq!(s.sessions(), 0);
}

#[tokio::test]
async fn an_unreachable_provider_sends_the_person_back_to_the_login_page() {
    let dead = format!("http://127.0.0.1:{}", free_port());
    let app = spawn_app_with(&[
        ("OIDC_ISSUER_URL", &dead),
        ("OIDC_CLIENT_ID", CLIENT_ID),
        ("OIDC_CLIENT_SECRET", CLIENT_SECRET),
    ])
    .await;

    let response = send(
        app.api
            .get(app.url("/api/auth/login?redirect=/profile.html")),
    )
    .await;
    let (to, cookies) = assert_redirect_not_json(response).await;

    assert_eq!(
        login_error(&to).as_deref(),
        Some("provider_unavailable"),
        "{to}"
    );
    assert!(cookies.iter().all(|c| c.name != "ds_access"));
    // The service itself is fine.
    assert_eq!(
        send(app.api.get(app.url("/healthz"))).await.status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_sign_in_session_ends_with_logout() {
    let Some(s) = start(&[]).await else { return };
    let (to, cookies) = assert_redirect_not_json(s.sign_in("ada.lovelace", None).await).await;
    assert_eq!(to, "/");
    let access = cookie_named(&cookies, "ds_access").value.clone();

    let response = send(
        s.browser
            .post(s.app.url("/api/auth/logout"))
            .header("Origin", s.app.origin()),
    )
    .await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert_session_cookies_cleared(&set_cookies(response.headers()));

    assert_eq!(
        s.app.me_status_with_bearer(&access).await,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        send(s.browser.get(s.app.url("/api/me"))).await.status(),
        StatusCode::UNAUTHORIZED
    );
}

/// Headers a client may write itself; none of them may name its address.
const SPOOFED: [(&str, &str); 3] = [
    ("X-Forwarded-For", "203.0.113.9"),
    ("Forwarded", "for=203.0.113.10"),
    ("X-Real-IP", "203.0.113.11"),
];

/// Signs in with `headers` on the callback request (where the session is opened) and returns
/// the addresses the person's sessions list.
async fn session_addresses(s: &SignIn, headers: &[(&str, &str)]) -> Vec<Value> {
    let (callback, _) = s.at_provider("ada.lovelace", None).await;
    let mut request = s.browser.get(&callback.url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let (to, _) = assert_redirect_not_json(send(request).await).await;
    assert_eq!(login_error(&to), None, "{to}");
    let response = send(s.browser.get(s.app.url("/api/me/sessions"))).await;
    assert_eq!(response.status(), StatusCode::OK);
    let sessions: Vec<Value> = response.json().await.unwrap();
    sessions.iter().map(|s| s["ip"].clone()).collect()
}

#[tokio::test]
async fn a_sessions_address_is_the_peers_whatever_forwarding_headers_say() {
    let Some(s) = start(&[]).await else { return };
    assert_eq!(session_addresses(&s, &SPOOFED).await, ["127.0.0.1"]);
}

#[tokio::test]
async fn behind_a_trusted_proxy_the_address_is_the_one_it_appended() {
    let Some(s) = start(&[("RATE_LIMIT_TRUST_FORWARDED_FOR", "true")]).await else {
        return;
    };
    let addresses = session_addresses(
        &s,
        &[
            ("X-Forwarded-For", "203.0.113.9, 198.51.100.4"),
            ("Forwarded", "for=203.0.113.10"),
        ],
    )
    .await;
    assert_eq!(addresses, ["198.51.100.4"]);
}
