//! SQLite's WAL checkpoints, run by a thread of their own instead of inside someone's commit.
//!
//! **Why.** By default SQLite checkpoints in the connection whose commit takes the WAL past
//! 1,000 pages: that commit copies the WAL back into the database file and syncs both before
//! it returns. All writes of this process share one connection and one turn
//! ([`crate::sqlite_writer`]), so every writer queued behind that commit waited for the
//! checkpoint too. Under a re-classification job, whose stretches fill the WAL quickly, this is
//! what made another person's single upsert wait 20-30 ms at p99 instead of under 1 ms.
//!
//! **How.** Pooled connections checkpoint only as a backstop ([`BACKSTOP_PAGES`], in case this
//! thread falls behind); this thread runs a `PASSIVE` checkpoint on its own connection every
//! [`EVERY`]. A passive checkpoint takes no writer lock: writers keep appending to the WAL while
//! it copies, and it copies only what no reader still needs, so it never blocks anyone.

use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::Duration;

use diesel::connection::SimpleConnection;

use crate::connection::DbConnection;

/// How often the thread checkpoints.
pub(crate) const EVERY: Duration = Duration::from_millis(200);

/// The WAL size (pages) at which a committing connection checkpoints after all: far above what
/// the thread lets the WAL reach, so it happens only if the thread stops keeping up.
pub(crate) const BACKSTOP_PAGES: u32 = 16_000;

/// The checkpointing thread; dropping this stops it.
#[derive(Debug)]
pub(crate) struct Checkpointer {
    /// Never sent on: dropping it disconnects the channel, which ends the thread's loop.
    _stop: Sender<()>,
}

impl Checkpointer {
    /// Starts checkpointing on `conn`, a connection of its own (not from the pool).
    pub(crate) fn start(mut conn: DbConnection) -> std::io::Result<Self> {
        let (stop, stopped) = mpsc::channel::<()>();
        std::thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || {
                // Ends when the sender is dropped (the last `Database` clone is gone).
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(EVERY) {
                    if let Err(e) = conn.batch_execute("PRAGMA wal_checkpoint(PASSIVE);") {
                        // The pooled connections' backstop still checkpoints meanwhile.
                        tracing::warn!(error = %e, "the WAL checkpoint failed");
                    }
                }
            })?;
        Ok(Self { _stop: stop })
    }
}
