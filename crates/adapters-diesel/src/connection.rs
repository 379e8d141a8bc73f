//! Opening the database: the SQLite-or-PostgreSQL connection enum, the URL rules, the r2d2 pool
//! with its per-connection SQLite settings, and [`Database`], the handle every repository holds.

use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::r2d2::{CustomizeConnection, ManageConnection, Pool, PooledConnection, R2D2Connection};
use domain::RepoError;

use crate::error::{DbError, StoreError, StoreResult};
use crate::group_commit::{self, GroupCommit, Waiting, run_group};
use crate::migrations;
use crate::reachability::Reachability;
use crate::tx::write_tx;

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

/// Which database a [`Database`] talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// How to reach the database.
#[derive(Clone)]
pub struct DbConfig {
    /// `postgres://…` / `postgresql://…`, or `sqlite://path`, `sqlite:path` or a plain file path.
    pub url: String,
    pub max_connections: u32,
    /// Connections kept open while idle; the pool opens replacements in the background.
    /// One-shot processes use 0, so no connection is still being opened when they exit.
    pub min_idle: u32,
    /// How long to wait for a connection (at start-up and from the pool).
    pub connect_timeout: Duration,
}

impl DbConfig {
    /// A configuration with 10 connections (one kept while idle) and a 5-second timeout.
    #[must_use]
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            max_connections: 10,
            min_idle: 1,
            connect_timeout: Duration::from_secs(5),
        }
    }
}

impl fmt::Debug for DbConfig {
    /// The URL may carry a password; it is never printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DbConfig")
            .field("url", &redact(&self.url))
            .field("max_connections", &self.max_connections)
            .field("min_idle", &self.min_idle)
            .field("connect_timeout", &self.connect_timeout)
            .finish()
    }
}

/// The URL with any password replaced by `***`.
fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    match rest.rsplit_once('@') {
        Some((userinfo, host)) if userinfo.contains(':') => {
            let user = userinfo.split_once(':').map_or(userinfo, |(u, _)| u);
            format!("{scheme}://{user}:***@{host}")
        }
        _ => url.to_owned(),
    }
}

/// Where a URL points.
#[derive(Clone, PartialEq, Eq)]
enum Target {
    Postgres(String),
    Sqlite(String),
}

impl fmt::Debug for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Postgres(url) => write!(f, "Postgres({})", redact(url)),
            Self::Sqlite(path) => write!(f, "Sqlite({path})"),
        }
    }
}

impl Target {
    fn parse(url: &str) -> Result<Self, DbError> {
        let url = url.trim();
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Ok(Self::Postgres(url.to_owned()));
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

    const fn backend(&self) -> Backend {
        match self {
            Self::Postgres(_) => Backend::Postgres,
            Self::Sqlite(_) => Backend::Sqlite,
        }
    }
}

/// Hands out connections for the scheme of the URL. The derived multi-connection `establish`
/// would try every backend and swallow PostgreSQL's real error (bad password, refused).
#[derive(Clone)]
pub struct DbConnectionManager {
    target: Target,
    reachability: Reachability,
}

impl fmt::Debug for DbConnectionManager {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DbConnectionManager")
            .field("backend", &self.target.backend())
            .finish()
    }
}

impl ManageConnection for DbConnectionManager {
    type Connection = DbConnection;
    type Error = diesel::r2d2::Error;

    fn connect(&self) -> Result<DbConnection, Self::Error> {
        let opened = match &self.target {
            Target::Postgres(url) => PgConnection::establish(url).map(DbConnection::Postgresql),
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
struct SqlitePragmas;

/// `busy_timeout` comes first so the others wait for a lock instead of failing. `mmap_size`:
/// reads map the file instead of copying pages into each connection's own cache, which SQLite
/// empties whenever another connection commits — with the activity log writing every few
/// milliseconds, a read would otherwise start cold almost every time.
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
                .map_err(diesel::r2d2::Error::QueryError),
            DbConnection::Postgresql(_) => Ok(()),
        }
    }
}

/// A connection checked out of the pool; derefs to [`DbConnection`].
pub type DbPooledConnection = PooledConnection<DbConnectionManager>;

/// How many groups of single-statement writes may commit at once on PostgreSQL.
const GROUP_LEADERS: usize = 2;

/// The database: a pool of connections to one SQLite file or PostgreSQL database. Cheap to clone.
#[derive(Clone)]
pub struct Database {
    pool: Pool<DbConnectionManager>,
    backend: Backend,
    reachability: Reachability,
    /// SQLite admits one writer at a time and makes the others sleep and retry (1 ms, 2 ms,
    /// 5 ms...); queuing this process's writers on a mutex instead hands the lock on at once.
    sqlite_writer: Arc<Mutex<()>>,
    /// Single-statement writes that arrive together share a commit.
    group_commit: Arc<GroupCommit>,
}

impl fmt::Debug for Database {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.pool.state();
        f.debug_struct("Database")
            .field("backend", &self.backend)
            .field("connections", &state.connections)
            .field("idle", &state.idle_connections)
            .finish()
    }
}

impl Database {
    /// Opens the database named by `config.url`, applies pending migrations and builds the pool.
    /// Blocks; call it once at start-up.
    ///
    /// # Errors
    /// [`DbError`] for a bad URL, an unreachable database (with the driver's own message), or a
    /// failed migration.
    pub fn connect(config: &DbConfig) -> Result<Self, DbError> {
        Self::connect_applying(config).map(|(db, _)| db)
    }

    /// [`Database::connect`], also returning the migration versions this call applied (empty
    /// when the database was up to date), for the `migrate` job's report.
    ///
    /// # Errors
    /// As [`Database::connect`].
    pub fn connect_applying(config: &DbConfig) -> Result<(Self, Vec<String>), DbError> {
        let target = Target::parse(&config.url)?;
        if let Target::Sqlite(path) = &target {
            create_parent_dir(path)?;
        }
        let reachability = Reachability::default();
        let manager = DbConnectionManager {
            target,
            reachability: reachability.clone(),
        };
        let backend = manager.target.backend();
        // One direct connection first: it reports a refused connection at once and with the
        // driver's message, instead of after the pool's timeout.
        let mut first = manager.connect().map_err(|e| match e {
            diesel::r2d2::Error::ConnectionError(e) => DbError::Connect(e),
            diesel::r2d2::Error::QueryError(e) => DbError::Query(e),
        })?;
        SqlitePragmas.on_acquire(&mut first).map_err(|e| match e {
            diesel::r2d2::Error::ConnectionError(e) => DbError::Connect(e),
            diesel::r2d2::Error::QueryError(e) => DbError::Query(e),
        })?;
        let applied = migrations::run_migrations(&mut first)?;
        drop(first);
        let pool = Pool::builder()
            .max_size(config.max_connections.max(1))
            .min_idle(Some(config.min_idle.min(config.max_connections)))
            .connection_timeout(config.connect_timeout)
            .connection_customizer(Box::new(SqlitePragmas))
            .build(manager)
            .map_err(DbError::Pool)?;
        Ok((
            Self {
                pool,
                backend,
                reachability,
                sqlite_writer: Arc::default(),
                group_commit: Arc::new(GroupCommit::new(match backend {
                    Backend::Sqlite => 1,
                    // Groups overlap their round trips; a few leave the pool to everyone else.
                    Backend::Postgres => {
                        GROUP_LEADERS.min(usize::try_from(config.max_connections / 2).unwrap_or(1))
                    }
                })),
            },
            applied,
        ))
    }

    #[must_use]
    pub const fn backend(&self) -> Backend {
        self.backend
    }

    /// The pool right now: connections open, and how many of them are idle (the rest are in
    /// use). For metrics; it takes the pool's lock briefly and never touches the database.
    #[must_use]
    pub fn pool_state(&self) -> (u32, u32) {
        let state = self.pool.state();
        (state.connections, state.idle_connections)
    }

    /// Checks that the database answers (for readiness probes).
    ///
    /// # Errors
    /// [`DbError::Pool`] when no connection could be had, [`DbError::Query`] when it did not answer.
    pub async fn ping(&self) -> Result<(), DbError> {
        let (pool, reachability) = (self.pool.clone(), self.reachability.clone());
        tokio::task::spawn_blocking(move || {
            let mut conn = reachability.checkout(&pool).map_err(DbError::Pool)?;
            conn.ping().map_err(DbError::Query)
        })
        .await
        .map_err(DbError::Task)?
    }

    /// Applies pending migrations (they already ran in [`Database::connect`]); returns the
    /// versions applied.
    ///
    /// # Errors
    /// [`DbError`] when no connection could be had or a migration failed.
    pub async fn run_migrations(&self) -> Result<Vec<String>, DbError> {
        let (pool, reachability) = (self.pool.clone(), self.reachability.clone());
        tokio::task::spawn_blocking(move || {
            let mut conn = reachability.checkout(&pool).map_err(DbError::Pool)?;
            migrations::run_migrations(&mut conn)
        })
        .await
        .map_err(DbError::Task)?
    }

    /// A raw pooled connection, for operations tooling, benchmarks and tests; the service itself
    /// goes through the repositories. Blocks while the pool is exhausted.
    ///
    /// # Errors
    /// [`DbError::Pool`] when no connection could be had in time.
    pub fn connection(&self) -> Result<DbPooledConnection, DbError> {
        self.reachability
            .checkout(&self.pool)
            .map_err(DbError::Pool)
    }

    /// Runs one blocking step on a pooled connection off the async runtime and sorts its failure.
    pub(crate) async fn run<T, F>(&self, context: &'static str, step: F) -> Result<T, RepoError>
    where
        F: FnOnce(&mut DbConnection) -> StoreResult<T> + Send + 'static,
        T: Send + 'static,
    {
        self.blocking(context, None, step).await
    }

    /// Like [`Database::run`], inside one write transaction. On SQLite the writers of this
    /// process take turns on a mutex (held from before a connection is taken until commit).
    pub(crate) async fn write<T, F>(&self, context: &'static str, step: F) -> Result<T, RepoError>
    where
        F: FnOnce(&mut DbConnection) -> StoreResult<T> + Send + 'static,
        T: Send + 'static,
    {
        let turn = (self.backend == Backend::Sqlite).then(|| Arc::clone(&self.sqlite_writer));
        self.blocking(context, turn, move |conn| write_tx(conn, step))
            .await
    }

    /// Like [`Database::run`] for one statement that writes: alone it is autocommitted; when
    /// several arrive at once they share one commit (see [`crate::group_commit`]). On SQLite
    /// each group takes its turn with the other writers as [`Database::write`] does. `step`
    /// may run twice (alone again after its group failed), so it is `Fn`.
    pub(crate) async fn write_one<T, F>(
        &self,
        context: &'static str,
        step: F,
    ) -> Result<T, RepoError>
    where
        F: Fn(&mut DbConnection) -> StoreResult<T> + Send + Sync + 'static,
        T: Send + 'static,
    {
        let (reply, answer) = tokio::sync::oneshot::channel();
        let waiting = Waiting {
            step: group_commit::step(step),
            reply,
        };
        if let Some(leader) = self.group_commit.enqueue(waiting) {
            let turn = (self.backend == Backend::Sqlite).then(|| Arc::clone(&self.sqlite_writer));
            let (pool, reachability) = (self.pool.clone(), self.reachability.clone());
            // Detached: the leader answers every write it runs through its own channel.
            drop(tokio::task::spawn_blocking(move || {
                leader.run(|steps| {
                    let _turn = turn
                        .as_ref()
                        .map(|t| t.lock().unwrap_or_else(PoisonError::into_inner));
                    match reachability.checkout(&pool) {
                        Ok(mut conn) => run_group(&mut conn, steps),
                        Err(e) => {
                            let e = StoreError::Pool(e);
                            steps.iter().map(|_| Err(e.for_each_of_a_group())).collect()
                        }
                    }
                });
            }));
        }
        let answer = answer
            .await
            .unwrap_or_else(|_| Err(group_commit::unavailable()));
        group_commit::unbox(answer).map_err(|e| e.into_repo(context))
    }

    async fn blocking<T, F>(
        &self,
        context: &'static str,
        turn: Option<Arc<Mutex<()>>>,
        step: F,
    ) -> Result<T, RepoError>
    where
        F: FnOnce(&mut DbConnection) -> StoreResult<T> + Send + 'static,
        T: Send + 'static,
    {
        let (pool, reachability) = (self.pool.clone(), self.reachability.clone());
        let joined = tokio::task::spawn_blocking(move || {
            // The mutex guards no data, so a panic elsewhere leaves nothing to repair.
            let _turn = turn
                .as_ref()
                .map(|t| t.lock().unwrap_or_else(PoisonError::into_inner));
            let mut conn = reachability.checkout(&pool)?;
            step(&mut conn)
        })
        .await;
        match joined {
            Ok(result) => result.map_err(|e| e.into_repo(context)),
            Err(e) => Err(RepoError::Unexpected(
                anyhow::Error::new(e).context(context),
            )),
        }
    }
}

fn create_parent_dir(path: &str) -> Result<(), DbError> {
    let path = path.strip_prefix("file:").unwrap_or(path);
    let path = path.split_once('?').map_or(path, |(p, _)| p);
    match Path::new(path).parent() {
        Some(dir) if !dir.as_os_str().is_empty() => {
            std::fs::create_dir_all(dir).map_err(|source| DbError::CreateDir {
                path: path.to_owned(),
                source,
            })
        }
        _ => Ok(()),
    }
}

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

    #[test]
    fn urls_pick_the_backend_by_scheme() {
        let pg = |u: &str| Target::parse(u).map(|t| t.backend());
        assert_eq!(pg("postgres://u@h/db").unwrap(), Backend::Postgres);
        assert_eq!(pg("postgresql://u@h/db").unwrap(), Backend::Postgres);
        assert_eq!(
            Target::parse("sqlite://data/x.db").unwrap(),
            Target::Sqlite("data/x.db".into())
        );
        assert_eq!(
            Target::parse("sqlite:///tmp/x.db").unwrap(),
            Target::Sqlite("/tmp/x.db".into())
        );
        assert_eq!(
            Target::parse("sqlite:x.db").unwrap(),
            Target::Sqlite("x.db".into())
        );
        assert_eq!(
            Target::parse("data/x.db").unwrap(),
            Target::Sqlite("data/x.db".into())
        );
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
        let c = DbConfig::new("postgres://app:s3cret@db.example:5432/discovery");
        let shown = format!("{c:?}");
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(
            shown.contains("app:***@db.example:5432/discovery"),
            "{shown}"
        );
        assert!(format!("{:?}", DbConfig::new("data/x.db")).contains("data/x.db"));
    }
}
