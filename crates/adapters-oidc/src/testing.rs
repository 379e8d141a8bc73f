//! A real OpenID provider for tests (compiled only with the `testing` feature): panva's
//! `oidc-provider` started from `tests/oidc-provider` as a child process, and a browser stand-in
//! that signs in on its development login and consent pages with a plain HTTP client.
//!
//! Used by this crate's end-to-end tests and by the API's sign-in tests. When
//! `tests/oidc-provider/node_modules` is missing, [`TestIdp::start`] returns `None` and prints
//! `SKIPPED ...`, unless `REQUIRE_OIDC_E2E` is set: then it panics, so CI cannot pass by skipping.
//!
//! ```no_run
//! # async fn demo() {
//! use adapters_oidc::testing::{IdpOptions, TestIdp, browser, sign_in_with};
//! let redirect_uri = "http://127.0.0.1:8011/api/auth/callback".to_owned();
//! let options = IdpOptions { redirect_uri: Some(redirect_uri.clone()), ..IdpOptions::default() };
//! let Some(idp) = TestIdp::start_with(options).await else { return }; // skipped
//! # let authorization_url = idp.issuer.clone();
//! let callback = sign_in_with(&browser(), &authorization_url, "ada.lovelace", &redirect_uri).await;
//! # let _ = callback;
//! # }
//! ```

// Test scaffolding fails loudly: a provider that cannot start or a page that does not look as
// expected is a broken test environment, and the panic message is the report. The workspace
// denies `unwrap_used`/`expect_used` for service code; this module never runs in the service.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use openidconnect::url::Url;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};

use crate::{ClientSecret, OidcConfig};

/// The one client registered at the test provider.
pub const CLIENT_ID: &str = "discovery-test";
pub const CLIENT_SECRET: &str = "discovery-test-secret";
/// The redirect URI registered when [`IdpOptions::redirect_uri`] is `None`. Nothing needs to
/// listen there: [`sign_in`] stops at the redirect.
pub const REDIRECT_URI: &str = "http://127.0.0.1:8011/api/auth/callback";

/// When set (to anything), a missing `node_modules` fails the tests instead of skipping them.
pub const REQUIRE_ENV: &str = "REQUIRE_OIDC_E2E";

/// `tests/oidc-provider` at the workspace root (two levels above this crate).
#[must_use]
pub fn provider_dir() -> PathBuf {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = crate_dir
        .ancestors()
        .nth(2)
        .expect("the crate sits in <root>/crates/");
    root.join("tests/oidc-provider")
}

/// Whether the provider can run here. `false` means "skip" (a message is printed); with
/// `REQUIRE_OIDC_E2E` set it panics instead.
#[must_use]
pub fn provider_available() -> bool {
    let modules = provider_dir().join("node_modules/oidc-provider");
    if modules.is_dir() {
        return true;
    }
    let why = format!(
        "{} is missing; run `npm ci --prefix tests/oidc-provider`",
        modules.display()
    );
    if std::env::var_os(REQUIRE_ENV).is_some() {
        panic!("{REQUIRE_ENV} is set but {why}");
    }
    eprintln!("SKIPPED (set {REQUIRE_ENV}=1 to make this a failure): {why}");
    false
}

/// How to start the provider.
#[derive(Debug, Clone, Default)]
pub struct IdpOptions {
    /// 0 picks a free port.
    pub port: u16,
    /// Keep e-mail and name out of the ID token (user info only).
    pub conform_id_token_claims: bool,
    /// The client's only redirect URI; `None` registers [`REDIRECT_URI`].
    pub redirect_uri: Option<String>,
    /// Sign the client's ID tokens with this algorithm (`None`: the provider's RS256). `HS256`
    /// signs with the client secret, as a provider an attacker set up might.
    pub id_token_alg: Option<String>,
    /// Register [`CLIENT_ID`] as a public client: no secret, PKCE only (the adapter's
    /// configuration is then [`TestIdp::public_config`]).
    pub public_client: bool,
}

/// A running test provider; killed when dropped.
#[derive(Debug)]
pub struct TestIdp {
    /// `http://127.0.0.1:<port>`, exactly as the provider spells it.
    pub issuer: String,
    /// The redirect URI registered for [`CLIENT_ID`].
    pub redirect_uri: String,
    child: Child,
    // Held so the provider's stdin stays open (it exits on EOF, i.e. when the test process dies).
    _stdin: ChildStdin,
}

impl TestIdp {
    /// Starts a provider on a free port; `None` when the tests are to be skipped.
    pub async fn start() -> Option<Self> {
        Self::start_with(IdpOptions::default()).await
    }

    /// Starts a provider as `options` say; `None` when the tests are to be skipped. Panics when
    /// it does not print its `READY` line within 30 seconds (with its stderr in the message).
    pub async fn start_with(options: IdpOptions) -> Option<Self> {
        if !provider_available() {
            return None;
        }
        let dir = provider_dir();
        let redirect_uri = options
            .redirect_uri
            .unwrap_or_else(|| REDIRECT_URI.to_owned());
        let mut child = Command::new("node")
            .arg(dir.join("provider.mjs"))
            .current_dir(&dir)
            .env("PORT", options.port.to_string())
            .env("CLIENT_ID", CLIENT_ID)
            .env("CLIENT_SECRET", CLIENT_SECRET)
            .env("REDIRECT_URI", &redirect_uri)
            .env(
                "CONFORM_ID_TOKEN_CLAIMS",
                options.conform_id_token_claims.to_string(),
            )
            .env("ID_TOKEN_ALG", options.id_token_alg.unwrap_or_default())
            .env("PUBLIC_CLIENT", options.public_client.to_string())
            .env("EXIT_ON_STDIN_EOF", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run `node` (is Node.js installed?): {e}"));
        let stdin = child.stdin.take().expect("piped stdin");
        let stderr = collect(child.stderr.take().expect("piped stderr"));
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout")).lines();

        let ready = tokio::time::timeout(Duration::from_secs(30), async {
            while let Ok(Some(line)) = stdout.next_line().await {
                if let Some(issuer) = line.strip_prefix("READY ") {
                    return Some(issuer.to_owned());
                }
            }
            None
        })
        .await;
        match ready {
            Ok(Some(issuer)) => {
                // Keep reading: the provider prints notices on stdout, and a closed pipe would
                // kill it (EPIPE) at the first one.
                let log = Arc::clone(&stderr);
                tokio::spawn(async move {
                    while let Ok(Some(line)) = stdout.next_line().await {
                        log.lock().unwrap().push_str(&line);
                    }
                });
                Some(Self {
                    issuer,
                    redirect_uri,
                    child,
                    _stdin: stdin,
                })
            }
            outcome => {
                let _ = child.kill().await;
                tokio::time::sleep(Duration::from_millis(100)).await;
                let stderr = stderr.lock().unwrap().clone();
                panic!(
                    "the test provider did not become ready ({outcome:?}); its stderr:\n{stderr}"
                );
            }
        }
    }

    /// The port it listens on.
    #[must_use]
    pub fn port(&self) -> u16 {
        Url::parse(&self.issuer)
            .expect("the issuer is a URL")
            .port()
            .expect("the issuer has a port")
    }

    /// Stops it and waits until the process is gone (its port is free again).
    pub async fn stop(mut self) {
        self.child.kill().await.expect("the provider stops");
    }

    /// The adapter's configuration for the test client, with this provider's redirect URI.
    #[must_use]
    pub fn config(&self) -> OidcConfig {
        config_with_redirect(&self.issuer, &self.redirect_uri)
    }

    /// The adapter's configuration for a public test client: an empty secret, as an unset
    /// `OIDC_CLIENT_SECRET` gives.
    #[must_use]
    pub fn public_config(&self) -> OidcConfig {
        OidcConfig {
            client_secret: ClientSecret::new(String::new()),
            ..self.config()
        }
    }
}

/// The adapter's configuration for the test client at `issuer` with [`REDIRECT_URI`].
#[must_use]
pub fn config_for(issuer: &str) -> OidcConfig {
    config_with_redirect(issuer, REDIRECT_URI)
}

/// The adapter's configuration for the test client at `issuer` with `redirect_uri`.
#[must_use]
pub fn config_with_redirect(issuer: &str, redirect_uri: &str) -> OidcConfig {
    let mut config = OidcConfig::new(
        issuer,
        CLIENT_ID,
        ClientSecret::new(CLIENT_SECRET.to_owned()),
        redirect_uri,
    );
    config.http_timeout = Duration::from_secs(5);
    config
}

/// A port nothing listens on now, and that no `127.0.0.1:0` bind will be handed meanwhile.
#[must_use]
pub fn free_port() -> u16 {
    // Below Linux's ephemeral range (32768-60999 by default): a port the system hands out for
    // `127.0.0.1:0`, which every other test server binds, could be taken again by one of
    // them before this caller binds it (seen: "Address already in use" under a full suite).
    // Taken from the clock and the process id so parallel callers start apart, and checked free.
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos())
        ^ std::process::id().rotate_left(16);
    let mut next = NEXT_PORT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) ^ seed;
    for _ in 0..PORT_SPAN {
        let port = PORT_FLOOR + u16::try_from(next % u32::from(PORT_SPAN)).unwrap_or(0);
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
        next = next.wrapping_add(7_919);
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("a bound address").port()
}

/// Where [`free_port`] looks: 20000-32767.
const PORT_FLOOR: u16 = 20_000;
const PORT_SPAN: u16 = 12_768;
/// Successive calls in one process look at different ports.
static NEXT_PORT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Keeps the child's stderr, for the failure message.
fn collect(stderr: tokio::process::ChildStderr) -> Arc<Mutex<String>> {
    let text = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&text);
    tokio::spawn(async move {
        let mut stderr = stderr;
        let mut buf = [0u8; 4096];
        while let Ok(n) = stderr.read(&mut buf).await {
            if n == 0 {
                break;
            }
            sink.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
    text
}

/// What the provider sends the browser back to the redirect URI with.
#[derive(Debug, Clone)]
pub struct Callback {
    /// The whole redirect target, as a browser would request it.
    pub url: String,
    pub code: String,
    pub state: String,
    /// RFC 9207.
    pub iss: Option<String>,
}

/// A browser stand-in: a cookie jar, no automatic redirects, a 10-second timeout.
#[must_use]
pub fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(10))
        .build()
        .expect("an HTTP client")
}

/// Signs in as `login` the way a browser would, with a fresh cookie jar (no session at the
/// provider yet), and stops at the redirect to [`REDIRECT_URI`].
pub async fn sign_in(authorization_url: &str, login: &str) -> Callback {
    sign_in_with(&browser(), authorization_url, login, REDIRECT_URI).await
}

/// Signs in as `login` with `browser` (its cookie jar is kept and used): follows the
/// authorization URL to the development login form, submits it, grants consent, and stops at
/// the redirect to `redirect_uri`, which it does not request. Panics when the provider redirects
/// there with an `error`, or shows a page that is not one of its interaction forms.
pub async fn sign_in_with(
    browser: &reqwest::Client,
    authorization_url: &str,
    login: &str,
    redirect_uri: &str,
) -> Callback {
    let mut url = Url::parse(authorization_url).expect("the authorization URL is a URL");
    let mut response = browser.get(url.clone()).send().await.unwrap();
    for _ in 0..20 {
        let status = response.status();
        if status.is_redirection() {
            let location = response.headers()["location"].to_str().unwrap();
            url = url.join(location).unwrap();
            if url.as_str().starts_with(redirect_uri) {
                return callback_from(&url);
            }
            response = browser.get(url.clone()).send().await.unwrap();
            continue;
        }
        let body = response.text().await.unwrap();
        assert!(status.is_success(), "{status} at {url}:\n{body}");
        let form = Form::parse(&body).unwrap_or_else(|| panic!("no form at {url}:\n{body}"));
        let action = url.join(&form.action).unwrap();
        let fields: Vec<(&str, &str)> = match form.prompt.as_str() {
            // The development login accepts any password.
            "login" => vec![("prompt", "login"), ("login", login), ("password", "any")],
            "consent" => vec![("prompt", "consent")],
            other => panic!("unexpected interaction prompt {other:?} at {url}"),
        };
        url = action.clone();
        response = browser.post(action).form(&fields).send().await.unwrap();
    }
    panic!("no redirect to {redirect_uri} after 20 steps; last at {url}");
}

fn callback_from(url: &Url) -> Callback {
    let param = |name: &str| {
        url.query_pairs()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
    };
    if let Some(error) = param("error") {
        panic!(
            "the provider redirected with error {error}: {:?}",
            param("error_description")
        );
    }
    Callback {
        url: url.to_string(),
        code: param("code").expect("a code in the callback"),
        state: param("state").expect("a state in the callback"),
        iss: param("iss"),
    }
}

/// The one form of a development interaction page: `<form action=".." method="post">` with a
/// hidden `prompt` of `login` or `consent`.
struct Form {
    action: String,
    prompt: String,
}

impl Form {
    fn parse(html: &str) -> Option<Self> {
        let form = &html[html.find("<form")?..];
        let action = attribute(form, "action")?.replace("&amp;", "&");
        let prompt_input = &form[form.find(r#"name="prompt""#)?..];
        let prompt = attribute(prompt_input, "value")?;
        Some(Self { action, prompt })
    }
}

fn attribute(tag: &str, name: &str) -> Option<String> {
    let start = tag.find(&format!(r#"{name}=""#))? + name.len() + 2;
    let len = tag[start..].find('"')?;
    Some(tag[start..start + len].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interaction_form_is_read_from_the_page() {
        let html = r#"<html><form autocomplete="off" action="/interaction/abc/login?x=1&amp;y=2" method="post">
            <input type="hidden" name="prompt" value="login"/></form></html>"#;
        let form = Form::parse(html).unwrap();
        assert_eq!(form.action, "/interaction/abc/login?x=1&y=2");
        assert_eq!(form.prompt, "login");
        assert!(Form::parse("<html>no form</html>").is_none());
    }

    #[test]
    fn the_callback_parameters_are_read_from_the_redirect() {
        let url =
            Url::parse("http://127.0.0.1:1/cb?code=c1&state=s1&iss=http%3A%2F%2Fidp").unwrap();
        let callback = callback_from(&url);
        assert_eq!(
            (callback.code.as_str(), callback.state.as_str()),
            ("c1", "s1")
        );
        assert_eq!(callback.iss.as_deref(), Some("http://idp"));
        assert_eq!(callback.url, url.as_str());
    }
}
