//! `backup` and `verify`: a copy taken while writes go on holds a consistent instant (every
//! write that finished before it began, nothing partial) and verifies; the copy is private
//! (0600) and never replaces an existing file, follows a symlink or takes another backup's
//! partial file; `--to` is a plain path; a damaged or foreign file fails `verify`; PostgreSQL is sent to pg_dump.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;

use crate::harness::{TestDb, count, person, run, run_ok};

/// A directory of its own for the backup files, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let dir = std::env::temp_dir().join(format!(
            "discovery-backup-{tag}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn path_arg(p: &Path) -> String {
    p.to_str().unwrap().to_owned()
}

fn rows(report: &Value, table: &str) -> i64 {
    report["tables"][table]
        .as_i64()
        .unwrap_or_else(|| panic!("no count of {table} in {report}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_while_people_sign_up_verifies_and_holds_every_earlier_write() {
    let test_db = TestDb::sqlite();
    let db = test_db.db();
    for n in 0..5 {
        person(&db, n, n % 2 == 0).await;
    }
    let before = count(&db, "users").await;
    // A writer that keeps adding people (each with a profile and its revision) during the copy.
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (db, stop) = (db.clone(), Arc::clone(&stop));
        tokio::spawn(async move {
            let mut n = 100;
            while !stop.load(Ordering::Relaxed) {
                person(&db, n, false).await;
                n += 1;
            }
            n - 100
        })
    };
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let scratch = Scratch::new("live");
    let file = scratch.file("copy.db");
    let report = run_ok(test_db.url(), &["backup", "--to", &path_arg(&file)]).await;
    stop.store(true, Ordering::Relaxed);
    let written_during = writer.await.unwrap();
    assert!(written_during > 0, "the writer ran during the backup");

    assert_eq!(report["to"], path_arg(&file));
    assert!(report["seconds"].as_f64().unwrap() >= 0.0);
    assert_eq!(
        report["bytes"].as_u64().unwrap(),
        std::fs::metadata(&file).unwrap().len()
    );
    let users = rows(&report, "users");
    assert!(
        users >= before,
        "{users} people in the copy, {before} before it began"
    );
    // One instant: the seed writes the person first, then the profile with its first revision
    // in one transaction (affirming records no revision), so no profile lacks its revision.
    assert!(rows(&report, "discovery_profile") <= users);
    assert_eq!(
        rows(&report, "discovery_profile"),
        rows(&report, "profile_revision"),
        "a revision per profile: {report}"
    );
    assert!(
        !scratch.file("copy.db.partial").exists(),
        "no temporary file left"
    );

    let verified = run_ok(test_db.url(), &["verify", &path_arg(&file)]).await;
    assert_eq!(verified["integrity"], "ok");
    assert_eq!(
        verified["tables"], report["tables"],
        "verify counts what backup wrote"
    );
    assert_eq!(verified["pending_migrations"], serde_json::json!([]));
    let newest =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../migrations/sqlite"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .max()
            .unwrap();
    assert_eq!(
        verified["migration_version"],
        newest.split('_').next().unwrap(),
        "the newest migration of the chain"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_never_overwrites_a_file() {
    let test_db = TestDb::sqlite();
    let scratch = Scratch::new("exists");
    let file = scratch.file("taken.db");
    std::fs::write(&file, b"an earlier backup").unwrap();
    let failed = run(test_db.url(), &["backup", "--to", &path_arg(&file)]).await;
    assert!(!failed.success, "{failed:?}");
    assert_eq!(failed.summary["ok"], false);
    assert!(
        failed.summary["error"]
            .as_str()
            .unwrap()
            .contains("already exists"),
        "{failed:?}"
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"an earlier backup");
}

/// Runs `backup --to to` and requires it to fail with an error that says `why`.
async fn refused(test_db: &TestDb, to: &str, why: &str) {
    let failed = run(test_db.url(), &["backup", "--to", to]).await;
    assert!(!failed.success, "{to}: {failed:?}");
    assert_eq!(failed.summary["ok"], false);
    let error = failed.summary["error"].as_str().unwrap();
    assert!(error.contains(why), "{to}: {error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_is_readable_by_its_owner_only() {
    use std::os::unix::fs::PermissionsExt;

    let test_db = TestDb::sqlite();
    person(&test_db.db(), 1, true).await;
    let scratch = Scratch::new("private");
    let file = scratch.file("copy.db");
    run_ok(test_db.url(), &["backup", "--to", &path_arg(&file)]).await;
    // It holds webhook secrets and sessions: 0600 whatever the umask (it was 0644).
    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    assert!(!scratch.file("copy.db.partial").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_never_follows_or_replaces_a_symlink_nor_takes_anothers_partial_file() {
    use std::os::unix::fs::symlink;

    let test_db = TestDb::sqlite();
    let scratch = Scratch::new("links");
    let elsewhere = scratch.file("elsewhere.db");

    // A dangling symlink at `to` (it was replaced by the copy).
    let to = scratch.file("dangling.db");
    symlink(&elsewhere, &to).unwrap();
    refused(&test_db, &path_arg(&to), "already exists").await;
    assert_eq!(
        std::fs::read_link(&to).unwrap(),
        elsewhere,
        "the link stays"
    );
    assert!(!elsewhere.exists(), "nothing written through it");

    // A symlink where the partial file goes.
    let to = scratch.file("linked-partial.db");
    symlink(&elsewhere, scratch.file("linked-partial.db.partial")).unwrap();
    refused(&test_db, &path_arg(&to), "linked-partial.db.partial exists").await;
    assert!(!elsewhere.exists() && !to.exists());

    // Another backup's partial file (it was deleted).
    let to = scratch.file("busy.db");
    let theirs = scratch.file("busy.db.partial");
    std::fs::write(&theirs, b"another backup, still running").unwrap();
    refused(&test_db, &path_arg(&to), "busy.db.partial exists").await;
    assert_eq!(
        std::fs::read(&theirs).unwrap(),
        b"another backup, still running"
    );
    assert!(!to.exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_goes_to_a_plain_path_not_a_sqlite_uri() {
    let test_db = TestDb::sqlite();
    let scratch = Scratch::new("uri");
    let file = scratch.file("copy.db");
    for to in [
        format!("file:{}?mode=ro", path_arg(&file)),
        format!("FILE:{}", path_arg(&file)),
        format!("{}?mode=memory", path_arg(&file)),
        format!("{}#x", path_arg(&file)),
    ] {
        refused(&test_db, &to, "plain file path").await;
    }
    assert_eq!(
        std::fs::read_dir(&scratch.0).unwrap().count(),
        0,
        "nothing written"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_refuses_a_damaged_a_missing_and_a_foreign_file() {
    let test_db = TestDb::sqlite();
    let db = test_db.db();
    for n in 0..40 {
        person(&db, n, false).await;
    }
    let scratch = Scratch::new("damaged");
    let good = scratch.file("good.db");
    run_ok(test_db.url(), &["backup", "--to", &path_arg(&good)]).await;

    // Zeroes over the pages after the first two: the header still opens, the b-trees do not hold.
    let mut bytes = std::fs::read(&good).unwrap();
    let page = 4096.min(bytes.len() / 4);
    let end = bytes.len() - page;
    bytes[2 * page..end].fill(0xA5);
    let damaged = scratch.file("damaged.db");
    std::fs::write(&damaged, &bytes).unwrap();
    let failed = run(test_db.url(), &["verify", &path_arg(&damaged)]).await;
    assert!(!failed.success, "a damaged file verified: {failed:?}");
    assert_eq!(failed.summary["ok"], false);

    let missing = run(
        test_db.url(),
        &["verify", &path_arg(&scratch.file("none.db"))],
    )
    .await;
    assert!(!missing.success, "{missing:?}");
    assert!(!scratch.file("none.db").exists(), "verify created no file");

    // A SQLite database that is not ours: sound, but with no migration history.
    let foreign = scratch.file("foreign.db");
    {
        use diesel::Connection;
        use diesel::connection::SimpleConnection;
        let mut conn = diesel::SqliteConnection::establish(&path_arg(&foreign)).unwrap();
        conn.batch_execute("CREATE TABLE notes (body TEXT)")
            .unwrap();
    }
    let not_ours = run(test_db.url(), &["verify", &path_arg(&foreign)]).await;
    assert!(!not_ours.success, "{not_ours:?}");
    assert!(
        not_ours.summary["error"]
            .as_str()
            .unwrap()
            .contains("not a usable backup"),
        "{not_ours:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_is_backed_up_with_pg_dump() {
    let Some(test_db) = TestDb::postgres() else {
        eprintln!("skipped: TEST_DATABASE_URL is not set");
        return;
    };
    let scratch = Scratch::new("pg");
    let file = scratch.file("pg.db");
    let refused = run(test_db.url(), &["backup", "--to", &path_arg(&file)]).await;
    assert!(!refused.success, "{refused:?}");
    assert!(
        refused.summary["error"]
            .as_str()
            .unwrap()
            .contains("pg_dump"),
        "{refused:?}"
    );
    assert!(!file.exists());
}
