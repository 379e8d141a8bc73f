//! The browser front end: the pages and their files are served without signing in, with a
//! strict Content-Security-Policy and the other protective headers; `/login` is the sign-in page
//! (where failed sign-ins land); API paths still win, and unknown paths stay JSON 404s.

use reqwest::{Method, Response, StatusCode};

use crate::helpers::{assert_error, send, spawn_app};

const PAGES: [&str; 8] = [
    "/",
    "/login",
    "/login.html",
    "/discovery.html",
    "/profile.html",
    "/coaching.html",
    "/dashboard.html",
    "/account.html",
];

fn header<'a>(response: &'a Response, name: &str) -> &'a str {
    response
        .headers()
        .get(name)
        .unwrap_or_else(|| panic!("{name} is set on {}", response.url()))
        .to_str()
        .unwrap()
}

fn assert_protected(response: &Response) {
    let policy = header(response, "content-security-policy");
    for directive in [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "frame-ancestors 'none'",
        "object-src 'none'",
    ] {
        assert!(policy.contains(directive), "{directive} in {policy}");
    }
    assert!(!policy.contains("unsafe-inline"), "{policy}");
    assert_eq!(header(response, "x-content-type-options"), "nosniff");
    assert_eq!(header(response, "referrer-policy"), "same-origin");
}

#[tokio::test]
async fn every_page_is_served_as_html_with_a_strict_content_security_policy() {
    let app = spawn_app().await;

    for page in PAGES {
        let response = send(app.api.get(app.url(page))).await;

        assert_eq!(response.status(), StatusCode::OK, "{page}");
        assert!(
            header(&response, "content-type").starts_with("text/html"),
            "{page}"
        );
        assert_protected(&response);
        let body = response.text().await.unwrap();
        assert!(
            body.contains("<script type=\"module\" src=\"/js/"),
            "{page}"
        );
        assert!(!body.contains("<script>"), "{page} has no inline script");
        assert!(!body.contains("style="), "{page} has no inline style");
    }
}

#[tokio::test]
async fn pages_come_assembled_from_the_layout_and_their_templates_are_not_served() {
    let app = spawn_app().await;

    let profile = send(app.api.get(app.url("/profile.html"))).await;
    let html = profile.text().await.unwrap();
    // The layout's navigation, with the page's own entry marked as the current one.
    assert!(html.starts_with("<!doctype html>"), "{html}");
    assert!(
        html.contains("<title>Your profile · Discovery</title>"),
        "{html}"
    );
    assert!(
        html.contains(r#"<a href="/profile.html" aria-current="page">Profile</a>"#),
        "{html}"
    );
    assert!(!html.contains("{%"), "{html}");
    for raw in ["/layout.html", "/pages/profile.html", "/pages/"] {
        assert_error(send(app.api.get(app.url(raw))).await, 404, "not_found").await;
    }
}

#[tokio::test]
async fn a_page_the_browser_already_has_is_not_sent_again() {
    let app = spawn_app().await;

    for page in PAGES {
        let first = send(app.api.get(app.url(page))).await;
        let etag = header(&first, "etag").to_owned();
        let modified = header(&first, "last-modified").to_owned();

        let again = send(app.api.get(app.url(page)).header("If-None-Match", &etag)).await;
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{page}");
        assert_eq!(header(&again, "etag"), etag, "{page}");
        assert_protected(&again);
        let since = send(
            app.api
                .get(app.url(page))
                .header("If-Modified-Since", &modified),
        )
        .await;
        assert_eq!(since.status(), StatusCode::NOT_MODIFIED, "{page}");

        let changed = send(
            app.api
                .get(app.url(page))
                .header("If-None-Match", "\"old\""),
        )
        .await;
        assert_eq!(changed.status(), StatusCode::OK, "{page}");
        assert!(changed.text().await.unwrap().starts_with("<!doctype html>"));
    }
}

#[tokio::test]
async fn login_with_an_error_code_is_the_sign_in_page() {
    let app = spawn_app().await;

    let response = send(app.api.get(app.url("/login?error=access_denied"))).await;

    assert_eq!(response.status(), StatusCode::OK);
    assert_protected(&response);
    assert!(response.text().await.unwrap().contains("<h1>Sign in</h1>"));
}

#[tokio::test]
async fn scripts_and_styles_are_served_with_their_types() {
    let app = spawn_app().await;

    for (path, kind) in [
        ("/js/api.js", "javascript"),
        ("/js/login.js", "javascript"),
        ("/css/site.css", "text/css"),
    ] {
        let response = send(app.api.get(app.url(path))).await;

        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert!(header(&response, "content-type").contains(kind), "{path}");
        assert_protected(&response);
    }
}

#[tokio::test]
async fn api_paths_win_over_files_and_unknown_paths_stay_json_not_found() {
    let app = spawn_app().await;

    let health = send(app.api.get(app.url("/healthz"))).await;
    assert_eq!(health.status(), StatusCode::OK);
    let me = send(app.api.get(app.url("/api/me"))).await;
    assert_error(me, 401, "unauthenticated").await;

    // Also under each group's prefix, where no route of the group takes the rest of the path.
    for path in [
        "/no-such-page.html",
        "/js/missing.js",
        "/js/",
        "/css",
        "/api/nothing-here",
        "/api/me/nothing-here",
        "/api/me/",
        "/api/auth/nothing-here",
        "/discovery/profile/me/nothing-here",
        "/coaching/nothing-here",
        "/integration/nothing/here",
    ] {
        let response = send(app.api.get(app.url(path))).await;
        assert_error(response, 404, "not_found").await;
    }
}

#[tokio::test]
async fn a_browser_gets_the_sites_not_found_page_and_api_clients_keep_the_json_error() {
    let app = spawn_app().await;
    let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    for path in ["/dashbord.html", "/no/such/page", "/api/nothing-here"] {
        let page = send(app.api.get(app.url(path)).header("Accept", browser)).await;
        assert_eq!(page.status(), StatusCode::NOT_FOUND, "{path}");
        assert_protected(&page);
        assert!(
            header(&page, "content-type").starts_with("text/html"),
            "{path}"
        );
        let html = page.text().await.unwrap();
        assert!(
            html.contains("<h1>This page is not here</h1>"),
            "{path}: {html}"
        );
        assert!(
            html.contains(r#"<nav class="main" aria-label="Main">"#),
            "the site's layout"
        );

        for accept in ["application/json", "*/*"] {
            let response = send(app.api.get(app.url(path)).header("Accept", accept)).await;
            assert_error(response, 404, "not_found").await;
        }
    }
    // A method the document does not declare on a path it does stays 405, for browsers too.
    let refused = send(
        app.api
            .request(Method::DELETE, app.url("/integration/foundations"))
            .header("Accept", browser),
    )
    .await;
    assert_eq!(refused.status(), StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn files_outside_the_web_directory_are_not_served() {
    let app = spawn_app().await;

    for path in [
        "/../Cargo.toml",
        "/%2e%2e/Cargo.toml",
        "/js/..%2f..%2fCargo.toml",
    ] {
        let response = send(app.api.get(app.url(path))).await;
        let status = response.status();
        assert!(
            status == StatusCode::NOT_FOUND || status == StatusCode::BAD_REQUEST,
            "{path}: {status}"
        );
        assert!(
            !response.text().await.unwrap().contains("[workspace]"),
            "{path}"
        );
    }
}

#[tokio::test]
async fn paths_no_file_can_have_are_the_contracts_not_found_not_plain_text() {
    let app = spawn_app().await;

    // Issue 43: actix-files answered these 400 `text/plain`.
    let unservable = [
        "/nope%3C",
        "/a%2Fb",
        "/js/a%2Fb.js",
        "/nope%3E",
        "/nope%3A",
        "/.hidden",
        "/js/..%2f..%2fCargo.toml",
        "/%FF",
    ];
    for path in unservable {
        let response = send(app.api.get(app.url(path))).await;
        assert_error(response, 404, "not_found").await;
        let head = send(app.api.head(app.url(path))).await;
        assert_eq!(head.status(), StatusCode::NOT_FOUND, "{path}");
        assert!(
            header(&head, "content-type").starts_with("application/json"),
            "{path}"
        );
    }
    // A browser gets the site's page for them, as for any other missing file.
    let browser = "text/html,application/xhtml+xml,*/*;q=0.8";
    for path in unservable {
        let page = send(app.api.get(app.url(path)).header("Accept", browser)).await;
        assert_eq!(page.status(), StatusCode::NOT_FOUND, "{path}");
        assert_protected(&page);
        assert!(
            page.text()
                .await
                .unwrap()
                .contains("<h1>This page is not here</h1>"),
            "{path}"
        );
    }
}

#[tokio::test]
async fn writes_to_page_paths_are_json_not_found() {
    let app = spawn_app().await;

    for path in ["/", "/login.html", "/js/api.js"] {
        let response = send(app.api.post(app.url(path)).json(&serde_json::json!({}))).await;
        assert_error(response, 404, "not_found").await;
    }
}

#[tokio::test]
async fn fetching_pages_while_signed_in_is_not_the_persons_activity() {
    let app = spawn_app().await;
    let ada = app.dev_login("ada@example.org").await;

    for path in ["/", "/login", "/profile.html", "/js/api.js"] {
        let response = send(app.as_browser(&ada, Method::GET, path)).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
    }
    let marker = send(
        app.as_browser(&ada, Method::GET, "/api/me")
            .header("X-Request-Id", "after-the-pages"),
    )
    .await;
    assert_eq!(marker.status(), StatusCode::OK);

    let items = app
        .activity_until(&ada.user_id, |items| {
            items.iter().any(|i| i["request_id"] == "after-the-pages")
        })
        .await;
    let paths: Vec<&str> = items.iter().filter_map(|i| i["path"].as_str()).collect();
    assert!(
        paths
            .iter()
            .all(|p| p.starts_with("/api/") || p.starts_with("/discovery/")),
        "{paths:?}"
    );
}
