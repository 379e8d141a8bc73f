//! The test identity provider as a child process, and a browser stand-in that signs in on its
//! development pages.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use adapters_oidc::{ClientSecret, OidcConfig};
use openidconnect::url::Url;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};

pub const CLIENT_ID: &str = "discovery-test";
pub const CLIENT_SECRET: &str = "discovery-test-secret";
/// Registered at the provider; never contacted: the browser stand-in stops at the redirect.
pub const REDIRECT_URI: &str = "http://127.0.0.1:8011/api/auth/callback";

/// When set, a missing `node_modules` (or `node`) fails the tests instead of skipping them.
const REQUIRE_ENV: &str = "REQUIRE_OIDC_E2E";

/// `tests/oidc-provider` at the workspace root (two levels above this crate).
fn provider_dir() -> PathBuf {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = crate_dir
        .ancestors()
        .nth(2)
        .expect("the crate sits in <root>/crates/");
    root.join("tests/oidc-provider")
}

/// Whether the provider can run here. `false` means "skip" (a message is printed); with
/// `REQUIRE_OIDC_E2E` set it panics instead, so CI cannot pass by skipping.
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
#[derive(Debug, Clone, Copy, Default)]
pub struct IdpOptions {
    /// 0 picks a free port.
    pub port: u16,
    /// Keep e-mail and name out of the ID token (user info only).
    pub conform_id_token_claims: bool,
}

/// A running test provider; killed when dropped.
#[derive(Debug)]
pub struct TestIdp {
    pub issuer: String,
    child: Child,
    // Held so the provider's stdin stays open (it exits on EOF, i.e. when the test process dies).
    _stdin: ChildStdin,
}

impl TestIdp {
    /// Starts a provider on a free port; `None` when the tests are to be skipped.
    pub async fn start() -> Option<Self> {
        Self::start_with(IdpOptions::default()).await
    }

    pub async fn start_with(options: IdpOptions) -> Option<Self> {
        if !provider_available() {
            return None;
        }
        let dir = provider_dir();
        let mut child = Command::new("node")
            .arg(dir.join("provider.mjs"))
            .current_dir(&dir)
            .env("PORT", options.port.to_string())
            .env("CLIENT_ID", CLIENT_ID)
            .env("CLIENT_SECRET", CLIENT_SECRET)
            .env("REDIRECT_URI", REDIRECT_URI)
            .env(
                "CONFORM_ID_TOKEN_CLAIMS",
                options.conform_id_token_claims.to_string(),
            )
            .env("EXIT_ON_STDIN_EOF", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run `node` (is Node.js installed?): {e}"));
        let stdin = child.stdin.take().unwrap();
        let stderr = collect(child.stderr.take().unwrap());
        let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();

        let ready = tokio::time::timeout(Duration::from_secs(30), async {
            while let Some(line) = stdout.next_line().await.unwrap() {
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
    pub fn port(&self) -> u16 {
        Url::parse(&self.issuer).unwrap().port().unwrap()
    }

    /// Stops it and waits until the port is free again.
    pub async fn stop(mut self) {
        self.child.kill().await.unwrap();
    }

    pub fn config(&self) -> OidcConfig {
        config_for(&self.issuer)
    }
}

/// The adapter's configuration for the test client at `issuer`.
pub fn config_for(issuer: &str) -> OidcConfig {
    let mut config = OidcConfig::new(
        issuer,
        CLIENT_ID,
        ClientSecret::new(CLIENT_SECRET.to_owned()),
        REDIRECT_URI,
    );
    config.http_timeout = Duration::from_secs(5);
    config
}

/// A port nothing listens on (just released by the OS).
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

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

/// What the provider sends the browser back to our redirect URI with.
#[derive(Debug)]
pub struct Callback {
    pub code: String,
    pub state: String,
    /// RFC 9207.
    pub iss: Option<String>,
}

/// Signs in as `login` the way a browser would: follows the authorization URL to the
/// development login form, submits it, grants consent, and stops at the redirect to
/// [`REDIRECT_URI`]. A fresh cookie jar each time: no session at the provider yet.
pub async fn sign_in(authorization_url: &str, login: &str) -> Callback {
    let browser = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let mut url = Url::parse(authorization_url).unwrap();
    let mut response = browser.get(url.clone()).send().await.unwrap();
    for _ in 0..20 {
        let status = response.status();
        if status.is_redirection() {
            let location = response.headers()["location"].to_str().unwrap();
            url = url.join(location).unwrap();
            if url.as_str().starts_with(REDIRECT_URI) {
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
    panic!("no redirect to {REDIRECT_URI} after 20 steps; last at {url}");
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
