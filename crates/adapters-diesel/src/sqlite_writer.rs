//! SQLite's writer: the turn this process's writers take one at a time, and the connection
//! they all write on.
//!
//! **Why one connection.** A SQLite connection keeps the pages it has read in its own cache,
//! and drops that cache whenever another connection has changed the file. Writes handed to
//! whichever pooled connection is free therefore kept re-reading the B-trees they had just
//! written (measured on the batch route: with one connection in all, 9% more rows/s than with
//! eight). Writes take turns anyway, so the turn keeps one connection between them. It is put
//! back only after a write that succeeded: after a failure or a panic it goes back to the pool,
//! which drops it if it is broken (say, left inside a transaction), and the next write takes a
//! fresh one. With a pool of one connection nothing is kept, or readers would starve.
//!
//! **Why the wait is bounded.** A writer that cannot have its turn within the bound gives up
//! with [`StoreError::Busy`] (503 `busy` with `Retry-After`) before writing anything, so no
//! request hangs behind a long write, and the caller can try again.

use std::time::Duration;

use parking_lot::Mutex;

use crate::connection::DbPooledConnection;
use crate::error::{StoreError, StoreResult};

/// The writer's turn, and the connection kept for it.
#[derive(Debug, Default)]
pub(crate) struct SqliteWriter {
    kept: Mutex<Option<DbPooledConnection>>,
    /// Whether to keep a connection between writes (a pool of two or more).
    keep: bool,
}

impl SqliteWriter {
    pub(crate) fn new(keep: bool) -> Self {
        Self {
            kept: Mutex::default(),
            keep,
        }
    }

    /// Runs `write` in the writer's turn on the kept connection (or one from `checkout`); it
    /// is kept for the next write when `succeeded` says so of the answer. Waits at most `wait`
    /// for the turn, else [`StoreError::Busy`] with nothing written.
    pub(crate) fn run<T>(
        &self,
        wait: Duration,
        checkout: impl FnOnce() -> StoreResult<DbPooledConnection>,
        write: impl FnOnce(&mut DbPooledConnection) -> T,
        succeeded: impl FnOnce(&T) -> bool,
    ) -> StoreResult<T> {
        // The mutex guards only a connection, which a panic (below) never puts back; it does
        // not poison.
        let mut kept = self.kept.try_lock_for(wait).ok_or(StoreError::Busy)?;
        let mut conn = match kept.take() {
            Some(conn) => conn,
            None => checkout()?,
        };
        let answer = write(&mut conn);
        if self.keep && succeeded(&answer) {
            *kept = Some(conn);
        }
        Ok(answer)
    }
}

/// A failed checkout as the store's error.
pub(crate) fn pool_error(e: diesel::r2d2::PoolError) -> StoreError {
    StoreError::Pool(e)
}
