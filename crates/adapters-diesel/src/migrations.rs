//! The embedded migration chains (`migrations/{sqlite,postgres}` at the workspace root) and
//! running them against either backend.

use diesel::RunQueryDsl;
use diesel::connection::SimpleConnection;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

use crate::connection::DbConnection;
use crate::error::DbError;

/// The SQLite chain.
pub const SQLITE: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
/// The PostgreSQL chain: the same directory names as [`SQLITE`].
pub const POSTGRES: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");

/// Serialises migration runs of several API instances or batch hosts starting at once against
/// one PostgreSQL (an arbitrary constant; SQLite's file lock does this there).
const PG_MIGRATION_LOCK: i64 = 0x6469_7363_6f76_6572; // "discover"

fn chain_for(conn: &DbConnection) -> EmbeddedMigrations {
    match conn {
        DbConnection::Postgresql(_) => POSTGRES,
        DbConnection::Sqlite(_) => SQLITE,
    }
}

/// Applies every pending migration; returns the versions applied (empty when up to date).
///
/// # Errors
/// [`DbError::Migration`] when a migration fails (that migration is rolled back).
pub fn run_migrations(conn: &mut DbConnection) -> Result<Vec<String>, DbError> {
    let chain = chain_for(conn);
    with_lock(conn, |conn| {
        conn.run_pending_migrations(chain)
            .map(|versions| versions.iter().map(ToString::to_string).collect())
            .map_err(|e| DbError::Migration(e.to_string()))
    })
}

/// Reverts every applied migration, newest first; returns the versions reverted.
///
/// # Errors
/// [`DbError::Migration`] when a down migration fails.
pub fn revert_all_migrations(conn: &mut DbConnection) -> Result<Vec<String>, DbError> {
    let chain = chain_for(conn);
    with_lock(conn, |conn| {
        conn.revert_all_migrations(chain)
            .map(|versions| versions.iter().map(ToString::to_string).collect())
            .map_err(|e| DbError::Migration(e.to_string()))
    })
}

fn with_lock<T>(
    conn: &mut DbConnection,
    f: impl FnOnce(&mut DbConnection) -> Result<T, DbError>,
) -> Result<T, DbError> {
    let DbConnection::Postgresql(pg) = conn else {
        let result = f(conn);
        let restored = restore_sqlite_connection(conn, result.is_err());
        // The migration's own error says more than a failed clean-up after it.
        let value = result?;
        restored?;
        return Ok(value);
    };
    diesel::sql_query(format!("SELECT pg_advisory_lock({PG_MIGRATION_LOCK})"))
        .execute(pg)
        .map_err(DbError::Query)?;
    let result = f(conn);
    if let DbConnection::Postgresql(pg) = conn {
        // A session lock would also go with the connection; releasing it keeps the pool's
        // connection reusable by a later run.
        diesel::sql_query(format!("SELECT pg_advisory_unlock({PG_MIGRATION_LOCK})"))
            .execute(pg)
            .map_err(DbError::Query)?;
    }
    result
}

/// A SQLite migration that runs outside diesel's transaction (008 rebuilds `users`) turns
/// foreign keys off and opens its own transaction; if it fails half-way, both would stay so on
/// this connection, which may be a pooled one. Rolls back what is open and turns them on again.
fn restore_sqlite_connection(conn: &mut DbConnection, failed: bool) -> Result<(), DbError> {
    if failed {
        // "no transaction is active" when the failed migration had rolled back already.
        let _ = conn.batch_execute("ROLLBACK");
    }
    conn.batch_execute("PRAGMA foreign_keys = ON")
        .map_err(DbError::Query)
}
