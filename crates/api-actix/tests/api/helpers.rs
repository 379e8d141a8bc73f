//! The harness: the real application on a random port over a fresh database (PostgreSQL when
//! `TEST_DATABASE_URL` is set, else a temporary SQLite file), HTTP clients with cookie jars,
//! sign-in through dev login, forged tokens, and raw looks into the database.

use std::time::Duration;

use adapters_diesel::Backend;
use adapters_diesel::testing::TestDb;
use api_actix::startup::Application;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable, Text};
use reqwest::header::HeaderMap;
use reqwest::{Method, RequestBuilder, Response, StatusCode};
use serde_json::{Value, json};
use settings::api::ApiSettings as Settings;

/// The JWT secret every test app signs with (dev mode would otherwise pick a random one).
pub const JWT_SECRET: &str = "test-jwt-secret-of-at-least-32-bytes!";
/// The operator key (`API_KEY`): acts as the admin `api-key-admin`.
pub const OPERATOR_KEY: &str = "operator-key-for-tests-0123456789";
/// In `ADMIN_EMAILS`.
pub const ADMIN_EMAIL: &str = "admin@example.org";
/// The defaults of `JWT_ISSUER` and `JWT_AUDIENCE`.
pub const JWT_ISSUER: &str = "discovery-service";
pub const JWT_AUDIENCE: &str = "discovery-web";

/// How long to wait for something asynchronous (the activity queue) before failing.
const PATIENCE: Duration = Duration::from_secs(5);

/// A running application and the database it owns. Dropping it removes the database.
pub struct TestApp {
    /// `http://127.0.0.1:<port>`.
    pub address: String,
    pub port: u16,
    /// A client without cookies and without following redirects.
    pub api: reqwest::Client,
    pub backend: Backend,
    // Last, so the database goes after everything else.
    pub db: TestDb,
}

/// The application in dev mode with the test defaults.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(&[]).await
}

/// The application in dev mode; `vars` override the test defaults (an empty value unsets one).
pub async fn spawn_app_with(vars: &[(&str, &str)]) -> TestApp {
    spawn_app_configured(&["--dev"], vars).await
}

/// The application with these command-line `args` and variables.
///
/// Defaults: a fresh database, `BIND_ADDR=127.0.0.1:0`, [`JWT_SECRET`], [`OPERATOR_KEY`] as
/// `API_KEY`, [`ADMIN_EMAIL`] in `ADMIN_EMAILS`, `DELIVERY_WORKER=false`, and the per-person
/// limits of rule changes, webhook tests, check-ins, profile writes and entries off (`0`).
pub async fn spawn_app_configured(args: &[&str], vars: &[(&str, &str)]) -> TestApp {
    spawn_app_tuned(args, vars, |_| {}).await
}

/// Like [`spawn_app_configured`], with `tune` applied to the settings read from the variables:
/// for what no variable sets, such as the one-minute window of the rate limits.
pub async fn spawn_app_tuned(
    args: &[&str],
    vars: &[(&str, &str)],
    tune: impl FnOnce(&mut Settings),
) -> TestApp {
    init_tracing();
    let db = fresh_database();
    let mut all: Vec<(String, String)> = vec![
        ("DATABASE_URL".into(), db.url().to_owned()),
        ("BIND_ADDR".into(), "127.0.0.1:0".into()),
        ("JWT_SECRET".into(), JWT_SECRET.into()),
        ("API_KEY".into(), OPERATOR_KEY.into()),
        ("ADMIN_EMAILS".into(), ADMIN_EMAIL.into()),
        // No delivery worker unless a test asks for one: the outbox stays as the requests left
        // it, and nothing is sent anywhere.
        ("DELIVERY_WORKER".into(), "false".into()),
        // Tests drive these routes far faster than a person does (500 rules in one test), so
        // their limits are off unless a test sets them; rate_limits.rs sets each one, and
        // checks its default by unsetting it (an empty value).
        ("RATE_LIMIT_RULE_CHANGES_PER_MINUTE".into(), "0".into()),
        ("RATE_LIMIT_WEBHOOK_TESTS_PER_MINUTE".into(), "0".into()),
        ("RATE_LIMIT_CHECKINS_PER_MINUTE".into(), "0".into()),
        ("RATE_LIMIT_PROFILE_WRITES_PER_MINUTE".into(), "0".into()),
        ("RATE_LIMIT_ENTRIES_PER_MINUTE".into(), "0".into()),
    ];
    for (name, value) in vars {
        all.retain(|(n, _)| n != name);
        all.push(((*name).to_owned(), (*value).to_owned()));
    }
    let mut settings = Settings::from_lookup(args.iter().map(|a| (*a).to_owned()), |name| {
        all.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
    })
    .expect("test settings are valid");
    tune(&mut settings);
    let app = Application::build(settings)
        .await
        .expect("the application builds");
    let port = app.port();
    tokio::spawn(app.run_until_stopped());
    TestApp {
        address: format!("http://127.0.0.1:{port}"),
        port,
        api: client(),
        backend: db.db().backend(),
        db,
    }
}

/// PostgreSQL when `TEST_DATABASE_URL` is set, else SQLite.
fn fresh_database() -> TestDb {
    TestDb::postgres().unwrap_or_else(TestDb::sqlite)
}

/// Logs to the test output when `TEST_LOG` is set (`TEST_LOG=debug cargo test ...`).
fn init_tracing() {
    if let Ok(filter) = std::env::var("TEST_LOG") {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .with_test_writer()
            .try_init();
    }
}

/// A browser stand-in: a cookie jar, redirects not followed.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(USER_AGENT)
        .timeout(Duration::from_secs(10))
        .build()
        .expect("an HTTP client")
}

/// The `User-Agent` of [`client`].
pub const USER_AGENT: &str = "discovery-api-tests";

/// Someone signed in through dev login.
pub struct SignedIn {
    /// Holds `ds_access` and `ds_refresh` in its cookie jar.
    pub client: reqwest::Client,
    /// The `ds_access` cookie's value.
    pub access_jwt: String,
    /// The `ds_refresh` cookie's value.
    pub refresh_token: String,
    pub user_id: String,
    pub session_id: String,
    pub email: String,
    /// The dev-login answer (the user).
    pub user: Value,
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    /// The service's own origin, as a browser on its pages sends it.
    pub fn origin(&self) -> String {
        self.address.clone()
    }

    /// A fresh browser stand-in.
    pub fn client(&self) -> reqwest::Client {
        client()
    }

    /// Signs in through `POST /api/auth/dev-login` with a fresh cookie jar.
    pub async fn dev_login(&self, email: &str) -> SignedIn {
        self.dev_login_with(email, &[]).await
    }

    /// [`Self::dev_login`] with these request headers besides.
    pub async fn dev_login_with(&self, email: &str, headers: &[(&str, &str)]) -> SignedIn {
        let client = client();
        let mut request = client
            .post(self.url("/api/auth/dev-login"))
            .header("Origin", self.origin());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request
            .json(&json!({ "email": email }))
            .send()
            .await
            .expect("dev login answers");
        let status = response.status();
        let cookies = set_cookies(response.headers());
        let user: Value = response.json().await.expect("dev login returns JSON");
        assert_eq!(status, StatusCode::OK, "dev login failed: {user}");
        let access_jwt = cookie_named(&cookies, "ds_access").value.clone();
        let refresh_token = cookie_named(&cookies, "ds_refresh").value.clone();
        let claims = jwt_claims(&access_jwt);
        SignedIn {
            client,
            user_id: user["id"].as_str().expect("the user has an id").to_owned(),
            session_id: claims["sid"]
                .as_str()
                .expect("the JWT has a sid")
                .to_owned(),
            email: email.to_lowercase(),
            access_jwt,
            refresh_token,
            user,
        }
    }

    /// Someone in `ADMIN_EMAILS`, signed in as an identity provider would sign them in. Dev
    /// login never makes an admin (docs/api.md, "Least privilege"), and these tests have no identity
    /// provider: so the dev-login account is relabelled as the provider's ([`Self::make_admin`])
    /// and its session refreshed, and the service itself issues the tokens that say admin.
    pub async fn admin_login(&self, email: &str) -> SignedIn {
        let mut who = self.dev_login(email).await;
        assert_eq!(who.user["is_admin"], false, "dev login is never an admin");
        self.make_admin(&who.user_id);
        let response = send(self.as_browser(&who, Method::POST, "/api/auth/refresh")).await;
        assert_eq!(response.status(), StatusCode::NO_CONTENT);
        let cookies = set_cookies(response.headers());
        who.access_jwt = cookie_named(&cookies, "ds_access").value.clone();
        who.refresh_token = cookie_named(&cookies, "ds_refresh").value.clone();
        assert_eq!(
            jwt_claims(&who.access_jwt)["adm"],
            true,
            "{email} is in ADMIN_EMAILS"
        );
        who.user = json_body(
            send(self.as_browser(&who, Method::GET, "/api/me")).await,
            200,
        )
        .await;
        who
    }

    /// Relabels the account `user_id` (made by dev login) as signed in through an identity
    /// provider, so that its e-mail decides whether it is an admin from its next token on.
    pub fn make_admin(&self, user_id: &str) {
        let changed = execute(
            self,
            &format!(
                "UPDATE users SET oidc_issuer = 'https://idp.example' WHERE id = {}",
                literal(user_id)
            ),
        );
        assert_eq!(changed, 1, "the account {user_id}");
    }

    /// A request with the session cookies of `who`, carrying the service's `Origin` (as the
    /// service's own pages do).
    pub fn as_browser(&self, who: &SignedIn, method: Method, path: &str) -> RequestBuilder {
        who.client
            .request(method, self.url(path))
            .header("Origin", self.origin())
    }

    /// A request with `Authorization: Bearer <jwt>` and no cookies.
    pub fn with_bearer(&self, jwt: &str, method: Method, path: &str) -> RequestBuilder {
        self.api
            .request(method, self.url(path))
            .header("Authorization", bearer(jwt))
    }

    /// A request as `who` with the credential the contract lets them use for it: their Bearer
    /// token, or their browser session where the contract needs one ([`needs_session`]).
    pub fn as_person(&self, who: &SignedIn, method: Method, path: &str) -> RequestBuilder {
        if needs_session(&method, path) {
            self.as_browser(who, method, path)
        } else {
            self.with_bearer(&who.access_jwt, method, path)
        }
    }

    /// A request with `X-API-Key` and no cookies.
    pub fn with_key(&self, key: &str, method: Method, path: &str) -> RequestBuilder {
        self.api
            .request(method, self.url(path))
            .header("X-API-Key", key)
    }

    /// The status of `GET /api/me` with this bearer token.
    pub async fn me_status_with_bearer(&self, jwt: &str) -> StatusCode {
        send(self.with_bearer(jwt, Method::GET, "/api/me"))
            .await
            .status()
    }

    /// Creates a personal API key for `who` with all three scopes (from their browser session:
    /// keys are made only there).
    pub async fn create_api_key(&self, who: &SignedIn, name: &str) -> ApiKey {
        self.create_scoped_key(who, name, &["integration", "profile:read", "coaching"])
            .await
    }

    /// Creates a personal API key for `who` with exactly these scopes.
    pub async fn create_scoped_key(&self, who: &SignedIn, name: &str, scopes: &[&str]) -> ApiKey {
        let response = send(
            self.as_browser(who, Method::POST, "/api/me/api-keys")
                .json(&json!({ "name": name, "scopes": scopes })),
        )
        .await;
        assert_eq!(response.status(), StatusCode::CREATED);
        let body: Value = response.json().await.expect("JSON");
        ApiKey {
            id: body["id"].as_str().expect("id").to_owned(),
            key: body["key"].as_str().expect("key").to_owned(),
            prefix: body["prefix"].as_str().expect("prefix").to_owned(),
            body,
        }
    }

    /// Everyone's activity (read with the operator key, so reading adds nothing to `user_id`'s),
    /// newest first, once `until` holds for `user_id`'s entries; panics after a few seconds.
    pub async fn activity_until(
        &self,
        user_id: &str,
        until: impl Fn(&[Value]) -> bool,
    ) -> Vec<Value> {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let response = send(self.with_key(
                OPERATOR_KEY,
                Method::GET,
                &format!("/api/admin/activity?user_id={user_id}&limit=1000"),
            ))
            .await;
            assert_eq!(response.status(), StatusCode::OK);
            let body: Value = response.json().await.expect("JSON");
            let items = body["items"].as_array().expect("items").clone();
            if until(&items) {
                return items;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "activity of {user_id} never matched; last seen: {items:#?}"
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Waits until the entry of the request sent with `X-Request-Id: request_id` is written.
    pub async fn activity_entry(&self, user_id: &str, request_id: &str) -> Value {
        let items = self
            .activity_until(user_id, |items| {
                items.iter().any(|i| i["request_id"] == request_id)
            })
            .await;
        items
            .into_iter()
            .find(|i| i["request_id"] == request_id)
            .expect("the entry is there")
    }

    /// Waits until the activity queue has written everything sent so far: a marker request
    /// by the operator is written after everything queued before it (one FIFO queue).
    pub async fn flush_activity(&self) {
        let marker = uuid::Uuid::now_v7().to_string();
        let response = send(
            self.with_key(OPERATOR_KEY, Method::GET, "/api/me")
                .header("X-Request-Id", &marker),
        )
        .await;
        assert_eq!(response.status(), StatusCode::OK);
        let operator: Value = response.json().await.expect("JSON");
        let operator_id = operator["id"].as_str().expect("id").to_owned();
        self.activity_entry(&operator_id, &marker).await;
    }
}

/// A personal API key as created.
pub struct ApiKey {
    pub id: String,
    /// The secret, shown once.
    pub key: String,
    pub prefix: String,
    pub body: Value,
}

/// Whether the contract reserves `method path` (a concrete path; a query is ignored) to the
/// session cookie: managing credentials and the account (docs/api.md, "Least privilege"), which any
/// API key or Bearer token is refused with 403 `session_required`.
pub fn needs_session(method: &Method, path: &str) -> bool {
    let path = path.split_once('?').map_or(path, |(p, _)| p);
    // `prefix/{id}`, one segment below.
    let under = |prefix: &str| {
        path.strip_prefix(prefix)
            .and_then(|rest| rest.strip_prefix('/'))
            .is_some_and(|id| !id.is_empty() && !id.contains('/'))
    };
    match *method {
        Method::POST => path == "/api/me/api-keys" || path.starts_with("/api/me/webhooks"),
        Method::DELETE => {
            path == "/api/me"
                || under("/api/me/api-keys")
                || under("/api/me/sessions")
                || path.starts_with("/api/me/webhooks")
        }
        Method::GET => path == "/api/me/export" || path.starts_with("/api/me/webhooks"),
        _ => path.starts_with("/api/me/webhooks"),
    }
}

/// Sends a request; a transport error fails the test.
pub async fn send(request: RequestBuilder) -> Response {
    request.send().await.expect("the service answers")
}

/// `Bearer <jwt>`.
pub fn bearer(jwt: &str) -> String {
    format!("Bearer {jwt}")
}

/// Checks an error answer against the contract: the status, a JSON body
/// `{"error": {"code", "message"}}` with a non-empty message, and an `X-Request-Id`. Returns
/// the body.
pub async fn assert_error(response: Response, status: u16, code: &str) -> Value {
    let actual = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let has_request_id = response.headers().contains_key("x-request-id");
    let text = response.text().await.expect("a body");
    assert_eq!(actual, status, "status; body: {text}");
    assert!(
        content_type.starts_with("application/json"),
        "content type {content_type:?}; body: {text}"
    );
    let body: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
    assert_eq!(body["error"]["code"], code, "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(!message.trim().is_empty(), "no message: {body}");
    assert!(has_request_id, "no X-Request-Id on the error");
    body
}

/// One `Set-Cookie` header, split.
#[derive(Debug, Clone)]
pub struct SetCookie {
    pub name: String,
    pub value: String,
    /// `HttpOnly`, `SameSite=Lax`, `Path=/`, ... as sent.
    pub attributes: Vec<String>,
}

impl SetCookie {
    /// The value of attribute `name` (`Path`, `Max-Age`, `SameSite`), case-insensitively.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes.iter().find_map(|a| {
            let (key, value) = a.split_once('=').unwrap_or((a.as_str(), ""));
            key.trim()
                .eq_ignore_ascii_case(name)
                .then_some(value.trim())
        })
    }

    /// Whether the flag `name` (`HttpOnly`, `Secure`) is present.
    pub fn has_flag(&self, name: &str) -> bool {
        self.attributes
            .iter()
            .any(|a| a.trim().eq_ignore_ascii_case(name))
    }
}

/// Every `Set-Cookie` of a response.
pub fn set_cookies(headers: &HeaderMap) -> Vec<SetCookie> {
    headers
        .get_all("set-cookie")
        .iter()
        .map(|v| {
            let raw = v.to_str().expect("an ASCII Set-Cookie");
            let mut parts = raw.split(';');
            let (name, value) = parts
                .next()
                .and_then(|p| p.split_once('='))
                .expect("name=value");
            SetCookie {
                name: name.trim().to_owned(),
                value: value.trim().to_owned(),
                attributes: parts
                    .map(|p| p.trim().to_owned())
                    .filter(|p| !p.is_empty())
                    .collect(),
            }
        })
        .collect()
}

/// The one cookie called `name` among `cookies`; panics when it is missing or set twice.
pub fn cookie_named<'a>(cookies: &'a [SetCookie], name: &str) -> &'a SetCookie {
    let found: Vec<_> = cookies.iter().filter(|c| c.name == name).collect();
    assert_eq!(found.len(), 1, "exactly one {name} in {cookies:#?}");
    found[0]
}

/// Asserts that `cookies` clear both session cookies (empty value, `Max-Age=0`, same path).
pub fn assert_session_cookies_cleared(cookies: &[SetCookie]) {
    for (name, path) in [("ds_access", "/"), ("ds_refresh", "/api/auth")] {
        let cookie = cookie_named(cookies, name);
        assert_eq!(cookie.value, "", "{cookie:?}");
        assert_eq!(cookie.attribute("Max-Age"), Some("0"), "{cookie:?}");
        assert_eq!(cookie.attribute("Path"), Some(path), "{cookie:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Tokens

/// The claims of a JWT (not verified).
pub fn jwt_claims(jwt: &str) -> Value {
    let payload = jwt.split('.').nth(1).expect("a JWT has three parts");
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).expect("base64url"))
        .expect("JSON claims")
}

/// A token signed with `secret` under `algorithm` (HS256, HS384, HS512) with `claims` as given.
pub fn sign_jwt(secret: &[u8], algorithm: jsonwebtoken::Algorithm, claims: &Value) -> String {
    jsonwebtoken::encode(
        &jsonwebtoken::Header::new(algorithm),
        claims,
        &jsonwebtoken::EncodingKey::from_secret(secret),
    )
    .expect("signing works")
}

/// An unsigned token (`alg: none`, empty signature) with `claims`.
pub fn unsigned_jwt(claims: &Value) -> String {
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
    let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(claims).expect("JSON"));
    format!("{header}.{payload}.")
}

/// `jwt` with its payload replaced by `claims`, header and signature kept.
pub fn with_payload(jwt: &str, claims: &Value) -> String {
    let parts: Vec<&str> = jwt.split('.').collect();
    let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(claims).expect("JSON"));
    format!("{}.{payload}.{}", parts[0], parts[2])
}

/// Access-token claims as the service issues them, for `who`, valid for 15 minutes.
pub fn valid_claims(who: &SignedIn) -> Value {
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    json!({
        "sub": who.user_id,
        "sid": who.session_id,
        "adm": false,
        "iss": JWT_ISSUER,
        "aud": JWT_AUDIENCE,
        "iat": now,
        "exp": now + 900,
    })
}

// ---------------------------------------------------------------------------------------------
// The database, raw

#[derive(QueryableByName)]
struct ColumnRow {
    #[diesel(sql_type = Text)]
    table_name: String,
    #[diesel(sql_type = Text)]
    column_name: String,
}

#[derive(QueryableByName)]
struct ValueRow {
    #[diesel(sql_type = Nullable<Text>)]
    v: Option<String>,
}

#[derive(QueryableByName)]
struct CountRow {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// Every column of every table of the application (migration bookkeeping included).
fn columns(app: &TestApp) -> Vec<(String, String)> {
    let sql = match app.backend {
        Backend::Sqlite => {
            "SELECT m.name AS table_name, p.name AS column_name \
             FROM sqlite_master m JOIN pragma_table_info(m.name) p \
             WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' \
             ORDER BY m.name, p.cid"
        }
        Backend::Postgres => {
            "SELECT CAST(table_name AS TEXT) AS table_name, CAST(column_name AS TEXT) AS column_name \
             FROM information_schema.columns WHERE table_schema = 'public' \
             ORDER BY table_name, ordinal_position"
        }
    };
    let mut conn = app.db.db().connection().expect("a connection");
    let rows: Vec<ColumnRow> = diesel::sql_query(sql)
        .load(&mut conn)
        .expect("the catalogue");
    assert!(
        rows.iter().any(|r| r.table_name == "users"),
        "the catalogue lists the tables"
    );
    rows.into_iter()
        .map(|r| (r.table_name, r.column_name))
        .collect()
}

/// Every table that has a `user_id` column.
pub fn tables_with_user_id(app: &TestApp) -> Vec<String> {
    columns(app)
        .into_iter()
        .filter(|(_, c)| c == "user_id")
        .map(|(t, _)| t)
        .collect()
}

/// Every value of every column of every table, as text: `(table, column, value)`.
pub fn every_value(app: &TestApp) -> Vec<(String, String, String)> {
    let mut conn = app.db.db().connection().expect("a connection");
    let mut values = Vec::new();
    for (table, column) in columns(app) {
        let sql = format!(r#"SELECT CAST("{column}" AS TEXT) AS v FROM "{table}""#);
        let rows: Vec<ValueRow> = diesel::sql_query(&sql)
            .load(&mut conn)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        values.extend(
            rows.into_iter()
                .filter_map(|r| r.v)
                .map(|v| (table.clone(), column.clone(), v)),
        );
    }
    values
}

/// The places (`table.column`) where `needle` occurs in the database, in any column.
pub fn where_stored(app: &TestApp, needle: &str) -> Vec<String> {
    every_value(app)
        .into_iter()
        .filter(|(_, _, v)| v.contains(needle))
        .map(|(t, c, _)| format!("{t}.{c}"))
        .collect()
}

/// The number of rows `sql` (a `SELECT COUNT(*) AS n ...`) counts.
pub fn count(app: &TestApp, sql: &str) -> i64 {
    let mut conn = app.db.db().connection().expect("a connection");
    let rows: Vec<CountRow> = diesel::sql_query(sql)
        .load(&mut conn)
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    rows.first().map_or(0, |r| r.n)
}

/// Runs one SQL statement that changes rows (for what no route can do, such as letting time
/// pass); returns how many rows it changed.
pub fn execute(app: &TestApp, sql: &str) -> usize {
    let mut conn = app.db.db().connection().expect("a connection");
    diesel::sql_query(sql)
        .execute(&mut conn)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// A quoted SQL string literal (for ids and e-mails the tests made themselves).
pub fn literal(value: &str) -> String {
    format!("'{}'", value.replace('\'', "''"))
}

// ---------------------------------------------------------------------------------------------
// Discovery, profile, coaching and integration

/// The body of `response` as JSON, after checking its status (the body is shown on a mismatch).
pub async fn json_body(response: Response, status: u16) -> Value {
    let actual = response.status().as_u16();
    let text = response.text().await.expect("a body");
    assert_eq!(actual, status, "status; body: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The seven answers of a discovery conversation, in step order (6 and 7 may be `""`).
pub type Answers<'a> = [&'a str; 7];

/// Neutral answers to steps 1-4 (no word of the offline lexicon), so the drives answer decides.
const NEUTRAL: [&str; 4] = [
    "Cooking soup on Sundays and repairing old bicycles.",
    "Explaining hard things simply to beginners.",
    "Kids who struggle with books at school.",
    "I work as a primary school teacher.",
];

/// Answers the offline engine reads as type 8 (gut), with both goals stated.
pub const GUT_ANSWERS: Answers<'static> = [
    NEUTRAL[0],
    NEUTRAL[1],
    NEUTRAL[2],
    NEUTRAL[3],
    "I want to protect my family. Under pressure I take charge.",
    "Finish my tutoring certificate by June.",
    "Open a reading café for kids in my town.",
];

/// Answers the offline engine reads as type 2 (heart), with both goals stated.
pub const HEART_ANSWERS: Answers<'static> = [
    NEUTRAL[0],
    NEUTRAL[1],
    NEUTRAL[2],
    NEUTRAL[3],
    "I want to be helpful. Under pressure I take care of everyone else first.",
    "Finish my tutoring certificate by June.",
    "Open a reading café for kids in my town.",
];

/// Answers the offline engine reads as type 5 (head), with both goals stated.
pub const HEAD_ANSWERS: Answers<'static> = [
    NEUTRAL[0],
    NEUTRAL[1],
    NEUTRAL[2],
    NEUTRAL[3],
    "I want to understand how things work. Under pressure I withdraw.",
    "Finish my tutoring certificate by June.",
    "Open a reading café for kids in my town.",
];

/// A goal answer of these fixtures as the offline engine says it back: what the person wants,
/// in the second person ("Finish my certificate." -> "You want to finish your certificate.").
pub fn goal_said_back(answer: &str) -> String {
    let mut chars = answer.chars();
    let first = chars
        .next()
        .map(|c| c.to_lowercase().collect::<String>())
        .unwrap_or_default();
    format!("You want to {first}{}", chars.as_str()).replace(" my ", " your ")
}

/// `answers` with both goal answers empty ("I have no such goal").
pub fn without_goals(answers: Answers<'_>) -> Answers<'_> {
    let mut answers = answers;
    answers[5] = "";
    answers[6] = "";
    answers
}

/// The triad of an Enneagram type (docs/api.md: gut 8, 9, 1; heart 2, 3, 4; head 5, 6, 7).
pub fn triad_of(enneagram_type: u64) -> &'static str {
    match enneagram_type {
        8 | 9 | 1 => "gut",
        2..=4 => "heart",
        5..=7 => "head",
        other => panic!("{other} is not an Enneagram type"),
    }
}

/// Starts a conversation (201 or 200) and answers the steps of `answers` (200 each), Bearer.
pub async fn answer_all(app: &TestApp, jwt: &str, answers: Answers<'_>) {
    let response = send(app.with_bearer(jwt, Method::POST, "/discovery/conversation")).await;
    assert!(
        matches!(response.status().as_u16(), 200 | 201),
        "starting a conversation: {}",
        response.text().await.unwrap_or_default()
    );
    for (i, text) in answers.iter().enumerate() {
        let path = format!("/discovery/conversation/me/answers/{}", i + 1);
        let response = send(
            app.with_bearer(jwt, Method::PUT, &path)
                .json(&json!({ "text": text })),
        )
        .await;
        json_body(response, 200).await;
    }
}

/// Answers the seven prompts and completes the conversation: the new profile (201).
pub async fn discover(app: &TestApp, jwt: &str, answers: Answers<'_>) -> Value {
    answer_all(app, jwt, answers).await;
    json_body(
        send(app.with_bearer(jwt, Method::POST, "/discovery/conversation/me/complete")).await,
        201,
    )
    .await
}

/// `GET /discovery/profile/me` (200).
pub async fn my_profile(app: &TestApp, jwt: &str) -> Value {
    json_body(
        send(app.with_bearer(jwt, Method::GET, "/discovery/profile/me")).await,
        200,
    )
    .await
}

/// `GET /discovery/profile/me/revisions` (200).
pub async fn my_revisions(app: &TestApp, jwt: &str) -> Vec<Value> {
    json_body(
        send(app.with_bearer(jwt, Method::GET, "/discovery/profile/me/revisions")).await,
        200,
    )
    .await
    .as_array()
    .expect("a list of revisions")
    .clone()
}

/// `POST /discovery/profile/me/affirm` (200): the locked profile.
pub async fn affirm(app: &TestApp, jwt: &str) -> Value {
    json_body(
        send(app.with_bearer(jwt, Method::POST, "/discovery/profile/me/affirm")).await,
        200,
    )
    .await
}

/// RFC 3339 in UTC, whole seconds (`2026-11-22T10:00:00Z`).
pub fn rfc3339(at: time::OffsetDateTime) -> String {
    let at = at
        .to_offset(time::UtcOffset::UTC)
        .replace_nanosecond(0)
        .expect("zero nanoseconds");
    at.format(&time::format_description::well_known::Rfc3339)
        .expect("formats")
}

/// Parses an RFC 3339 timestamp of an answer; panics on anything else.
pub fn timestamp(value: &Value) -> time::OffsetDateTime {
    let text = value
        .as_str()
        .unwrap_or_else(|| panic!("{value} is not a string"));
    time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|e| panic!("{text} is not RFC 3339: {e}"))
}

/// The verdict words a check-in or observation never contains (docs/api.md), found as whole words.
pub fn verdict_in(text: &str) -> Option<&'static str> {
    let words: Vec<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    ["should", "must", "failed", "need to"]
        .into_iter()
        .find(|verdict| {
            let parts: Vec<&str> = verdict.split(' ').collect();
            words
                .windows(parts.len())
                .any(|w| w.iter().zip(&parts).all(|(a, b)| a == b))
        })
}

/// The `field`s of a validation error's `details`.
pub fn detail_fields(error: &Value) -> Vec<String> {
    error["error"]["details"]
        .as_array()
        .map(|details| {
            details
                .iter()
                .filter_map(|d| d["field"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Asserts a 422 `validation_failed` whose details name `field`; returns the body.
pub async fn assert_invalid(response: Response, field: &str) -> Value {
    let body = assert_error(response, 422, "validation_failed").await;
    let fields = detail_fields(&body);
    assert!(
        fields.iter().any(|f| f == field),
        "details should name {field:?}: {body}"
    );
    body
}
