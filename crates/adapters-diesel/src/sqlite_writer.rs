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
//!
//! **Why a background job's transactions change size.** A background job (re-classification)
//! writes in a stream of short transactions, and a request that wants the turn meanwhile waits
//! for the one in flight. So the job's transactions grow by steps while no writer has had to
//! wait, and shrink to a quarter as soon as one has ([`SqliteWriter::background_cap`]): large on a quiet database, a
//! few dozen rows beside people's writes.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
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
    /// Whether a writer has had to wait for the turn since the last
    /// [`SqliteWriter::background_cap`].
    contended: AtomicBool,
    /// The rows a background transaction writes next (see [`SqliteWriter::background_cap`]).
    cap: AtomicUsize,
}

/// The bounds of a background transaction's rows: at the least a request waits for about a
/// millisecond of it; at the most a quiet job commits a few times per read it makes.
const BACKGROUND_CAP: (usize, usize) = (16, 1_000);

impl SqliteWriter {
    pub(crate) fn new(keep: bool) -> Self {
        Self {
            kept: Mutex::default(),
            keep,
            contended: AtomicBool::new(false),
            cap: AtomicUsize::new(BACKGROUND_CAP.0),
        }
    }

    /// How many rows the next background transaction may write: a quarter of the last cap
    /// when a writer has waited for the turn since (at least the lower bound), else 16 more (at
    /// most the upper bound). Growing by steps, not doubling, keeps it small while people write
    /// now and then; a quiet job still reaches the most within about 60 transactions.
    pub(crate) fn background_cap(&self) -> usize {
        let cap = self.cap.load(Ordering::Relaxed);
        let next = if self.contended.swap(false, Ordering::Relaxed) {
            (cap / 4).max(BACKGROUND_CAP.0)
        } else {
            (cap + BACKGROUND_CAP.0).min(BACKGROUND_CAP.1)
        };
        self.cap.store(next, Ordering::Relaxed);
        next
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
        let mut kept = match self.kept.try_lock() {
            Some(kept) => kept,
            None => {
                // Seen by the next background cap.
                self.contended.store(true, Ordering::Relaxed);
                self.kept.try_lock_for(wait).ok_or(StoreError::Busy)?
            }
        };
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

    /// Runs `during` in the writers' turn without its connection (the WAL checkpointer brings
    /// its own), waiting at most `wait` for the turn; `None` when it could not be had.
    pub(crate) fn hold<T>(&self, wait: Duration, during: impl FnOnce() -> T) -> Option<T> {
        let _turn = self.kept.try_lock_for(wait)?;
        Some(during())
    }
}

/// A failed checkout as the store's error.
pub(crate) fn pool_error(e: diesel::r2d2::PoolError) -> StoreError {
    StoreError::Pool(e)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::mpsc;
    use std::thread;

    use super::*;
    use crate::Database;
    use crate::testing::TestDb;

    const WAIT: Duration = Duration::from_secs(5);

    #[test]
    fn a_background_transaction_grows_by_steps_while_no_writer_waits_and_quarters_when_one_has() {
        let writer = SqliteWriter::new(false);
        let caps: Vec<usize> = (0..64).map(|_| writer.background_cap()).collect();
        assert_eq!(caps[..4], [32, 48, 64, 80]);
        assert_eq!(caps[60..], [992, 1_000, 1_000, 1_000]);
        writer.contended.store(true, Ordering::Relaxed);
        assert_eq!(writer.background_cap(), 250);
        writer.contended.store(true, Ordering::Relaxed);
        assert_eq!(writer.background_cap(), 62);
        writer.contended.store(true, Ordering::Relaxed);
        assert_eq!(writer.background_cap(), BACKGROUND_CAP.0);
        writer.contended.store(true, Ordering::Relaxed);
        assert_eq!(writer.background_cap(), BACKGROUND_CAP.0);
    }

    #[test]
    fn a_writer_that_waited_for_the_turn_shrinks_the_next_background_transaction() {
        let test_db = TestDb::sqlite();
        let db = test_db.db();
        let writer = Arc::new(SqliteWriter::new(true));
        for _ in 0..61 {
            writer.background_cap();
        }
        assert_eq!(
            writer.background_cap(),
            BACKGROUND_CAP.1,
            "a quiet job grows to the most"
        );

        // A write that takes the turn at once leaves the job's size alone...
        write(&writer, &db, || ());
        assert_eq!(writer.background_cap(), BACKGROUND_CAP.1);

        // ... one that has to wait for the job's write in flight cuts it.
        let (holding, held) = mpsc::channel();
        let (release, released) = mpsc::channel::<()>();
        let job = {
            let (writer, db) = (Arc::clone(&writer), db.clone());
            thread::spawn(move || {
                write(&writer, &db, || {
                    holding.send(()).expect("the test listens");
                    released.recv().expect("the test releases the turn");
                });
            })
        };
        held.recv().expect("the job holds the turn");
        let request = {
            let (writer, db) = (Arc::clone(&writer), db.clone());
            thread::spawn(move || write(&writer, &db, || ()))
        };
        while !writer.contended.load(Ordering::Relaxed) {
            thread::sleep(Duration::from_millis(1));
        }
        release.send(()).expect("the job listens");
        job.join().expect("the job ends");
        request.join().expect("the request ends");
        assert_eq!(writer.background_cap(), BACKGROUND_CAP.1 / 4);
    }

    /// Runs `body` in the writer's turn, on a connection of `db`.
    fn write(writer: &SqliteWriter, db: &Database, body: impl FnOnce()) {
        writer
            .run(
                WAIT,
                || Ok(db.connection().expect("a connection")),
                |_| body(),
                |()| true,
            )
            .expect("the write has its turn");
    }

    #[test]
    fn a_writer_that_cannot_have_the_turn_within_the_bound_is_busy() {
        let writer = SqliteWriter::new(false);
        let _held = writer.kept.lock();
        let answer = writer.run(
            Duration::from_millis(20),
            || unreachable!("no turn, so no connection"),
            |_| (),
            |()| true,
        );
        assert!(matches!(answer, Err(StoreError::Busy)), "{answer:?}");
        assert!(writer.contended.load(Ordering::Relaxed));
    }
}
