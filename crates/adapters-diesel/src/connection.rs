//! One connection to the database, below everything built on it: the SQLite-or-PostgreSQL
//! connection enum, the URL rules, and the r2d2 connection manager with the per-connection SQLite
//! settings. `Database` (database.rs), the handle the repositories hold, pools these.

use std::fmt;
use std::time::Duration;

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::r2d2::{CustomizeConnection, ManageConnection, PooledConnection, R2D2Connection};
use secrecy::{ExposeSecret, SecretString};

use crate::error::DbError;
use crate::reachability::Reachability;

/// One connection to either backend. PostgreSQL comes first because the derived `establish`
/// tries variants in order and SQLite would accept any string as a file name.
#[derive(diesel::MultiConnection)]
pub enum DbConnection {
    Postgresql(PgConnection),
    Sqlite(SqliteConnection),
}

/// The backend the derive generates for [`DbConnection`] (it imports it here privately), named
/// for the custom query nodes of `expressions`.
pub(crate) type DbBackend = MultiBackend;

impl fmt::Debug for DbConnection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Postgresql(_) => "DbConnection::Postgresql",
            Self::Sqlite(_) => "DbConnection::Sqlite",
        })
    }
}

/// Which database a `Database` (database.rs) talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// The default bound on a wait for a permit or the writer (`DATABASE_WAIT_TIMEOUT_MS`).
pub const DEFAULT_WAIT_TIMEOUT: Duration = Duration::from_secs(5);

/// How to reach the database.
#[derive(Debug, Clone)]
pub struct DbConfig {
    /// `postgres://…` / `postgresql://…`, or `sqlite://path`, `sqlite:path` or a plain file path:
    /// a secret, as it may hold a password, so `Debug` shows none of it.
    pub url: SecretString,
    pub max_connections: u32,
    /// Connections kept open while idle; the pool opens replacements in the background.
    /// One-shot processes use 0, so no connection is still being opened when they exit.
    pub min_idle: u32,
    /// How long to wait for a connection (at start-up and from the pool).
    pub connect_timeout: Duration,
    /// The bound on each wait for room in this process: a connection permit, and SQLite's
    /// writer. Past it a request is refused as busy with nothing done, never left hanging.
    pub wait_timeout: Duration,
}

impl DbConfig {
    /// A configuration with 10 connections (one kept while idle), a 5-second connect timeout and
    /// [`DEFAULT_WAIT_TIMEOUT`].
    #[must_use]
    pub fn new(url: impl Into<SecretString>) -> Self {
        Self {
            url: url.into(),
            max_connections: 10,
            min_idle: 1,
            connect_timeout: Duration::from_secs(5),
            wait_timeout: DEFAULT_WAIT_TIMEOUT,
        }
    }
}

/// Where a URL points: a PostgreSQL URL (a secret, as it may hold a password) or a SQLite file.
#[derive(Debug, Clone)]
pub(crate) enum Target {
    Postgres(SecretString),
    Sqlite(String),
}

impl Target {
    pub(crate) fn parse(url: &str) -> Result<Self, DbError> {
        let url = url.trim();
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Ok(Self::Postgres(url.into()));
        }
        let path = url
            .strip_prefix("sqlite://")
            .or_else(|| url.strip_prefix("sqlite:"))
            .unwrap_or(url);
        if path.is_empty() {
            return Err(DbError::InvalidUrl("the SQLite path is empty"));
        }
        // Every pooled connection would open its own empty in-memory database.
        if path == ":memory:" || path.contains("mode=memory") {
            return Err(DbError::InvalidUrl(
                "an in-memory SQLite database cannot be pooled; use a file",
            ));
        }
        if path.contains("://") {
            return Err(DbError::InvalidUrl(
                "the scheme must be postgres://, postgresql:// or sqlite:",
            ));
        }
        Ok(Self::Sqlite(path.to_owned()))
    }

    pub(crate) const fn backend(&self) -> Backend {
        match self {
            Self::Postgres(_) => Backend::Postgres,
            Self::Sqlite(_) => Backend::Sqlite,
        }
    }
}

/// Hands out connections for the scheme of the URL. The derived multi-connection `establish`
/// would try every backend and swallow PostgreSQL's real error (bad password, refused).
#[derive(Debug, Clone)]
pub struct DbConnectionManager {
    target: Target,
    reachability: Reachability,
}

impl DbConnectionManager {
    /// Connections to `target`; each failure to open one, or a broken one, marks the database
    /// unreachable in `reachability`, and each success marks it found.
    pub(crate) const fn new(target: Target, reachability: Reachability) -> Self {
        Self {
            target,
            reachability,
        }
    }
}

impl ManageConnection for DbConnectionManager {
    type Connection = DbConnection;
    type Error = diesel::r2d2::Error;

    fn connect(&self) -> Result<DbConnection, Self::Error> {
        let opened = match &self.target {
            Target::Postgres(url) => {
                PgConnection::establish(url.expose_secret()).map(DbConnection::Postgresql)
            }
            Target::Sqlite(path) => SqliteConnection::establish(path).map(DbConnection::Sqlite),
        };
        match &opened {
            Ok(_) => self.reachability.found(),
            Err(_) => self.reachability.lost(),
        }
        opened.map_err(diesel::r2d2::Error::ConnectionError)
    }

    fn is_valid(&self, conn: &mut DbConnection) -> Result<(), Self::Error> {
        conn.ping().map_err(diesel::r2d2::Error::QueryError)
    }

    fn has_broken(&self, conn: &mut DbConnection) -> bool {
        let broken = conn.is_broken();
        if broken {
            self.reachability.lost();
        }
        std::thread::panicking() || broken
    }
}

/// The settings every SQLite connection needs; they are per connection, not per file (except
/// WAL, which is stored in the file and costs nothing to repeat).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SqlitePragmas;

/// The WAL size (pages) at which a committing connection checkpoints after all: far above what
/// the checkpointer thread ([`crate::checkpointer`]) lets the WAL reach, so it happens only if
/// that thread stops keeping up.
pub(crate) const BACKSTOP_PAGES: u32 = 65_536;

/// `busy_timeout` comes first so the others wait for a lock instead of failing. `mmap_size`:
/// reads map the file instead of copying pages into each connection's own cache, which SQLite
/// empties whenever another connection commits — with the activity log writing every few
/// milliseconds, a read would otherwise start cold almost every time. `wal_autocheckpoint`:
/// a thread of its own checkpoints (see [`crate::checkpointer`]); a commit does so only as a
/// backstop, at [`BACKSTOP_PAGES`].
const SQLITE_PRAGMAS: &str = "PRAGMA busy_timeout = 5000; \
     PRAGMA journal_mode = WAL; \
     PRAGMA foreign_keys = ON; \
     PRAGMA synchronous = NORMAL; \
     PRAGMA mmap_size = 268435456;";

impl CustomizeConnection<DbConnection, diesel::r2d2::Error> for SqlitePragmas {
    fn on_acquire(&self, conn: &mut DbConnection) -> Result<(), diesel::r2d2::Error> {
        match conn {
            DbConnection::Sqlite(c) => c
                .batch_execute(SQLITE_PRAGMAS)
                .and_then(|()| {
                    c.batch_execute(&format!("PRAGMA wal_autocheckpoint = {BACKSTOP_PAGES};"))
                })
                .map_err(diesel::r2d2::Error::QueryError),
            DbConnection::Postgresql(_) => Ok(()),
        }
    }
}

/// A connection checked out of the pool; derefs to [`DbConnection`].
pub type DbPooledConnection = PooledConnection<DbConnectionManager>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_that_fails_to_open_marks_the_database_lost_and_one_that_opens_found() {
        let reachability = Reachability::default();
        let manager = |path: &str| DbConnectionManager {
            target: Target::Sqlite(path.to_owned()),
            reachability: reachability.clone(),
        };
        assert!(
            manager("/nonexistent-directory/for/sure/x.db")
                .connect()
                .is_err()
        );
        assert!(reachability.is_lost());
        assert!(manager(":memory:").connect().is_ok());
        assert!(!reachability.is_lost());
    }

    /// The file a SQLite URL names, `None` for PostgreSQL.
    fn sqlite_path(url: &str) -> Option<String> {
        match Target::parse(url).unwrap() {
            Target::Sqlite(path) => Some(path),
            Target::Postgres(_) => None,
        }
    }

    #[test]
    fn urls_pick_the_backend_by_scheme() {
        let pg = |u: &str| Target::parse(u).map(|t| t.backend());
        assert_eq!(pg("postgres://u@h/db").unwrap(), Backend::Postgres);
        assert_eq!(pg("postgresql://u@h/db").unwrap(), Backend::Postgres);
        match Target::parse(" postgres://u@h/db ").unwrap() {
            Target::Postgres(url) => assert_eq!(url.expose_secret(), "postgres://u@h/db"),
            Target::Sqlite(path) => panic!("PostgreSQL expected, got SQLite {path}"),
        }
        assert_eq!(
            sqlite_path("sqlite://data/x.db").as_deref(),
            Some("data/x.db")
        );
        assert_eq!(
            sqlite_path("sqlite:///tmp/x.db").as_deref(),
            Some("/tmp/x.db")
        );
        assert_eq!(sqlite_path("sqlite:x.db").as_deref(), Some("x.db"));
        assert_eq!(sqlite_path("data/x.db").as_deref(), Some("data/x.db"));
        for bad in [
            "",
            "sqlite://",
            "sqlite::memory:",
            ":memory:",
            "mysql://h/db",
        ] {
            assert!(Target::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn passwords_never_reach_debug_output() {
        let url = "postgres://app:s3cret@db.example:5432/discovery";
        let c = DbConfig::new(url);
        assert_eq!(c.url.expose_secret(), url);
        let shown = format!("{c:?}");
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(shown.contains("max_connections: 10"), "{shown}");
        let manager =
            DbConnectionManager::new(Target::parse(url).unwrap(), Reachability::default());
        let shown = format!("{manager:?}");
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(shown.contains("Postgres("), "{shown}");
    }
}
