//! The harness: the service started in-process as api-actix's own tests start it, a person set
//! up through the HTTP API (dev login, the seven prompts, affirm, a check-in, an API key), and
//! the `discovery-mcp` binary as a child process with a line-by-line JSON-RPC client.

use std::process::Stdio;
use std::time::Duration;

use adapters_diesel::testing::TestDb;
use api_actix::startup::Application;
use reqwest::{Method, RequestBuilder, StatusCode};
use serde_json::{Value, json};
use settings::api::ApiSettings as Settings;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::task::JoinHandle;

/// The operator key (`API_KEY`): reads everyone's activity without adding to the person's.
pub const OPERATOR_KEY: &str = "operator-key-for-mcp-tests-0123456789";
/// How long one answer of the MCP server, or the activity queue, may take.
const PATIENCE: Duration = Duration::from_secs(15);

/// The running service and the database it owns (dropped last).
pub struct TestApp {
    pub address: String,
    pub http: reqwest::Client,
    _db: TestDb,
}

/// The service in dev mode over a fresh database.
pub async fn spawn_app() -> TestApp {
    let db = TestDb::postgres().unwrap_or_else(TestDb::sqlite);
    let vars = [
        ("DATABASE_URL", db.url().to_owned()),
        ("BIND_ADDR", "127.0.0.1:0".to_owned()),
        (
            "JWT_SECRET",
            "mcp-test-jwt-secret-of-at-least-32-bytes".to_owned(),
        ),
        ("API_KEY", OPERATOR_KEY.to_owned()),
    ];
    let settings = Settings::from_lookup(["--dev".to_owned()], |name| {
        vars.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.clone())
    })
    .expect("test settings are valid");
    let app = Application::build(settings)
        .await
        .expect("the application builds");
    let address = format!("http://127.0.0.1:{}", app.port());
    tokio::spawn(app.run_until_stopped());
    TestApp {
        address,
        http: reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .unwrap(),
        _db: db,
    }
}

/// Someone with an affirmed profile, one open check-in and a personal API key.
pub struct Person {
    pub user_id: String,
    pub jwt: String,
    pub profile: Value,
    pub checkin_id: String,
    pub api_key: String,
}

/// Answers the offline engine reads as type 8 (gut), both goals stated.
const ANSWERS: [&str; 7] = [
    "Cooking soup on Sundays and repairing old bicycles.",
    "Explaining hard things simply to beginners.",
    "Kids who struggle with books at school.",
    "I work as a primary school teacher.",
    "I want to protect my family. Under pressure I take charge.",
    "Finish my tutoring certificate by June.",
    "Open a reading café for kids in my town.",
];

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    pub fn with_bearer(&self, jwt: &str, method: Method, path: &str) -> RequestBuilder {
        self.http
            .request(method, self.url(path))
            .header("Authorization", format!("Bearer {jwt}"))
    }

    /// Signs `email` in with dev login, discovers and affirms a profile and writes a check-in
    /// over HTTP with the session's Bearer token, then creates an API key with the scopes the MCP
    /// server needs from the browser session (keys are made only there).
    pub async fn person(&self, email: &str) -> Person {
        let response = self
            .http
            .post(self.url("/api/auth/dev-login"))
            .header("Origin", &self.address)
            .json(&json!({ "email": email }))
            .send()
            .await
            .unwrap();
        let jwt = response
            .cookies()
            .find(|c| c.name() == "ds_access")
            .expect("dev login sets ds_access")
            .value()
            .to_owned();
        let user = json_of(response, 200).await;
        let user_id = user["id"].as_str().unwrap().to_owned();

        let started = self
            .with_bearer(&jwt, Method::POST, "/discovery/conversation")
            .send()
            .await
            .unwrap();
        assert!(matches!(started.status().as_u16(), 200 | 201));
        for (i, text) in ANSWERS.iter().enumerate() {
            let path = format!("/discovery/conversation/me/answers/{}", i + 1);
            let answered = self
                .with_bearer(&jwt, Method::PUT, &path)
                .json(&json!({ "text": text }))
                .send()
                .await
                .unwrap();
            json_of(answered, 200).await;
        }
        let completed = self
            .with_bearer(&jwt, Method::POST, "/discovery/conversation/me/complete")
            .send()
            .await
            .unwrap();
        json_of(completed, 201).await;
        let affirmed = self
            .with_bearer(&jwt, Method::POST, "/discovery/profile/me/affirm")
            .send()
            .await
            .unwrap();
        let profile = json_of(affirmed, 200).await;
        assert_eq!(profile["locked"], true, "{profile}");

        let checkin = self
            .with_bearer(&jwt, Method::POST, "/coaching/checkins")
            .send()
            .await
            .unwrap();
        let checkin = json_of(checkin, 201).await;
        let key = self
            .http
            .post(self.url("/api/me/api-keys"))
            .header("Cookie", format!("ds_access={jwt}"))
            .header("Origin", &self.address)
            .json(&json!({
                "name": "mcp",
                "scopes": ["integration", "profile:read", "coaching"],
            }))
            .send()
            .await
            .unwrap();
        let key = json_of(key, 201).await;
        Person {
            user_id,
            jwt,
            profile,
            checkin_id: checkin["id"].as_str().unwrap().to_owned(),
            api_key: key["key"].as_str().unwrap().to_owned(),
        }
    }

    /// `user_id`'s activity (read with the operator key), once `until` holds; fails after a
    /// while, showing what was there.
    pub async fn activity_until(
        &self,
        user_id: &str,
        until: impl Fn(&[Value]) -> bool,
    ) -> Vec<Value> {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let response = self
                .http
                .get(self.url(&format!("/api/admin/activity?user_id={user_id}&limit=1000")))
                .header("X-API-Key", OPERATOR_KEY)
                .send()
                .await
                .unwrap();
            let body = json_of(response, 200).await;
            let items = body["items"].as_array().unwrap().clone();
            if until(&items) {
                return items;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the activity never matched; last seen: {items:#?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// The JSON body after checking the status (the body is shown on a mismatch).
pub async fn json_of(response: reqwest::Response, status: u16) -> Value {
    let actual = response.status();
    let text = response.text().await.unwrap();
    assert_eq!(
        actual,
        StatusCode::from_u16(status).unwrap(),
        "body: {text}"
    );
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// `discovery-mcp` as a child process, spoken to as an MCP client would.
pub struct McpProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Lines<BufReader<ChildStdout>>,
    stderr: JoinHandle<String>,
    next_id: u64,
}

/// How the process ended: its exit status and everything it wrote to stderr.
pub struct Ended {
    pub success: bool,
    pub stderr: String,
    /// Lines on stdout after the last answer read (should be none).
    pub leftover_stdout: Vec<String>,
}

impl McpProcess {
    /// Starts the built binary with exactly these variables (plus `PATH`), logging at debug
    /// level so that a leak of the key into any log line would show.
    pub fn spawn(vars: &[(&str, &str)], args: &[&str]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_discovery-mcp"));
        command
            .args(args)
            .env_clear()
            .env("RUST_LOG", "debug")
            .envs(vars.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn().expect("discovery-mcp starts");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut stderr = child.stderr.take().unwrap();
        let stderr = tokio::spawn(async move {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text).await;
            text
        });
        Self {
            child,
            stdin,
            stdout,
            stderr,
            next_id: 1,
        }
    }

    /// Writes one message as one line.
    pub async fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        stdin.write_all(&line).await.unwrap();
        stdin.flush().await.unwrap();
    }

    /// The next line of stdout, which must be one JSON-RPC 2.0 message.
    async fn read_message(&mut self) -> Value {
        let line = tokio::time::timeout(PATIENCE, self.stdout.next_line())
            .await
            .expect("discovery-mcp answers in time")
            .unwrap()
            .expect("stdout is still open");
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout carries only protocol messages ({e}): {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "{message}");
        message
    }

    /// Sends a request and returns its response (the whole message: `result` or `error`).
    pub async fn request(&mut self, method: &str, params: Option<Value>) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut message = json!({ "jsonrpc": "2.0", "id": id, "method": method });
        if let Some(params) = params {
            message["params"] = params;
        }
        self.send(&message).await;
        loop {
            let answer = self.read_message().await;
            // Server notifications (logging, list changes) may come in between.
            if answer.get("id").is_none() {
                continue;
            }
            assert_eq!(
                answer["id"], id,
                "answers come for the request sent: {answer}"
            );
            return answer;
        }
    }

    /// The `result` of a request that must succeed at the protocol level.
    pub async fn result(&mut self, method: &str, params: Value) -> Value {
        let answer = self.request(method, Some(params)).await;
        assert!(answer.get("error").is_none(), "{method} failed: {answer}");
        answer["result"].clone()
    }

    /// `initialize` then `notifications/initialized`; the initialize result.
    pub async fn initialize(&mut self) -> Value {
        let result = self
            .result(
                "initialize",
                json!({
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": { "name": "scripted-test-client", "version": "1.0" }
                }),
            )
            .await;
        self.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
            .await;
        result
    }

    /// `tools/call`: `(is_error, the text content parsed as JSON)`.
    pub async fn call_tool(&mut self, name: &str, arguments: Value) -> (bool, Value) {
        let result = self
            .result(
                "tools/call",
                json!({ "name": name, "arguments": arguments }),
            )
            .await;
        let content = result["content"].as_array().expect("content is a list");
        assert_eq!(content.len(), 1, "one content block: {result}");
        assert_eq!(content[0]["type"], "text", "{result}");
        let text = content[0]["text"].as_str().unwrap();
        let parsed = serde_json::from_str(text)
            .unwrap_or_else(|e| panic!("the text is the API's JSON ({e}): {text}"));
        (result["isError"] == true, parsed)
    }

    /// Closes stdin (the client hangs up) and waits for the process to end.
    pub async fn finish(mut self) -> Ended {
        drop(self.stdin.take());
        let mut leftover_stdout = Vec::new();
        while let Ok(Ok(Some(line))) = tokio::time::timeout(PATIENCE, self.stdout.next_line()).await
        {
            leftover_stdout.push(line);
        }
        let status = tokio::time::timeout(PATIENCE, self.child.wait())
            .await
            .expect("discovery-mcp exits once stdin closes")
            .unwrap();
        Ended {
            success: status.success(),
            stderr: self.stderr.await.unwrap(),
            leftover_stdout,
        }
    }
}
