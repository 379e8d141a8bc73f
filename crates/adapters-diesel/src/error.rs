//! Storage failures sorted by meaning, in one place: the crate's internal [`StoreError`], its
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
            Self::Pool(e) => RepoError::Unavailable(anyhow::Error::new(e).context(context)),
            Self::Unavailable(e) => RepoError::Unavailable(e.context(context)),
            Self::Data(e) => RepoError::Unexpected(e.context(context)),
            Self::Query(e) => match classify(&e) {
                Kind::Conflict => RepoError::Conflict,
                Kind::NotFound => RepoError::NotFound,
                Kind::Unavailable => RepoError::Unavailable(anyhow::Error::new(e).context(context)),
                Kind::Unexpected => RepoError::Unexpected(anyhow::Error::new(e).context(context)),
            },
        }
    }
}

enum Kind {
    Conflict,
    NotFound,
    Unavailable,
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
            _ => Kind::Unexpected,
        },
        DieselError::NotFound => Kind::NotFound,
        DieselError::BrokenTransactionManager => Kind::Unavailable,
        _ => Kind::Unexpected,
    }
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
}
