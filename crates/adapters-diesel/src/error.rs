//! Storage failures sorted by meaning, in one place: the crate's internal `StoreError`, its
//! single mapping onto the domain's `RepoError`, and the public [`DbError`] of start-up.

use diesel::result::{DatabaseErrorKind, Error as DieselError};
use domain::RepoError;

/// A failure inside a repository call, before it is sorted for the domain.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StoreError {
    /// A rule the port names was broken (stale version, completed conversation, duplicate).
    #[error("conflicting change")]
    Conflict,
    /// The row to change does not exist for this owner.
    #[error("not found")]
    NotFound,
    #[error(transparent)]
    Query(#[from] DieselError),
    #[error(transparent)]
    Pool(#[from] diesel::r2d2::PoolError),
    /// No connection could be had for a group of writes (the pool's error is not `Clone`, so
    /// each write of the group carries its text).
    #[error(transparent)]
    Unavailable(anyhow::Error),
    /// A stored value the domain refuses (corrupt data or a bug).
    #[error(transparent)]
    Data(#[from] anyhow::Error),
    /// The bounded wait for a connection permit or SQLite's writer ran out.
    #[error("the database had no room for this request in time")]
    Busy,
    /// The disk under the database is full (a group commit's other writes carry its text).
    #[error(transparent)]
    Full(anyhow::Error),
}

/// The result of one blocking database step.
pub(crate) type StoreResult<T> = Result<T, StoreError>;

impl StoreError {
    /// Sorts the failure for the domain. `context` names the operation (never values or SQL),
    /// so a logged cause chain says what was attempted without leaking what a person wrote.
    pub(crate) fn into_repo(self, context: &'static str) -> RepoError {
        match self {
            Self::Conflict => RepoError::Conflict,
            Self::NotFound => RepoError::NotFound,
            Self::Busy => RepoError::Busy,
            Self::Pool(e) => RepoError::Unavailable(anyhow::Error::new(e).context(context)),
            Self::Unavailable(e) => RepoError::Unavailable(e.context(context)),
            Self::Data(e) => RepoError::Unexpected(e.context(context)),
            Self::Query(e) => match classify(&e) {
                Kind::Conflict => RepoError::Conflict,
                Kind::NotFound => RepoError::NotFound,
                Kind::Unavailable => RepoError::Unavailable(anyhow::Error::new(e).context(context)),
                Kind::Full => RepoError::StorageFull(anyhow::Error::new(e).context(context)),
                Kind::Unexpected => RepoError::Unexpected(anyhow::Error::new(e).context(context)),
            },
            Self::Full(e) => RepoError::StorageFull(e.context(context)),
        }
    }

    /// Whether the connection or the database is unusable right now (so running the same
    /// writes again at once would only fail again, or wait again).
    pub(crate) fn is_connection_failure(&self) -> bool {
        match self {
            Self::Pool(_) | Self::Unavailable(_) | Self::Busy => true,
            Self::Query(e) => matches!(classify(e), Kind::Unavailable) && !is_deadlock(e),
            // A full disk is not the connection's fault; the next write may fit.
            Self::Conflict | Self::NotFound | Self::Data(_) | Self::Full(_) => false,
        }
    }

    /// The same failure for each other write of a group commit (errors are not `Clone`), sorted
    /// the same way by [`StoreError::into_repo`].
    pub(crate) fn for_each_of_a_group(&self) -> Self {
        match self {
            Self::Conflict => Self::Conflict,
            Self::NotFound => Self::NotFound,
            Self::Busy => Self::Busy,
            Self::Pool(e) => Self::Unavailable(anyhow::anyhow!("{e}")),
            Self::Unavailable(e) => Self::Unavailable(anyhow::anyhow!("{e:#}")),
            Self::Data(e) => Self::Data(anyhow::anyhow!("{e:#}")),
            Self::Full(e) => Self::Full(anyhow::anyhow!("{e:#}")),
            Self::Query(e) => match classify(e) {
                Kind::Conflict => Self::Conflict,
                Kind::NotFound => Self::NotFound,
                Kind::Unavailable => Self::Unavailable(anyhow::anyhow!("{e}")),
                Kind::Full => Self::Full(anyhow::anyhow!("{e}")),
                Kind::Unexpected => Self::Data(anyhow::anyhow!("{e}")),
            },
        }
    }
}

enum Kind {
    Conflict,
    NotFound,
    Unavailable,
    Full,
    Unexpected,
}

fn classify(error: &DieselError) -> Kind {
    match error {
        DieselError::DatabaseError(kind, info) => match kind {
            DatabaseErrorKind::UniqueViolation | DatabaseErrorKind::SerializationFailure => {
                Kind::Conflict
            }
            // The owner vanished between the caller's read and this write (e.g. a deleted user).
            DatabaseErrorKind::ForeignKeyViolation => Kind::NotFound,
            DatabaseErrorKind::ClosedConnection | DatabaseErrorKind::UnableToSendCommand => {
                Kind::Unavailable
            }
            // SQLite reports a writer that outlasted busy_timeout only through its message.
            _ if is_busy(info.message()) => Kind::Unavailable,
            // Neither SQLite's SQLITE_FULL nor PostgreSQL's disk_full (53100) has a kind.
            _ if is_full(info.message()) => Kind::Full,
            // PostgreSQL chose this transaction to break a lock cycle: nothing was written and
            // the same request may simply be sent again (diesel has no kind for 40P01).
            _ if is_deadlock_message(info.message()) => Kind::Unavailable,
            _ => Kind::Unexpected,
        },
        DieselError::NotFound => Kind::NotFound,
        DieselError::BrokenTransactionManager => Kind::Unavailable,
        _ => Kind::Unexpected,
    }
}

fn is_deadlock(error: &DieselError) -> bool {
    matches!(error, DieselError::DatabaseError(_, info) if is_deadlock_message(info.message()))
}

fn is_deadlock_message(message: &str) -> bool {
    message.contains("deadlock detected")
}

/// SQLITE_FULL ("database or disk is full"), and PostgreSQL's disk_full, whose message quotes
/// the operating system's ENOSPC ("could not extend file ...: No space left on device").
fn is_full(message: &str) -> bool {
    message.contains("database or disk is full") || message.contains("No space left on device")
}

fn is_busy(message: &str) -> bool {
    message.contains("database is locked") || message.contains("database is busy")
}

/// Why the database could not be opened or migrated.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("DATABASE_URL is not usable: {0}")]
    InvalidUrl(&'static str),
    #[error("could not create the directory of the SQLite file {path}")]
    CreateDir {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("could not connect to the database: {0}")]
    Connect(#[source] diesel::ConnectionError),
    #[error("the database connection pool failed: {0}")]
    Pool(#[source] diesel::r2d2::PoolError),
    #[error("the database migrations failed: {0}")]
    Migration(String),
    #[error("the database did not answer: {0}")]
    Query(#[source] DieselError),
    #[error("the database task stopped unexpectedly")]
    Task(#[source] tokio::task::JoinError),
    #[error("could not start the SQLite checkpoint thread: {0}")]
    Checkpointer(#[source] std::io::Error),
    #[error("backups of PostgreSQL are taken with pg_dump (see docs/operations.md, Backups)")]
    NotSqlite,
    #[error("{0} already exists; a backup never overwrites a file, choose a new name")]
    BackupExists(String),
    #[error(
        "{0} exists (a backup still running, or one that stopped): it is left alone; \
         remove it or choose another name"
    )]
    BackupInProgress(String),
    #[error("{0}: a backup is written to a plain file path, not a URI or a path with ? or #")]
    NotAPlainPath(String),
    #[error("no such file: {0}")]
    NoSuchFile(String),
    #[error("file {path}")]
    File {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

#[cfg(test)]
mod tests {
    use diesel::result::DatabaseErrorInformation;

    use super::*;

    struct Info(&'static str);

    impl DatabaseErrorInformation for Info {
        fn message(&self) -> &str {
            self.0
        }
        fn details(&self) -> Option<&str> {
            None
        }
        fn hint(&self) -> Option<&str> {
            None
        }
        fn table_name(&self) -> Option<&str> {
            None
        }
        fn column_name(&self) -> Option<&str> {
            None
        }
        fn constraint_name(&self) -> Option<&str> {
            None
        }
        fn statement_position(&self) -> Option<i32> {
            None
        }
    }

    fn query(kind: DatabaseErrorKind, message: &'static str) -> StoreError {
        StoreError::Query(DieselError::DatabaseError(kind, Box::new(Info(message))))
    }

    #[test]
    fn a_full_disk_is_storage_full_on_both_backends_and_not_a_lost_connection() {
        for full in [
            query(DatabaseErrorKind::Unknown, "database or disk is full"),
            query(
                DatabaseErrorKind::Unknown,
                "could not extend file \"base/16384/16385\": No space left on device",
            ),
        ] {
            assert!(!full.is_connection_failure(), "{full}");
            let sibling = full.for_each_of_a_group();
            assert!(matches!(
                full.into_repo("storing"),
                RepoError::StorageFull(_)
            ));
            assert!(matches!(
                sibling.into_repo("storing"),
                RepoError::StorageFull(_)
            ));
        }
        assert!(matches!(
            query(DatabaseErrorKind::Unknown, "disk I/O error").into_repo("storing"),
            RepoError::Unexpected(_)
        ));
    }

    #[test]
    fn a_deadlock_victim_is_retryable_but_its_connection_is_fine() {
        let victim = query(DatabaseErrorKind::Unknown, "deadlock detected");
        assert!(!victim.is_connection_failure(), "its group may run again");
        let sibling = victim.for_each_of_a_group();
        assert!(matches!(
            victim.into_repo("storing"),
            RepoError::Unavailable(_)
        ));
        assert!(matches!(
            sibling.into_repo("storing"),
            RepoError::Unavailable(_)
        ));
    }

    #[test]
    fn connection_failures_are_told_apart_from_a_write_s_own_failures() {
        for gone in [
            query(
                DatabaseErrorKind::ClosedConnection,
                "server closed the connection",
            ),
            query(DatabaseErrorKind::Unknown, "database is locked"),
            StoreError::Unavailable(anyhow::anyhow!("no connection")),
        ] {
            assert!(gone.is_connection_failure(), "{gone}");
            assert!(matches!(
                gone.for_each_of_a_group().into_repo("storing"),
                RepoError::Unavailable(_)
            ));
        }
        for own in [
            query(DatabaseErrorKind::UniqueViolation, "duplicate key"),
            query(DatabaseErrorKind::ForeignKeyViolation, "no such user"),
            StoreError::Conflict,
            StoreError::Data(anyhow::anyhow!("a stored value the domain refuses")),
        ] {
            assert!(!own.is_connection_failure(), "{own}");
        }
        assert!(matches!(
            query(DatabaseErrorKind::ForeignKeyViolation, "no such user")
                .for_each_of_a_group()
                .into_repo("storing"),
            RepoError::NotFound
        ));
    }
}
