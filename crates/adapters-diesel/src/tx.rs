//! Write and snapshot-read transactions for both backends, and dispatch to the inner connection
//! for the SQL the shared `MultiBackend` cannot express (ON CONFLICT, multi-row VALUES).

use diesel::connection::{AnsiTransactionManager, Connection, TransactionManager};
use diesel::result::Error as DieselError;

use crate::connection::DbConnection;
use crate::error::StoreResult;

/// Runs `step` with the inner connection of either backend; the body is compiled once per
/// backend, so it may use backend-specific query builders.
macro_rules! on_backend {
    ($conn:expr, $c:ident => $body:expr) => {
        match $conn {
            $crate::connection::DbConnection::Postgresql($c) => $body,
            $crate::connection::DbConnection::Sqlite($c) => $body,
        }
    };
}
pub(crate) use on_backend;

/// Runs `step` in one transaction. On SQLite it begins `IMMEDIATE`: a deferred transaction that
/// reads before it writes fails with "database is locked" (busy_timeout does not apply to the
/// upgrade) when another connection wrote in between, so every writer takes the lock up front.
pub(crate) fn write_tx<T>(
    conn: &mut DbConnection,
    step: impl FnOnce(&mut DbConnection) -> StoreResult<T>,
) -> StoreResult<T> {
    let DbConnection::Sqlite(sqlite) = conn else {
        return conn.transaction(step);
    };
    AnsiTransactionManager::begin_transaction_sql(sqlite, "BEGIN IMMEDIATE")?;
    finish(conn, step)
}

/// Runs `step` in one read-only transaction in which every statement sees the same snapshot.
/// PostgreSQL: `REPEATABLE READ, READ ONLY` (the snapshot is taken by the first statement; the
/// default READ COMMITTED would take one per statement). SQLite: a deferred `BEGIN`, whose
/// first read fixes the snapshot (WAL) and which takes no write lock, so writers carry on.
pub(crate) fn read_tx<T>(
    conn: &mut DbConnection,
    step: impl FnOnce(&mut DbConnection) -> StoreResult<T>,
) -> StoreResult<T> {
    match conn {
        DbConnection::Postgresql(pg) => AnsiTransactionManager::begin_transaction_sql(
            pg,
            "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY",
        )?,
        DbConnection::Sqlite(sqlite) => {
            AnsiTransactionManager::begin_transaction_sql(sqlite, "BEGIN DEFERRED")?;
        }
    }
    finish(conn, step)
}

/// Runs `step` inside the transaction just begun on the inner connection, then commits it, or
/// rolls it back and returns the step's error.
fn finish<T>(
    conn: &mut DbConnection,
    step: impl FnOnce(&mut DbConnection) -> StoreResult<T>,
) -> StoreResult<T> {
    // From here the derived transaction manager sees the inner transaction, so nested
    // `transaction` calls inside `step` become savepoints as usual.
    type Manager = <DbConnection as Connection>::TransactionManager;
    match step(conn) {
        Ok(value) => {
            Manager::commit_transaction(conn)?;
            Ok(value)
        }
        Err(error) => match Manager::rollback_transaction(conn) {
            Ok(()) | Err(DieselError::BrokenTransactionManager) => Err(error),
            Err(rollback) => Err(rollback.into()),
        },
    }
}
