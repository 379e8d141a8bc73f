//! SQLite's WAL checkpoints, run by a thread of their own instead of inside someone's commit,
//! and the WAL's restarts, which keep it short.
//!
//! **Why a thread.** By default SQLite checkpoints in the connection whose commit takes the WAL
//! past 1,000 pages: that commit copies the WAL back into the database file and syncs both before
//! it returns. All writes of this process share one connection and one turn
//! ([`crate::sqlite_writer`]), so every writer queued behind that commit waited for the
//! checkpoint too. Under a re-classification job, whose stretches fill the WAL quickly, this is
//! what made another person's single upsert wait 20-30 ms at p99 instead of under 1 ms.
//!
//! **How.** Pooled connections checkpoint only as a backstop
//! ([`BACKSTOP_PAGES`](crate::connection::BACKSTOP_PAGES), in case this thread falls behind);
//! this thread runs a `PASSIVE` checkpoint on its own connection every
//! [`EVERY`]. A passive checkpoint takes no writer lock: writers keep appending to the WAL while
//! it copies, and it copies only what no reader still needs, so it never blocks anyone.
//!
//! **Why restarts.** Copying is not enough to keep the WAL short: SQLite starts writing the WAL
//! from its beginning again only when a write begins just after a checkpoint that copied
//! *everything*, with no reader still in the WAL. Under a steady stream of writes (a long job)
//! and reads (the dashboard's progress poll) that moment never comes: the passive checkpoint
//! always finds newer frames, the WAL grows past the backstop, and from then on *every* commit
//! checkpoints and syncs inside the writer's turn (seen as 4-40 ms writes behind a job). So once
//! the WAL passes [`RESTART_PAGES`], the thread takes the writers' turn for a moment, so that
//! nothing is appended meanwhile, and runs a `RESTART` checkpoint: it copies the few frames the
//! passive one left and waits at most [`READERS_WAIT`] for readers to leave the WAL; the next
//! write then starts the WAL from its beginning. Writers wait for that once per
//! [`RESTART_PAGES`] of WAL instead of in every commit.

use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::Duration;

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::Integer;
use diesel::sqlite::SqliteConnection;

use crate::connection::DbConnection;
use crate::sqlite_writer::SqliteWriter;

/// How often the thread checkpoints.
pub(crate) const EVERY: Duration = Duration::from_millis(200);

/// The WAL size (pages) past which the thread restarts the WAL (64 MiB of 4 KiB pages): a
/// restart makes writers wait a moment, so not too often; a WAL much longer makes reads look
/// through more of it.
pub(crate) const RESTART_PAGES: i32 = 16_384;

/// How long a restart waits for the writers' turn, and for readers to leave the WAL, before it
/// gives up until the next round.
pub(crate) const TURN_WAIT: Duration = Duration::from_millis(50);
pub(crate) const READERS_WAIT: Duration = Duration::from_millis(10);

/// The checkpointing thread; dropping this stops it.
#[derive(Debug)]
pub(crate) struct Checkpointer {
    /// Never sent on: dropping it disconnects the channel, which ends the thread's loop.
    _stop: Sender<()>,
}

impl Checkpointer {
    /// Starts checkpointing on `conn`, a connection of its own (not from the pool); restarts
    /// take `writer`'s turn.
    pub(crate) fn start(conn: DbConnection, writer: Arc<SqliteWriter>) -> std::io::Result<Self> {
        let DbConnection::Sqlite(mut conn) = conn else {
            return Err(std::io::Error::other("checkpoints are SQLite's"));
        };
        // A restart waits this long for readers (the busy handler), in the writers' turn.
        let busy = format!("PRAGMA busy_timeout = {};", READERS_WAIT.as_millis());
        conn.batch_execute(&busy).map_err(std::io::Error::other)?;
        let (stop, stopped) = mpsc::channel::<()>();
        std::thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || {
                // Ends when the sender is dropped (the last `Database` clone is gone).
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(EVERY) {
                    if let Err(e) = round(&mut conn, &writer, RESTART_PAGES) {
                        // The pooled connections' backstop still checkpoints meanwhile.
                        tracing::warn!(error = %e, "the WAL checkpoint failed");
                    }
                }
            })?;
        Ok(Self { _stop: stop })
    }
}

/// What a checkpoint reports: the WAL's length and how much of it is copied, in pages.
#[derive(Debug, QueryableByName)]
struct WalState {
    #[diesel(sql_type = Integer)]
    busy: i32,
    #[diesel(sql_type = Integer)]
    log: i32,
    #[diesel(sql_type = Integer)]
    checkpointed: i32,
}

/// One round: a passive checkpoint, then a restart in the writers' turn if the WAL has grown
/// past `restart_pages` ([`RESTART_PAGES`]). Returns what the last checkpoint found, and
/// whether it was a restart (`None`: the turn could not be had).
fn round(
    conn: &mut SqliteConnection,
    writer: &SqliteWriter,
    restart_pages: i32,
) -> QueryResult<Option<(WalState, bool)>> {
    let passive = checkpoint(conn, "PASSIVE")?;
    if passive.log < restart_pages {
        return Ok(Some((passive, false)));
    }
    writer
        .hold(TURN_WAIT, || {
            checkpoint(conn, "RESTART").map(|state| (state, true))
        })
        .transpose()
}

fn checkpoint(conn: &mut SqliteConnection, mode: &str) -> QueryResult<WalState> {
    let state: WalState =
        diesel::sql_query(format!("PRAGMA wal_checkpoint({mode})")).get_result(conn)?;
    if state.busy != 0 || state.checkpointed < state.log {
        tracing::debug!(
            mode,
            log = state.log,
            checkpointed = state.checkpointed,
            "a reader or writer kept the checkpoint from copying the whole WAL"
        );
    }
    Ok(state)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::thread;

    use diesel::Connection;

    use super::*;
    use crate::testing::TestDb;

    /// A small threshold, so the test writes a few megabytes, not 64.
    const RESTART_AT: i32 = 256;
    /// Rows of 3 KB: about 90 MB of WAL at most, should no round see a restart's effect.
    const MAX_ROWS: usize = 30_000;

    fn open(url: &str) -> SqliteConnection {
        let mut conn = SqliteConnection::establish(url.trim_start_matches("sqlite://"))
            .expect("the test database opens");
        conn.batch_execute(
            "PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; \
             PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0;",
        )
        .expect("pragmas");
        conn
    }

    /// The database's URL, its directory made.
    fn with_directory(test_db: &TestDb) -> String {
        let url = test_db.url().to_owned();
        let path = std::path::Path::new(url.trim_start_matches("sqlite://"));
        std::fs::create_dir_all(path.parent().expect("a directory")).expect("the directory");
        url
    }

    /// A writer that commits small transactions in its turn without pause, and a reader that
    /// reads without pause: the moment SQLite needs to start the WAL again (a write beginning
    /// just after a checkpoint that copied everything, with no reader left in the WAL) hardly
    /// comes by itself. The rounds restart it in the writers' turn, so it stays near the
    /// threshold instead of holding everything written. The writer goes on until a round has
    /// seen that (or [`MAX_ROWS`]): on a loaded machine the rounds come seldom, and a fixed
    /// number of rows could all be written before the round after a restart.
    #[test]
    fn restarts_in_the_writers_turn_keep_the_wal_short_under_steady_reads_and_writes() {
        let test_db = TestDb::sqlite_empty();
        let url = with_directory(&test_db);
        let mut checkpointer = open(&url);
        checkpointer
            .batch_execute(
                "CREATE TABLE pages (id INTEGER PRIMARY KEY, body BLOB NOT NULL); \
                 PRAGMA busy_timeout = 10;",
            )
            .expect("the table");
        let writer = Arc::new(SqliteWriter::new(false));
        let done = Arc::new(AtomicBool::new(false));
        let writing = {
            let (url, writer, done) = (url.clone(), Arc::clone(&writer), Arc::clone(&done));
            thread::spawn(move || {
                let mut conn = open(&url);
                for _ in 0..MAX_ROWS {
                    if done.load(Ordering::Relaxed) {
                        break;
                    }
                    writer
                        .hold(Duration::from_secs(5), || {
                            conn.batch_execute("INSERT INTO pages (body) VALUES (zeroblob(3000))")
                        })
                        .expect("the writer's turn")
                        .expect("the insert");
                }
                done.store(true, Ordering::Relaxed);
            })
        };
        let reading = {
            let (url, done) = (url.clone(), Arc::clone(&done));
            thread::spawn(move || {
                let mut conn = open(&url);
                while !done.load(Ordering::Relaxed) {
                    // A short read, as the service's are (a page or two, not a scan).
                    conn.batch_execute("SELECT max(id) FROM pages")
                        .expect("the read");
                }
            })
        };
        let mut rounds: Vec<(WalState, bool)> = Vec::new();
        while !done.load(Ordering::Relaxed) {
            rounds.extend(round(&mut checkpointer, &writer, RESTART_AT).expect("the round"));
            if started_again(&rounds) > 0 {
                done.store(true, Ordering::Relaxed);
            }
            thread::sleep(Duration::from_millis(5));
        }
        writing.join().expect("the writer ends");
        reading.join().expect("the reader ends");
        assert!(
            started_again(&rounds) > 0,
            "no restart started the WAL again: {rounds:?}"
        );
    }

    /// A restart that copied everything (busy 0) followed by a WAL written from its beginning
    /// again: the next round finds it shorter than the restart left it.
    fn started_again(rounds: &[(WalState, bool)]) -> usize {
        rounds
            .windows(2)
            .filter(|pair| pair[0].1 && pair[0].0.busy == 0 && pair[1].0.log < pair[0].0.log)
            .count()
    }

    #[test]
    fn a_restart_waits_for_the_writers_turn_only_so_long() {
        let test_db = TestDb::sqlite_empty();
        let url = with_directory(&test_db);
        let mut conn = open(&url);
        conn.batch_execute(
            "CREATE TABLE pages (id INTEGER PRIMARY KEY, body BLOB NOT NULL); \
             INSERT INTO pages (body) VALUES (zeroblob(3000));",
        )
        .expect("a page");
        let writer = SqliteWriter::new(false);
        let answer = writer
            .hold(Duration::from_secs(1), || {
                // Held elsewhere: the round copies what it can and leaves the restart.
                round(&mut conn, &writer, 1)
            })
            .expect("the turn");
        assert!(answer.expect("the passive checkpoint").is_none());
    }
}
