//! [`Database`], the handle every repository holds: the pool of connections, migrations at
//! start-up, and how work reaches a connection (a read, a transaction, or a single-statement
//! write sharing a group commit). It sits above the connection, group commit, transactions and
//! migrations, which never import it.

use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use diesel::r2d2::{CustomizeConnection, ManageConnection, Pool, R2D2Connection};
use domain::RepoError;
use scheduled_thread_pool::{OnPoolDropBehavior, ScheduledThreadPool};
use secrecy::ExposeSecret;

use crate::checkpointer::Checkpointer;
use crate::connection::{
    Backend, DbConfig, DbConnection, DbConnectionManager, DbPooledConnection, SqlitePragmas, Target,
};
use crate::error::{DbError, StoreResult};
use crate::group_commit::{self, GroupCommit, Waiting, run_group};
use crate::migrations;
use crate::person_turns::{Changes, PersonTurns, Turn};
use crate::reachability::Reachability;
use crate::read_group::{self, ReadGroup};
use crate::sqlite_writer::{SqliteWriter, pool_error};
use crate::tx::write_tx;

/// The threads r2d2 opens connections and reaps idle ones on: three, as its default, but
/// stopped as soon as the pool is dropped. r2d2's own would wait for the next reaping (up to
/// 30 s) before ending, so every database closed (each test's, each one-shot command's) left
/// three threads behind it for that long.
fn upkeep_threads() -> Arc<ScheduledThreadPool> {
    Arc::new(
        ScheduledThreadPool::builder()
            .num_threads(3)
            .thread_name_pattern("r2d2-worker-{}")
            .on_drop_behavior(OnPoolDropBehavior::DiscardPendingScheduled)
            .build(),
    )
}

/// How many groups of single-statement writes may commit at once on PostgreSQL.
const GROUP_LEADERS: usize = 2;

/// How many groups of one kind of read by key may be read at once (fewer with a pool under
/// four connections; see [`Database::read_group`]). Two overlap their round trips and keep
/// reads going while one statement is slow; more made the groups smaller and each read dearer:
/// on 2 cores (64 connections, pool 16) the profile read answered about 32,000 req/s with one
/// leader, 28,000 with two, 21,000 with four and 15,000 with eight.
const READ_LEADERS: usize = 2;

/// The database: a pool of connections to one SQLite file or PostgreSQL database. Cheap to clone.
///
/// # Which way in
///
/// A repository reaches a connection in one of four ways. The choice is a matter of
/// correctness, not only speed, and this is the one place that says how to make it:
///
/// - [`Database::run`]: reads, one statement or several that need not agree with each other.
///   No transaction and, on SQLite, no turn at the writer: a write here would fight this
///   process's writer through SQLite's sleep-and-retry, and two writes would not be atomic.
/// - [`Database::write`]: every change of several statements that must stand or fall together,
///   and every read whose answer decides what is written. One transaction; on SQLite this
///   process's writers take turns on a mutex, so no other writer runs between its reads and
///   its commit (on PostgreSQL the step locks what it must, as `person_turn` and the repositories'
///   `FOR UPDATE` reads do).
/// - [`Database::write_one`]: one write (an upsert, a delete) whose caller waits for its answer.
///   Writes that arrive together share a commit (group commit), and a write whose group failed
///   runs again alone, so the step is `Fn` and must be right when run twice. Alone it is
///   autocommitted statement by statement: a step whose statements must be atomic belongs in
///   `write`.
/// - [`Database::read_grouped`]: a hot read of one row by its key. Reads that arrive together
///   share one statement (`IN (…)`), through a queue made once by [`Database::read_group`];
///   only for a lookup whose answer does not depend on who asks.
///
/// Every way in waits as a parked task, at most for the configured bound, and sorts a failure
/// into [`RepoError`] (`Busy` when nothing was done for lack of room).
#[derive(Clone)]
pub struct Database {
    pool: Pool<DbConnectionManager>,
    backend: Backend,
    reachability: Reachability,
    /// SQLite admits one writer at a time and makes the others sleep and retry (1 ms, 2 ms,
    /// 5 ms...); queuing this process's writers on a mutex instead hands the lock on at once,
    /// and they all write on one connection (see [`crate::sqlite_writer`]).
    sqlite_writer: Arc<SqliteWriter>,
    /// Single-statement writes that arrive together share a commit.
    group_commit: Arc<GroupCommit>,
    /// One permit per pooled connection: a caller waits for one here, as a parked task, before
    /// it takes a thread of the blocking pool. Without it, each request beyond the pool's size
    /// would hold a thread asleep on the pool's lock, and every connection handed back would
    /// wake them all (measured: most of the process's time went to switching between them).
    permits: Arc<tokio::sync::Semaphore>,
    /// The bound on waiting for a permit or for SQLite's writer (`DbConfig::wait_timeout`).
    wait: Duration,
    /// Rung when this process queues a re-classification, so its worker starts at once
    /// instead of at its next look.
    reclassification_queued: Arc<tokio::sync::Notify>,
    /// A person's rule changes, and their batches, queue here, one at a time, before they take
    /// a connection.
    person_turns: Arc<PersonTurns>,
    /// SQLite's WAL checkpoints, off every writer's path; stops with the last clone.
    _checkpointer: Option<Arc<Checkpointer>>,
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
        let target = Target::parse(config.url.expose_secret())?;
        if let Target::Sqlite(path) = &target {
            create_parent_dir(path)?;
        }
        let reachability = Reachability::default();
        let backend = target.backend();
        let manager = DbConnectionManager::new(target, reachability.clone());
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
        let keeps_writer = backend == Backend::Sqlite && config.max_connections >= 2;
        let sqlite_writer = Arc::new(SqliteWriter::new(keeps_writer));
        // On SQLite the first connection stays open to checkpoint.
        let checkpointer = match backend {
            Backend::Sqlite => Some(Arc::new(
                Checkpointer::start(first, Arc::clone(&sqlite_writer))
                    .map_err(DbError::Checkpointer)?,
            )),
            Backend::Postgres => {
                drop(first);
                None
            }
        };
        let pool = Pool::builder()
            .thread_pool(upkeep_threads())
            .max_size(config.max_connections.max(1))
            .min_idle(Some(config.min_idle.min(config.max_connections)))
            .connection_timeout(config.connect_timeout)
            .connection_customizer(Box::new(SqlitePragmas))
            // No `SELECT 1` before each use: it was a second round trip to PostgreSQL on every
            // request, as costly as a one-row read itself. A connection the server closed is
            // still never handed out twice: the query that finds it gone fails (503), diesel
            // then reports it broken, and the pool drops it (`DbConnectionManager::has_broken`).
            .test_on_check_out(false)
            .build(manager)
            .map_err(DbError::Pool)?;
        Ok((
            Self {
                pool,
                backend,
                reachability,
                sqlite_writer,
                // The writer's kept connection is out of the pool: one permit fewer.
                permits: Arc::new(tokio::sync::Semaphore::new(
                    usize::try_from(config.max_connections.max(1) - u32::from(keeps_writer))
                        .unwrap_or(1),
                )),
                wait: config.wait_timeout,
                reclassification_queued: Arc::default(),
                person_turns: Arc::default(),
                _checkpointer: checkpointer,
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

    /// Rung each time this process queues (or restarts) a re-classification job; the worker of
    /// `discovery-api` waits on it between its looks at the queue.
    #[must_use]
    pub fn reclassification_queued(&self) -> Arc<tokio::sync::Notify> {
        Arc::clone(&self.reclassification_queued)
    }

    /// The pool right now: connections open, and how many of them are idle (the rest are in
    /// use). For metrics; it takes the pool's lock briefly and never touches the database.
    #[must_use]
    pub fn pool_state(&self) -> (u32, u32) {
        let state = self.pool.state();
        (state.connections, state.idle_connections)
    }

    /// A new queue for one kind of read by key, for [`Database::read_grouped`]: at most
    /// [`READ_LEADERS`] groups are read at once, and no more than half the pool's connections
    /// (but always one).
    pub(crate) fn read_group<K, V>(&self) -> Arc<ReadGroup<K, V>>
    where
        K: Clone + Eq + std::hash::Hash,
        V: Clone,
    {
        let half = usize::try_from(self.pool.max_size() / 2).unwrap_or(1);
        Arc::new(ReadGroup::new(READ_LEADERS.min(half)))
    }

    /// Reads the row of `key`, sharing one statement with the reads of the same `group` that
    /// wait at the same time (see [`crate::read_group`]). `load` returns, in one statement, the
    /// rows of the distinct keys it is given, each with its key. A caller waiting for its
    /// answer holds no thread; the leader that runs the statement takes no permit, like the
    /// leaders of group commit (the number of leaders bounds the threads).
    pub(crate) async fn read_grouped<K, V, F>(
        &self,
        context: &'static str,
        group: &Arc<ReadGroup<K, V>>,
        key: K,
        load: F,
    ) -> Result<Option<V>, RepoError>
    where
        K: Clone + Eq + std::hash::Hash + Send + 'static,
        V: Clone + Send + 'static,
        F: Fn(&mut DbConnection, &[K]) -> StoreResult<Vec<(K, V)>> + Send + 'static,
    {
        let (reply, answer) = tokio::sync::oneshot::channel();
        if let Some(leader) = group.enqueue(read_group::Waiting { key, reply }) {
            let (pool, reachability) = (self.pool.clone(), self.reachability.clone());
            // Detached: the leader answers every read it runs through its own channel.
            drop(tokio::task::spawn_blocking(move || {
                read_group::lead(leader, |keys| {
                    let mut conn = reachability.checkout(&pool)?;
                    load(&mut conn, keys)
                });
            }));
        }
        answer
            .await
            .unwrap_or_else(|_| Err(read_group::unavailable()))
            .map_err(|e| e.into_repo(context))
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

    /// The most rows a background job's next write transaction may change (see
    /// [`SqliteWriter::background_cap`]; fixed on PostgreSQL).
    pub(crate) fn background_write_cap(&self, postgres: usize) -> usize {
        match self.backend {
            Backend::Sqlite => self.sqlite_writer.background_cap(),
            Backend::Postgres => postgres,
        }
    }

    /// Waits, as a parked task and at most for the wait bound, for the person's turn at changes
    /// of one kind, which the database would run one at a time anyway or which would hold
    /// everyone else's writes behind them (see [`crate::person_turns`]).
    pub(crate) async fn person_turn(
        &self,
        changes: Changes,
        context: &'static str,
        person: &str,
    ) -> Result<Turn, RepoError> {
        self.person_turns
            .take(changes, person, self.wait)
            .await
            .map_err(|e| e.into_repo(context))
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
            let (pool, reachability, wait) =
                (self.pool.clone(), self.reachability.clone(), self.wait);
            // Detached: the leader answers every write it runs through its own channel.
            drop(tokio::task::spawn_blocking(move || {
                group_commit::lead(leader, |steps| {
                    let checkout = || reachability.checkout(&pool).map_err(pool_error);
                    let ran = match &turn {
                        Some(writer) => writer.run(
                            wait,
                            checkout,
                            |conn| run_group(&mut *conn, steps),
                            |answers| answers.iter().all(Result::is_ok),
                        ),
                        None => checkout().map(|mut conn| run_group(&mut conn, steps)),
                    };
                    ran.unwrap_or_else(|e| {
                        steps.iter().map(|_| Err(e.for_each_of_a_group())).collect()
                    })
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
        turn: Option<Arc<SqliteWriter>>,
        step: F,
    ) -> Result<T, RepoError>
    where
        F: FnOnce(&mut DbConnection) -> StoreResult<T> + Send + 'static,
        T: Send + 'static,
    {
        let (pool, reachability, wait) = (self.pool.clone(), self.reachability.clone(), self.wait);
        // A bounded wait: past it the request is refused as busy, having done nothing. The
        // semaphore is never closed, so acquiring fails only if it were; then go to the pool.
        let permit =
            match tokio::time::timeout(wait, Arc::clone(&self.permits).acquire_owned()).await {
                Ok(permit) => permit.ok(),
                // While the database is down the permits' holders fail fast; a wait that
                // still ran out is the outage's, not the load's.
                Err(_) if reachability.is_lost() => {
                    return Err(RepoError::Unavailable(
                        anyhow::anyhow!("the database is unreachable").context(context),
                    ));
                }
                Err(_) => {
                    tracing::warn!(
                        context,
                        "no database permit within the bound; refused as busy"
                    );
                    return Err(RepoError::Busy);
                }
            };
        let joined = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let checkout = || reachability.checkout(&pool).map_err(pool_error);
            match turn {
                Some(writer) => {
                    writer.run(wait, checkout, |conn| step(&mut *conn), Result::is_ok)?
                }
                None => step(&mut *checkout()?),
            }
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
