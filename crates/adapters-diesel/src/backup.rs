//! Backups of a SQLite database while the service writes to it, and the check of a backup file:
//! what `discovery-batch backup` and `verify` run. PostgreSQL is backed up with its own tools
//! (`pg_dump`; docs/operations.md).
//!
//! The copy is taken with `VACUUM INTO`, not the page-by-page backup API: it reads one snapshot
//! inside a single read transaction, which in WAL mode never blocks the writers and is never
//! restarted by them (the backup API starts over whenever another connection writes, so under a
//! steady load it may never finish), and it needs no unsafe code.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use diesel::connection::SimpleConnection;
use diesel::migration::MigrationSource;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use diesel::sqlite::{Sqlite, SqliteConnection};

use crate::connection::Target;
use crate::error::DbError;
use crate::migrations::SQLITE;
use partial::Partial;

mod partial;

/// How long the copy waits for a lock another connection holds (as the service's own
/// connections do).
const BUSY_TIMEOUT_MS: u32 = 5000;

/// Rows per table, by table name.
pub type TableRows = BTreeMap<String, i64>;

/// What a backup wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backup {
    /// The file, complete and synced to disk.
    pub file: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// Rows per table of the copy: the database as it was at one instant.
    pub tables: TableRows,
}

/// What [`verify`] found in a backup file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    /// `PRAGMA integrity_check`: `["ok"]` for a sound file, else each problem it names.
    pub integrity: Vec<String>,
    /// The newest migration the file has.
    pub migration_version: Option<String>,
    /// Migrations of this build the file does not have yet (applied when the service starts on it).
    pub pending: Vec<String>,
    /// Migrations the file has that this build does not know (it was made by a newer version).
    pub unknown: Vec<String>,
    pub tables: TableRows,
}

impl Verification {
    /// Sound and usable by this build: integrity `ok`, a migration history, none unknown.
    #[must_use]
    pub fn is_sound(&self) -> bool {
        self.integrity == ["ok"] && self.migration_version.is_some() && self.unknown.is_empty()
    }
}

/// Copies the SQLite database of `database_url` into `to`, a new file, while others keep
/// writing; returns its size and rows per table. The copy holds everything, secrets included,
/// so it is readable by its owner only (0600) from its first byte: it is written into a new
/// file `<to>.partial` created exclusively (`O_EXCL`, which never follows a symlink), synced,
/// and only then linked to `to`, which fails rather than replace anything there (a dangling
/// symlink too). `to` is never a partial file, and no file but the backup's own is touched.
///
/// # Errors
/// [`DbError::NotSqlite`] for a PostgreSQL URL, [`DbError::NotAPlainPath`] for a `to` that is a
/// `file:` URI or has a query (`?`, `#`), [`DbError::BackupExists`] when anything is at `to`,
/// [`DbError::BackupInProgress`] when `<to>.partial` exists (it is left alone),
/// [`DbError::NoSuchFile`] when the database file is not there, [`DbError::File`] or
/// [`DbError::Query`] when the copy fails (nothing is left at `to`).
pub fn backup(database_url: &str, to: &Path) -> Result<Backup, DbError> {
    let Target::Sqlite(source) = Target::parse(database_url)? else {
        return Err(DbError::NotSqlite);
    };
    plain_path(to)?;
    // `symlink_metadata`, not `exists`: a dangling symlink is something at `to` too.
    if std::fs::symlink_metadata(to).is_ok() {
        return Err(DbError::BackupExists(to.display().to_string()));
    }
    if !Path::new(&source).is_file() {
        return Err(DbError::NoSuchFile(source));
    }
    let partial = Partial::create(to)?;
    let copied = copy_into(&source, &partial.path)
        .and_then(|()| partial.still_ours())
        .and_then(|()| {
            let tables = table_rows(&mut open(&partial.path, false)?)?;
            sync(&partial.path)?;
            partial.publish(to)?;
            Ok(tables)
        });
    let tables = match copied {
        Ok(tables) => tables,
        Err(e) => {
            partial.remove();
            return Err(e);
        }
    };
    if let Some(dir) = to.parent().filter(|d| !d.as_os_str().is_empty()) {
        // The new name itself is durable only once the directory is synced.
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| file_error(dir, e))?;
    }
    let bytes = std::fs::metadata(to).map_err(|e| file_error(to, e))?.len();
    Ok(Backup {
        file: to.to_path_buf(),
        bytes,
        tables,
    })
}

/// Refuses a `to` SQLite would read as something other than a file name: a `file:` URI (its
/// query could ask for another mode or VFS), or a path with `?` or `#` that looks like one.
fn plain_path(to: &Path) -> Result<(), DbError> {
    let refused = || DbError::NotAPlainPath(to.display().to_string());
    // The path reaches SQLite as text: one that is not UTF-8 would name another file.
    let text = to.to_str().ok_or_else(refused)?;
    let uri = text
        .get(..5)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("file:"));
    if text.is_empty() || uri || text.contains(['?', '#']) || text.ends_with('/') {
        return Err(refused());
    }
    Ok(())
}

/// Checks a backup file, read-only: its integrity, its migrations against this build's chain,
/// and rows per table.
///
/// # Errors
/// [`DbError::NoSuchFile`], or [`DbError::Query`] when it is not a SQLite database or cannot be
/// read.
pub fn verify(file: &Path) -> Result<Verification, DbError> {
    if !file.is_file() {
        return Err(DbError::NoSuchFile(file.display().to_string()));
    }
    let mut conn = open(file, true)?;
    let integrity = diesel::sql_query("PRAGMA integrity_check")
        .load::<IntegrityLine>(&mut conn)
        .map_err(DbError::Query)?
        .into_iter()
        .map(|l| l.integrity_check)
        .collect();
    let has_history = diesel::sql_query(
        "SELECT COUNT(*) AS n FROM sqlite_master \
         WHERE type = 'table' AND name = '__diesel_schema_migrations'",
    )
    .get_result::<Count>(&mut conn)
    .map_err(DbError::Query)?
    .n > 0;
    let applied: Vec<String> = if has_history {
        diesel::sql_query("SELECT version AS name FROM __diesel_schema_migrations ORDER BY version")
            .load::<Name>(&mut conn)
            .map_err(DbError::Query)?
            .into_iter()
            .map(|n| n.name)
            .collect()
    } else {
        Vec::new()
    };
    let chain = chain_versions()?;
    Ok(Verification {
        integrity,
        migration_version: applied.last().cloned(),
        pending: chain
            .iter()
            .filter(|v| !applied.contains(v))
            .cloned()
            .collect(),
        unknown: applied
            .iter()
            .filter(|v| !chain.contains(v))
            .cloned()
            .collect(),
        tables: table_rows(&mut conn)?,
    })
}

/// The versions of this build's SQLite chain, oldest first.
fn chain_versions() -> Result<Vec<String>, DbError> {
    let migrations = MigrationSource::<Sqlite>::migrations(&SQLITE)
        .map_err(|e| DbError::Migration(e.to_string()))?;
    let mut versions: Vec<String> = migrations
        .iter()
        .map(|m| m.name().version().to_string())
        .collect();
    versions.sort();
    Ok(versions)
}

fn copy_into(source: &str, partial: &Path) -> Result<(), DbError> {
    let mut conn = open(Path::new(source), false)?;
    // A bound parameter: the path is never spliced into the SQL.
    diesel::sql_query("VACUUM INTO ?")
        .bind::<Text, _>(partial.to_string_lossy().into_owned())
        .execute(&mut conn)
        .map_err(DbError::Query)?;
    Ok(())
}

/// A plain connection to `path` (not the service's pool: no migrations, no checkpointer).
/// `read_only` opens it so that nothing, not even a journal, is written.
fn open(path: &Path, read_only: bool) -> Result<SqliteConnection, DbError> {
    let location = if read_only {
        format!("file:{}?mode=ro", uri_path(path))
    } else {
        path.to_string_lossy().into_owned()
    };
    let mut conn = SqliteConnection::establish(&location).map_err(DbError::Connect)?;
    conn.batch_execute(&format!("PRAGMA busy_timeout = {BUSY_TIMEOUT_MS};"))
        .map_err(DbError::Query)?;
    Ok(conn)
}

/// `path` as the path of a `file:` URI: the characters a URI gives a meaning escaped.
fn uri_path(path: &Path) -> String {
    path.to_string_lossy()
        .chars()
        .map(|c| match c {
            '%' => "%25".to_owned(),
            '?' => "%3f".to_owned(),
            '#' => "%23".to_owned(),
            c => c.to_string(),
        })
        .collect()
}

fn table_rows(conn: &mut SqliteConnection) -> Result<TableRows, DbError> {
    let names = diesel::sql_query(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
         ORDER BY name",
    )
    .load::<Name>(conn)
    .map_err(DbError::Query)?;
    names
        .into_iter()
        .map(|Name { name }| {
            // The names come from the file's own catalogue; quoted as identifiers.
            let sql = format!(
                "SELECT COUNT(*) AS n FROM \"{}\"",
                name.replace('"', "\"\"")
            );
            let n = diesel::sql_query(sql)
                .get_result::<Count>(conn)
                .map_err(DbError::Query)?
                .n;
            Ok((name, n))
        })
        .collect()
}

fn sync(path: &Path) -> Result<(), DbError> {
    File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(|e| file_error(path, e))
}

fn file_error(path: &Path, source: std::io::Error) -> DbError {
    DbError::File {
        path: path.display().to_string(),
        source,
    }
}

#[derive(QueryableByName)]
struct IntegrityLine {
    #[diesel(sql_type = Text)]
    integrity_check: String,
}

#[derive(QueryableByName)]
struct Name {
    #[diesel(sql_type = Text)]
    name: String,
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}
