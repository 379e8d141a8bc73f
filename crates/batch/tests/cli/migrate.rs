//! `migrate`: on an empty database it applies the whole chain and says so; a second run (or a
//! second host at the same moment) applies nothing and succeeds.

use adapters_diesel::Database;
use adapters_diesel::testing::config;
use serde_json::Value;

use crate::harness::{Run, TestDb, batch, count, run_ok};

/// The number of migrations in the chain of `backend` (the directories under `migrations/`).
fn chain_length(backend: &str) -> usize {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../migrations")
        .join(backend);
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().is_dir())
        .count()
}

fn applied(report: &Value) -> Vec<String> {
    report["applied_now"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

async fn migrate_twice(test_db: &TestDb, backend: &str) {
    let first = run_ok(test_db.url(), &["migrate"]).await;
    assert_eq!(first["backend"], backend);
    let versions = applied(&first);
    assert_eq!(versions.len(), chain_length(backend), "{first}");
    let mut sorted = versions.clone();
    sorted.sort();
    assert_eq!(versions, sorted, "applied in order");

    let second = run_ok(test_db.url(), &["migrate"]).await;
    assert_eq!(second["backend"], backend);
    assert!(applied(&second).is_empty(), "{second}");

    let url = test_db.url().to_owned();
    let db = tokio::task::spawn_blocking(move || Database::connect(&config(&url)))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        count(&db, "coaching_checkin").await,
        0,
        "the schema is there"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migrate_on_an_empty_database_then_again_on_sqlite() {
    migrate_twice(&TestDb::sqlite_empty(), "sqlite").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migrate_on_an_empty_database_then_again_on_postgres() {
    let Some(test_db) = TestDb::postgres_empty() else {
        eprintln!("skipped: TEST_DATABASE_URL is not set");
        return;
    };
    migrate_twice(&test_db, "postgres").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hosts_migrating_one_empty_postgres_apply_the_chain_once() {
    let Some(test_db) = TestDb::postgres_empty() else {
        eprintln!("skipped: TEST_DATABASE_URL is not set");
        return;
    };
    let a = batch(test_db.url(), &["migrate"]).spawn().unwrap();
    let b = batch(test_db.url(), &["migrate"]).spawn().unwrap();
    let runs = tokio::task::spawn_blocking(move || {
        [a, b].map(|child| Run::from(child.wait_with_output().unwrap()))
    })
    .await
    .unwrap();
    let mut all = Vec::new();
    for run in &runs {
        assert!(run.success, "{run:?}");
        all.extend(applied(&run.summary["report"]));
    }
    all.sort();
    let before = all.len();
    all.dedup();
    assert_eq!(before, all.len(), "no migration applied twice");
    assert_eq!(all.len(), chain_length("postgres"));
}
