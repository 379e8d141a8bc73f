//! The harness: the service on a random port with a person and their API key, the binary run
//! as a child process, and a throw-away Timewarrior database.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use adapters_diesel::testing::TestDb;
use api_actix::startup::Application;
use serde_json::{Value, json};
use settings::api::ApiSettings as Settings;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// When set (to anything but empty or `0`), a missing `timew` fails the tests instead of
/// skipping them: CI sets it so the Timewarrior tests cannot pass by not running.
pub const REQUIRE_TIMEWARRIOR: &str = "REQUIRE_TIMEWARRIOR";

/// A running service and the database it owns (removed on drop).
pub struct App {
    /// `http://127.0.0.1:<port>`.
    pub address: String,
    http: reqwest::Client,
    _db: TestDb,
}

/// The service in dev mode (dev login on) over a fresh database.
pub async fn spawn_app() -> App {
    spawn_app_with(&[]).await
}

/// [`spawn_app`] with more settings (`RATE_LIMIT_ENTRIES_PER_MINUTE`, say).
pub async fn spawn_app_with(more: &[(&str, &str)]) -> App {
    let db = TestDb::postgres().unwrap_or_else(TestDb::sqlite);
    let mut vars = vec![
        ("DATABASE_URL", db.url().to_owned()),
        ("BIND_ADDR", "127.0.0.1:0".to_owned()),
        (
            "JWT_SECRET",
            "test-jwt-secret-of-at-least-32-bytes!".to_owned(),
        ),
    ];
    vars.extend(more.iter().map(|(n, v)| (*n, (*v).to_owned())));
    let settings = Settings::from_lookup(["--dev".to_owned()], |name| {
        vars.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.clone())
    })
    .expect("test settings are valid");
    let app = Application::build(settings)
        .await
        .expect("the service builds");
    let port = app.port();
    tokio::spawn(app.run_until_stopped());
    App {
        address: format!("http://127.0.0.1:{port}"),
        http: reqwest::Client::new(),
        _db: db,
    }
}

impl App {
    /// Signs `email` in through dev login and creates a personal API key: the key.
    pub async fn person_with_key(&self, email: &str) -> String {
        self.person_in_zone(email, None).await
    }

    /// [`App::person_with_key`], the person's time zone set first to `zone` (the settings
    /// page's `PUT /api/me/settings`) when one is given.
    pub async fn person_in_zone(&self, email: &str, zone: Option<&str>) -> String {
        let browser = reqwest::Client::builder()
            .cookie_store(true)
            .build()
            .expect("a client");
        let login = browser
            .post(format!("{}/api/auth/dev-login", self.address))
            .header("Origin", &self.address)
            .json(&json!({ "email": email }))
            .send()
            .await
            .expect("dev login answers");
        assert_eq!(login.status(), 200, "dev login");
        if let Some(zone) = zone {
            let set = browser
                .put(format!("{}/api/me/settings", self.address))
                .header("Origin", &self.address)
                .json(&json!({ "time_zone": zone }))
                .send()
                .await
                .expect("the settings answer");
            assert_eq!(set.status(), 200, "setting the time zone {zone}");
        }
        let created = browser
            .post(format!("{}/api/me/api-keys", self.address))
            .header("Origin", &self.address)
            .json(&json!({ "name": "timewarrior" }))
            .send()
            .await
            .expect("the key is created");
        assert_eq!(created.status(), 201, "creating the API key");
        let body: Value = created.json().await.expect("JSON");
        body["key"].as_str().expect("the key").to_owned()
    }

    async fn get(&self, key: &str, path: &str) -> Value {
        let response = self
            .http
            .get(format!("{}{path}", self.address))
            .header("X-API-Key", key)
            .send()
            .await
            .expect("the service answers");
        assert_eq!(response.status(), 200, "GET {path}");
        response.json().await.expect("JSON")
    }

    /// Every task mapping of the key's owner, newest `occurred_at` first.
    pub async fn mappings(&self, key: &str) -> Vec<Value> {
        self.list(key, "").await
    }

    /// Every page of `GET /integration/task-mappings?<query>`.
    async fn list(&self, key: &str, query: &str) -> Vec<Value> {
        let mut all = Vec::new();
        let mut path = format!("/integration/task-mappings?{query}limit=1000");
        loop {
            let page = self.get(key, &path).await;
            all.extend(page["items"].as_array().expect("items").iter().cloned());
            match page["next_cursor"].as_str() {
                Some(cursor) => {
                    path = format!("/integration/task-mappings?{query}limit=1000&before={cursor}")
                }
                None => return all,
            }
        }
    }

    /// `GET /integration/work-patterns?days=14`.
    pub async fn work_patterns(&self, key: &str) -> Value {
        self.get(key, "/integration/work-patterns?days=14").await
    }

    /// `GET /integration/work-patterns?days=<days>`.
    pub async fn work_patterns_over(&self, key: &str, days: i64) -> Value {
        self.get(key, &format!("/integration/work-patterns?days={days}"))
            .await
    }

    /// Every task mapping of the key's owner with `occurred_at` in `[from, to]`, page by page.
    pub async fn mappings_between(
        &self,
        key: &str,
        from: OffsetDateTime,
        to: OffsetDateTime,
    ) -> Vec<Value> {
        let window = format!("from={}&to={}&", stamp(from), stamp(to));
        self.list(key, &window).await
    }

    /// Creates a rule through `POST /integration/rules`: entries with `tag` go to `foundation`.
    /// Returns once the re-classification it queued is done, as a tracker waiting for the
    /// result would (`GET /integration/reclassification`).
    pub async fn tag_rule(&self, key: &str, tag: &str, foundation: &str) {
        let response = self
            .http
            .post(format!("{}/integration/rules", self.address))
            .header("X-API-Key", key)
            .json(&json!({"match": {"tag": tag}, "foundation": foundation}))
            .send()
            .await
            .expect("the service answers");
        let status = response.status();
        let body = response.text().await.unwrap_or_default();
        assert_eq!(status, 201, "POST /integration/rules {tag}: {body}");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let progress = self.get(key, "/integration/reclassification").await;
            if progress["state"] == "idle" {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the re-classification never ended: {progress}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }
}

/// The minutes of `foundation` in a work pattern.
pub fn minutes_of(pattern: &Value, foundation: &str) -> i64 {
    pattern["foundations"]
        .as_array()
        .expect("foundations")
        .iter()
        .find(|f| f["foundation"] == foundation)
        .and_then(|f| f["minutes"].as_i64())
        .unwrap_or_else(|| panic!("{foundation} missing in {pattern}"))
}

/// One run of the binary.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    /// The last stdout line, parsed: the summary.
    pub summary: Value,
}

impl Run {
    /// The stdout lines before the summary (the bodies of a dry run).
    pub fn body_lines(&self) -> Vec<Value> {
        let lines: Vec<&str> = self.stdout.lines().collect();
        lines[..lines.len().saturating_sub(1)]
            .iter()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect()
    }
}

/// Runs `discovery-sync` with `args`, only the variables in `env` (plus `PATH`), and `stdin`.
/// Blocking work goes to a blocking thread so the service keeps answering meanwhile.
pub async fn run_sync(args: &[&str], env: &[(&str, &str)], stdin: Option<String>) -> Run {
    let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    let env: Vec<(String, String)> = env
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    tokio::task::spawn_blocking(move || {
        let mut command = Command::new(env!("CARGO_BIN_EXE_discovery-sync"));
        command
            .args(&args)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .envs(env)
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("the binary starts");
        // Written from its own thread so a large input cannot dead-lock against the output
        // pipes. A broken pipe is fine: a run that stops early (bad usage) never reads it.
        let writer = stdin.map(|text| {
            let mut pipe = child.stdin.take().expect("stdin");
            std::thread::spawn(move || {
                use std::io::Write as _;
                if let Err(e) = pipe.write_all(text.as_bytes()) {
                    assert_eq!(
                        e.kind(),
                        std::io::ErrorKind::BrokenPipe,
                        "writing stdin: {e}"
                    );
                }
            })
        });
        let output = child.wait_with_output().expect("the binary ends");
        if let Some(writer) = writer {
            writer.join().expect("stdin is written");
        }
        let stdout = String::from_utf8(output.stdout).expect("UTF-8 stdout");
        let stderr = String::from_utf8(output.stderr).expect("UTF-8 stderr");
        let last = stdout.lines().last().unwrap_or_default();
        let summary = serde_json::from_str(last).unwrap_or_else(|e| {
            panic!("the last line is not JSON ({e}): {stdout:?}; stderr {stderr}")
        });
        Run {
            code: output.status.code().expect("an exit code"),
            stdout,
            stderr,
            summary,
        }
    })
    .await
    .expect("the run finishes")
}

/// A file in a fresh temporary directory, removed on drop.
pub struct TempDir {
    pub path: PathBuf,
}

impl TempDir {
    pub fn new() -> Self {
        let path = std::env::temp_dir().join(format!("discovery-sync-{}", uuid::Uuid::now_v7()));
        std::fs::create_dir_all(&path).expect("a temporary directory");
        Self { path }
    }

    /// Writes `name` with `text`; its path as a string.
    pub fn write(&self, name: &str, text: &str) -> String {
        let file = self.path.join(name);
        std::fs::write(&file, text).expect("the file is written");
        file.to_str().expect("a UTF-8 path").to_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// A throw-away Timewarrior database (`TIMEWARRIORDB`).
pub struct Timew {
    pub dir: TempDir,
}

/// Whether `timew` runs here. `false` prints a skip notice; with `REQUIRE_TIMEWARRIOR` set it
/// panics instead.
fn timew_available() -> bool {
    let found = Command::new("timew")
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        return true;
    }
    let required = std::env::var(REQUIRE_TIMEWARRIOR).is_ok_and(|v| !v.is_empty() && v != "0");
    assert!(
        !required,
        "{REQUIRE_TIMEWARRIOR} is set but `timew` is not installed (apt-get install -y timewarrior)"
    );
    eprintln!(
        "SKIPPED (set {REQUIRE_TIMEWARRIOR}=1 to make this a failure): `timew` is not installed \
         (apt-get install -y timewarrior)"
    );
    false
}

impl Timew {
    /// A fresh database, or `None` (skipped) when `timew` is missing.
    pub fn new() -> Option<Self> {
        if !timew_available() {
            return None;
        }
        let dir = TempDir::new();
        // Both must exist or timew asks whether to create the database.
        std::fs::create_dir_all(dir.path.join("data")).expect("the data directory");
        dir.write("timewarrior.cfg", "");
        Some(Self { dir })
    }

    /// The variables a process needs to use this database: `TIMEWARRIORDB`, and UTC so the
    /// times given below mean what they say.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            (
                "TIMEWARRIORDB",
                self.dir.path.to_str().expect("UTF-8").to_owned(),
            ),
            ("TZ", "UTC".to_owned()),
        ]
    }

    /// `timew <args>`; panics when it fails.
    pub fn timew(&self, args: &[&str]) {
        let output = Command::new("timew")
            .args(args)
            .envs(self.env())
            .stdin(Stdio::null())
            .output()
            .expect("timew runs");
        assert!(
            output.status.success(),
            "timew {args:?}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// Records a closed interval: `timew :yes track <start> - <end> <tags...>`.
    pub fn track(&self, start: OffsetDateTime, end: OffsetDateTime, tags: &[&str]) {
        let (start, end) = (stamp(start), stamp(end));
        let mut args = vec![":yes", "track", &start, "-", &end];
        args.extend_from_slice(tags);
        self.timew(&args);
    }

    /// Starts an open interval: `timew start <start> <tags...>`.
    pub fn start(&self, start: OffsetDateTime, tags: &[&str]) {
        let start = stamp(start);
        let mut args = vec![":yes", "start", &start];
        args.extend_from_slice(tags);
        self.timew(&args);
    }

    /// The environment of a `discovery-sync` run against `app` with `key` and this database.
    pub fn run_env<'a>(
        &'a self,
        pairs: &'a [(&'static str, String)],
        key: &'a str,
    ) -> Vec<(&'a str, &'a str)> {
        let mut env: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
        env.push(("DISCOVERY_API_KEY", key));
        env
    }
}

/// `2026-11-20T09:00:00Z`.
pub fn stamp(at: OffsetDateTime) -> String {
    at.format(&Rfc3339).expect("formats")
}

/// Midnight (UTC) `days` days before today.
pub fn days_ago(days: i64) -> OffsetDateTime {
    (OffsetDateTime::now_utc() - time::Duration::days(days)).replace_time(time::Time::MIDNIGHT)
}

/// `day` at `hh:mm:ss`.
pub fn at(day: OffsetDateTime, h: u8, m: u8, s: u8) -> OffsetDateTime {
    day.replace_time(time::Time::from_hms(h, m, s).expect("a time"))
}

/// Writes `text` as the mapping file in `dir`; its path.
pub fn mapping_file(dir: &TempDir, text: &str) -> String {
    dir.write("mapping.toml", text)
}

/// `discovery-sync timewarrior --mapping <mapping> --input - --dry-run` with `export` on stdin
/// and no environment: what would be sent, without a service.
pub async fn dry_run_from_stdin(mapping: &str, export: String) -> Run {
    run_sync(
        &[
            "timewarrior",
            "--mapping",
            mapping,
            "--input",
            "-",
            "--dry-run",
        ],
        &[],
        Some(export),
    )
    .await
}

/// `discovery-sync timewarrior --mapping <mapping> --input - --url <address>` with `export` on
/// stdin and `env`: a real import of a saved export.
pub async fn import_from_stdin(
    mapping: &str,
    address: &str,
    env: &[(&str, &str)],
    export: String,
) -> Run {
    let args = [
        "timewarrior",
        "--mapping",
        mapping,
        "--input",
        "-",
        "--url",
        address,
    ];
    run_sync(&args, env, Some(export)).await
}

/// `n` closed intervals of 3 minutes, 4 minutes apart, from `day`, tagged `gym`, as
/// `timew export` writes them.
pub fn gym_export(day: OffsetDateTime, n: usize) -> String {
    let format = time::macros::format_description!("[year][month][day]T[hour][minute][second]Z");
    let intervals: Vec<String> = (0..n)
        .map(|i| {
            let from = day + time::Duration::minutes(4 * i as i64);
            let to = from + time::Duration::minutes(3);
            format!(
                r#"{{"id":{},"start":"{}","end":"{}","tags":["gym"]}}"#,
                n - i,
                from.format(format).expect("formats"),
                to.format(format).expect("formats")
            )
        })
        .collect();
    format!("[\n{}\n]\n", intervals.join(",\n"))
}
