//! What the HTTP benches share: the release `discovery-api` started on a free port over a given
//! database, a signed-in person with an API key, and a scratch directory.

// Each bench is its own crate and uses part of this.
#![allow(dead_code)]

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The service, stopped on drop.
pub struct Server {
    child: Child,
    pub base: String,
    pub work: tempfile_dir::TempDir,
}

/// A signed-in person with an API key.
pub struct Person {
    pub id: String,
    pub jwt: String,
    pub key: String,
}

impl Server {
    /// Over `database_url`, with `connections` database connections.
    pub fn start(database_url: &str, connections: usize) -> Self {
        Self::start_with(database_url, connections, &[])
    }

    /// [`Server::start`] with more settings (`RATE_LIMIT_ENTRIES_PER_MINUTE`, say).
    pub fn start_with(database_url: &str, connections: usize, vars: &[(&str, &str)]) -> Self {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let work = tempfile_dir::TempDir::new();
        let log = std::fs::File::create(work.path().join("server.log")).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_discovery-api"))
            .arg("--dev")
            .env("DATABASE_URL", database_url)
            .env("BIND_ADDR", format!("127.0.0.1:{port}"))
            .env("RUST_LOG", "warn")
            // As many database connections as load connections, like the raw baseline.
            .env("DATABASE_MAX_CONNECTIONS", connections.to_string())
            .envs(vars.iter().copied())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        let server = Self {
            child,
            base: format!("http://127.0.0.1:{port}"),
            work,
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the service did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Signs `email` in (dev login) and makes them an API key.
    pub async fn person(&self, email: &str) -> Person {
        let client = reqwest::Client::new();
        let login = client
            .post(self.url("/api/auth/dev-login"))
            .json(&json!({"email": email}))
            .send()
            .await
            .unwrap();
        assert!(login.status().is_success(), "dev login failed");
        let jwt = login
            .cookies()
            .find(|c| c.name() == "ds_access")
            .unwrap()
            .value()
            .to_owned();
        let bearer = format!("Bearer {jwt}");
        let me: Value = client
            .get(self.url("/api/me"))
            .header("Authorization", &bearer)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        // Making a key needs the session cookie (least privilege), and the page's own Origin.
        let key: Value = client
            .post(self.url("/api/me/api-keys"))
            .header("Cookie", format!("ds_access={jwt}"))
            .header("Origin", &self.base)
            .json(&json!({"name": "bench"}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        Person {
            id: me["id"].as_str().unwrap().to_owned(),
            jwt,
            key: key["key"].as_str().unwrap().to_owned(),
        }
    }
}

/// The PostgreSQL server a bench also runs on: `BENCH_DATABASE_URL`, else `TEST_DATABASE_URL`.
pub fn postgres_server() -> Option<String> {
    ["BENCH_DATABASE_URL", "TEST_DATABASE_URL"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
}

/// A person made straight in `database` (no service), for rows written there: their id.
pub fn person_in(
    rt: &tokio::runtime::Runtime,
    database: &adapters_diesel::Database,
    name: &str,
) -> String {
    use domain::ports::UserRepository as _;
    let identity = domain::account::LoginIdentity {
        issuer: "https://id.example.org".into(),
        subject: name.into(),
        email: domain::account::Email::new(&format!("{name}@example.org")).unwrap(),
        name: None,
    };
    rt.block_on(
        adapters_diesel::DieselUserRepository::new(database.clone())
            .upsert_login(&identity, time::OffsetDateTime::now_utc()),
    )
    .unwrap()
    .id
    .to_string()
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub mod tempfile_dir {
    use std::path::{Path, PathBuf};

    /// A directory under the system's temporary one, removed on drop.
    pub struct TempDir(PathBuf);

    impl TempDir {
        pub fn new() -> Self {
            let path =
                std::env::temp_dir().join(format!("discovery-bench-{}", uuid::Uuid::now_v7()));
            std::fs::create_dir_all(&path).unwrap();
            Self(path)
        }

        pub fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
