//! The error every storage port returns, sorted by meaning so services can decide without
//! knowing which database answered.

/// A storage failure.
#[derive(Debug, thiserror::Error)]
pub enum RepoError {
    /// The row to change is gone (or belongs to someone else).
    #[error("not found")]
    NotFound,
    /// A concurrent writer changed the record first (version mismatch, duplicate key).
    #[error("conflicting concurrent change")]
    Conflict,
    /// The database had no room for this request within the bound (a connection permit, or
    /// SQLite's single writer): nothing was done, and trying again shortly may succeed.
    #[error("storage busy")]
    Busy,
    /// The database's disk is full: the write was rolled back whole, nothing was changed, and
    /// reads go on working. Trying again helps once space is freed.
    #[error("storage full")]
    StorageFull(#[source] anyhow::Error),
    /// The database could not be reached or did not answer in time.
    #[error("storage unavailable")]
    Unavailable(#[source] anyhow::Error),
    /// Anything else: a bug or corrupt data.
    #[error(transparent)]
    Unexpected(#[from] anyhow::Error),
}
