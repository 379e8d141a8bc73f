//! A dropped database stops its pool's upkeep threads at once (`database.rs`,
//! `upkeep_threads`): r2d2's own thread pool waits for its next reaping, up to 30 s, so every
//! closed database left three threads behind for that long. Alone in its test binary, since it
//! counts the threads of the whole process.

#![allow(clippy::expect_used, clippy::print_stderr)]

use std::time::{Duration, Instant};

use adapters_diesel::testing::TestDb;

/// The process's threads named as the pool's upkeep threads are.
fn upkeep_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("Linux's /proc")
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.starts_with("r2d2-worker"))
        .count()
}

/// Waits (at most 5 s) until the count is `expected`; how long that took.
fn settles_at(expected: usize, what: &str) -> Duration {
    let started = Instant::now();
    while upkeep_threads() != expected {
        // r2d2's default pool took until its next reaping, 30 s, to end them.
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{what}: {} upkeep threads, not {expected}, after {:?}",
            upkeep_threads(),
            started.elapsed()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    started.elapsed()
}

#[test]
fn a_dropped_database_leaves_none_of_its_pools_threads_behind() {
    let before = upkeep_threads();
    let db = TestDb::sqlite();
    // A thread names itself as it starts, so the count may lag the open a moment.
    settles_at(before + 3, "the open pool's three threads");
    drop(db);
    let took = settles_at(before, "after the drop");
    eprintln!("the pool's threads ended {took:?} after the drop");
}
