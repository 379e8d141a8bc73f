//! Test databases (a temporary SQLite file, or a uniquely named PostgreSQL database dropped on
//! drop), the macro that runs one test body on both backends, and shared fixtures.

use std::path::PathBuf;

use adapters_diesel::{Database, DbConfig, DbConnection, DieselUserRepository};
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use domain::account::{Email, User};
use domain::ports::UserRepository;
use time::OffsetDateTime;
use time::macros::datetime;

/// Runs `$body` with `$db: Database` (and optionally `$url`, its URL) once on SQLite and once on
/// PostgreSQL (skipped, with a note, when `TEST_DATABASE_URL` is unset).
macro_rules! dual_test {
    ($name:ident, |$db:ident| $body:block) => {
        dual_test!($name, |$db, _url| $body);
    };
    ($name:ident, |$db:ident, $url:ident| $body:block) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                let guard = $crate::harness::TestDb::sqlite();
                let ($db, $url) = (guard.db(), guard.url().to_owned());
                $body
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                let Some(guard) = $crate::harness::TestDb::postgres() else {
                    eprintln!(
                        "skipped {}::postgres: TEST_DATABASE_URL is not set",
                        module_path!()
                    );
                    return;
                };
                let ($db, $url) = (guard.db(), guard.url().to_owned());
                $body
            }
        }
    };
}

/// A database that exists for one test.
pub struct TestDb {
    db: Option<Database>,
    url: String,
    cleanup: Cleanup,
}

enum Cleanup {
    Dir(PathBuf),
    PgDatabase { admin_url: String, name: String },
}

impl TestDb {
    pub fn sqlite() -> Self {
        let dir = std::env::temp_dir().join(format!(
            "discovery-storage-{}",
            uuid::Uuid::now_v7().simple()
        ));
        // A nested path also proves that connect() creates the parent directory.
        let url = format!("sqlite://{}", dir.join("data").join("test.db").display());
        let db = Database::connect(&config(&url)).expect("SQLite test database opens");
        Self {
            db: Some(db),
            url,
            cleanup: Cleanup::Dir(dir),
        }
    }

    /// `None` when `TEST_DATABASE_URL` is unset.
    pub fn postgres() -> Option<Self> {
        let admin_url = std::env::var("TEST_DATABASE_URL")
            .ok()
            .filter(|u| !u.is_empty())?;
        let name = format!("discovery_test_{}", uuid::Uuid::now_v7().simple());
        let mut admin = PgConnection::establish(&admin_url).expect("TEST_DATABASE_URL answers");
        admin
            .batch_execute(&format!("CREATE DATABASE \"{name}\""))
            .expect("test database is created");
        let url = with_database(&admin_url, &name);
        let cleanup = Cleanup::PgDatabase { admin_url, name };
        let db = Database::connect(&config(&url)).expect("PostgreSQL test database opens");
        Some(Self {
            db: Some(db),
            url,
            cleanup,
        })
    }

    pub fn db(&self) -> Database {
        self.db.clone().expect("database is open")
    }

    /// The URL of this test's database (to open a second, independent pool on it).
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        drop(self.db.take());
        match &self.cleanup {
            Cleanup::Dir(dir) => {
                let _ = std::fs::remove_dir_all(dir);
            }
            Cleanup::PgDatabase { admin_url, name } => {
                if let Ok(mut admin) = PgConnection::establish(admin_url) {
                    let _ = admin
                        .batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"));
                }
            }
        }
    }
}

pub fn config(url: &str) -> DbConfig {
    let mut config = DbConfig::new(url);
    config.max_connections = 8;
    config
}

/// The same server and credentials, another database.
pub fn with_database(url: &str, name: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let (scheme, rest) = base.split_once("://").expect("URL has a scheme");
    let authority = rest.split_once('/').map_or(rest, |(a, _)| a);
    match query {
        Some(q) => format!("{scheme}://{authority}/{name}?{q}"),
        None => format!("{scheme}://{authority}/{name}"),
    }
}

/// An instant with microseconds, as the domain produces them.
pub const T0: OffsetDateTime = datetime!(2026-11-22 10:00:00.123_456 UTC);

/// Emoji, right-to-left text, a right-to-left mark and control characters (no NUL, which the
/// domain refuses): must come back byte for byte.
pub const TRICKY: &str =
    "Mon but 🌱🎶 — שלום עולם\u{200f} مرحبا\t\u{7}\u{1b}[0m\r\nline 2 \u{feff}end";

pub async fn user(db: &Database, email: &str) -> User {
    DieselUserRepository::new(db.clone())
        .upsert_on_login(&Email::new(email).unwrap(), Some("Test Person".into()), T0)
        .await
        .unwrap()
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// `SELECT COUNT(*) FROM <from_where>`, straight from the database.
pub async fn count(db: &Database, from_where: &str) -> i64 {
    let db = db.clone();
    let sql = format!("SELECT COUNT(*) AS n FROM {from_where}");
    tokio::task::spawn_blocking(move || {
        let mut conn = db.connection().unwrap();
        diesel::sql_query(sql)
            .get_result::<Count>(&mut *conn)
            .unwrap()
            .n
    })
    .await
    .unwrap()
}

/// Runs raw SQL against the test database (fixtures the ports cannot create, e.g. triggers).
pub async fn execute(db: &Database, sql: String) {
    let db = db.clone();
    tokio::task::spawn_blocking(move || {
        let mut conn = db.connection().unwrap();
        let conn: &mut DbConnection = &mut conn;
        conn.batch_execute(&sql).unwrap();
    })
    .await
    .unwrap();
}
