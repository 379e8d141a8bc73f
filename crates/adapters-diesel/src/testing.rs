//! Throw-away databases for tests and benchmarks (compiled only with the `testing` feature):
//! a temporary SQLite file, or a uniquely named PostgreSQL database created on the server that
//! `TEST_DATABASE_URL` names and dropped `WITH (FORCE)` when the [`TestDb`] is dropped.
//!
//! ```no_run
//! # #[tokio::main] async fn main() {
//! use adapters_diesel::testing::TestDb;
//! let sqlite = TestDb::sqlite();
//! let _db = sqlite.db();
//! if let Some(pg) = TestDb::postgres() {
//!     let _second_pool_on_the_same_database = pg.url();
//! }
//! # }
//! ```

// Test scaffolding fails loudly: a database that cannot be created or opened is a broken test
// environment, not an error a test could handle, so panicking with a message is the point.
// The workspace denies `expect_used` for service code; this module never runs in the service.
#![allow(clippy::expect_used)]

use std::path::PathBuf;

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use secrecy::{ExposeSecret, SecretString};

use crate::connection::DbConfig;
use crate::database::Database;

/// A database that exists for one test (or one benchmark run). Its URLs are secrets, as
/// `TEST_DATABASE_URL` may hold a password.
#[derive(Debug)]
pub struct TestDb {
    db: Option<Database>,
    url: SecretString,
    cleanup: Cleanup,
}

#[derive(Debug)]
enum Cleanup {
    Dir(PathBuf),
    PgDatabase {
        admin_url: SecretString,
        name: String,
    },
}

impl TestDb {
    /// A fresh SQLite file in a directory of its own under the system temp directory, with
    /// every migration applied. Panics when it cannot be opened.
    #[must_use]
    pub fn sqlite() -> Self {
        Self::sqlite_with(config)
    }

    /// Like [`TestDb::sqlite`], with the pool configured by `configure` (given the URL).
    #[must_use]
    pub fn sqlite_with(configure: impl FnOnce(&str) -> DbConfig) -> Self {
        let mut test_db = Self::sqlite_empty();
        let db = Database::connect(&configure(test_db.url())).expect("SQLite test database opens");
        test_db.db = Some(db);
        test_db
    }

    /// A fresh PostgreSQL database on the server of `TEST_DATABASE_URL`, with every migration
    /// applied; `None` when `TEST_DATABASE_URL` is unset or empty. Panics when the server does
    /// not answer or refuses to create the database.
    #[must_use]
    pub fn postgres() -> Option<Self> {
        let admin_url = std::env::var("TEST_DATABASE_URL")
            .ok()
            .filter(|u| !u.is_empty())?;
        Some(Self::postgres_at(&admin_url, config))
    }

    /// A fresh database on the server `admin_url` points at (the URL must be allowed to
    /// `CREATE DATABASE`), with the pool configured by `configure` (given the new URL).
    #[must_use]
    pub fn postgres_at(admin_url: &str, configure: impl FnOnce(&str) -> DbConfig) -> Self {
        // From here on, a panic drops `Self` and with it the new database.
        let mut test_db = Self::postgres_empty_at(admin_url);
        let db =
            Database::connect(&configure(test_db.url())).expect("PostgreSQL test database opens");
        test_db.db = Some(db);
        test_db
    }

    /// A SQLite URL in a directory of its own where no file exists yet (nothing applied, and
    /// no pool: [`TestDb::db`] panics), for tests of the migrations themselves.
    #[must_use]
    pub fn sqlite_empty() -> Self {
        let dir = std::env::temp_dir().join(format!(
            "discovery-storage-{}",
            uuid::Uuid::now_v7().simple()
        ));
        // A nested path also proves that connect() creates the parent directory.
        let url = format!("sqlite://{}", dir.join("data").join("test.db").display());
        Self {
            db: None,
            url: url.into(),
            cleanup: Cleanup::Dir(dir),
        }
    }

    /// A fresh, empty PostgreSQL database on the server of `TEST_DATABASE_URL` (nothing
    /// applied, and no pool: [`TestDb::db`] panics); `None` when `TEST_DATABASE_URL` is unset.
    #[must_use]
    pub fn postgres_empty() -> Option<Self> {
        let admin_url = std::env::var("TEST_DATABASE_URL")
            .ok()
            .filter(|u| !u.is_empty())?;
        Some(Self::postgres_empty_at(&admin_url))
    }

    /// A fresh, empty database on the server `admin_url` points at (see [`TestDb::postgres_empty`]).
    #[must_use]
    pub fn postgres_empty_at(admin_url: &str) -> Self {
        let name = format!("discovery_test_{}", uuid::Uuid::now_v7().simple());
        let mut admin = PgConnection::establish(admin_url).expect("the PostgreSQL server answers");
        admin
            .batch_execute(&format!("CREATE DATABASE \"{name}\""))
            .expect("test database is created");
        Self {
            db: None,
            url: with_database(admin_url, &name).into(),
            cleanup: Cleanup::PgDatabase {
                admin_url: admin_url.into(),
                name,
            },
        }
    }

    /// A handle on the database (cheap: it clones the pool). Panics for an empty one.
    #[must_use]
    pub fn db(&self) -> Database {
        self.db
            .clone()
            .expect("database is open (an empty TestDb has no pool)")
    }

    /// The URL of this database (to open a second, independent pool on it).
    #[must_use]
    pub fn url(&self) -> &str {
        self.url.expose_secret()
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        // Close this handle's pool first; FORCE ends any connection a clone still holds.
        drop(self.db.take());
        match &self.cleanup {
            Cleanup::Dir(dir) => {
                let _ = std::fs::remove_dir_all(dir);
            }
            Cleanup::PgDatabase { admin_url, name } => {
                if let Ok(mut admin) = PgConnection::establish(admin_url.expose_secret()) {
                    let _ = admin
                        .batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"));
                }
            }
        }
    }
}

/// The configuration the tests use: the defaults with a pool of 8 and no idle connection kept.
/// Keeping one idle means r2d2 reopens it on a background thread whenever one is dropped; a test
/// binary that exits while such a PostgreSQL connection is being opened can die in libpq's TLS
/// clean-up (seen once as SIGSEGV after all storage tests passed, as in discovery-batch).
#[must_use]
pub fn config(url: &str) -> DbConfig {
    let mut config = DbConfig::new(url);
    config.max_connections = 8;
    config.min_idle = 0;
    config
}

/// The same server and credentials as `url` (a `postgres://` URL), another database; the query
/// string is kept. Panics when `url` has no scheme.
#[must_use]
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

#[cfg(test)]
mod tests {
    use super::with_database;

    #[test]
    fn another_database_on_the_same_server_keeps_credentials_and_options() {
        assert_eq!(
            with_database("postgres://u:p@h:5432/postgres?sslmode=require", "t1"),
            "postgres://u:p@h:5432/t1?sslmode=require"
        );
        assert_eq!(with_database("postgres://h", "t2"), "postgres://h/t2");
    }
}
