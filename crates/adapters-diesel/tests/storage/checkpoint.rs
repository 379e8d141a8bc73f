//! SQLite's WAL is checkpointed by the database's own thread, not inside a writer's commit
//! (see `checkpointer` in the crate): what a commit leaves in the WAL reaches the database
//! file shortly after, with no further write by anyone.

use std::time::{Duration, Instant};

use adapters_diesel::testing::TestDb;

use crate::harness::execute;

fn file_len(path: &str) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_commit_reaches_the_database_file_without_another_write() {
    let guard = TestDb::sqlite();
    let db = guard.db();
    let path = guard
        .url()
        .trim_start_matches("sqlite://")
        .trim_start_matches("sqlite:")
        .to_owned();
    // About 4 MB in one commit: about 1,000 pages, far below the commit's own backstop
    // (16,000 pages), so only the checkpoint thread can copy them into the file.
    execute(
        &db,
        "CREATE TABLE filler (x TEXT); \
         INSERT INTO filler WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c \
         WHERE n < 4000) SELECT printf('%.1000c', 'x') FROM c;"
            .to_owned(),
    )
    .await;
    let before = file_len(&path);
    assert!(
        file_len(&format!("{path}-wal")) > 3_000_000,
        "the commit went to the WAL"
    );
    let deadline = Instant::now() + Duration::from_secs(5);
    while file_len(&path) < before + 3_000_000 {
        assert!(
            Instant::now() < deadline,
            "the database file stayed at {} bytes: nothing checkpointed the WAL",
            file_len(&path)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
