//! The check-in run benchmark (PostgreSQL): seeds a fresh database with `BENCH_USERS` (100,000)
//! people with affirmed profiles, all due (half with a 40-day-old check-in, a third with stored
//! preferences, a fifth with ten task mappings in the last 14 days), all with SQL
//! `generate_series`; then times the release `discovery-batch checkins` against it, and beside
//! it the baseline: a plain INSERT of the same number of check-in rows, 1,000 per statement,
//! into an identically seeded copy. Prints both times and their ratio, then the time of a second
//! run (nothing due). The server comes from `BENCH_DATABASE_URL` or `TEST_DATABASE_URL`.
//!
//! `cargo bench -p batch --bench checkins` (`just bench-checkins`). Under `cargo test` it does
//! nothing: it is a measurement, never a timed test.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_debug_implementations
)]

use std::process::Command;
use std::time::{Duration, Instant};

use adapters_diesel::Database;
use adapters_diesel::testing::{TestDb, config};

mod common;

use common::{checkpoint, execute, id, seed};

/// The run must stay below this for 100,000 people.
const TARGET: Duration = Duration::from_secs(60);

fn main() {
    let Some((admin_url, users)) = common::setup("checkins", 100_000) else {
        return;
    };

    let batch_db = TestDb::postgres_at(&admin_url, config);
    let baseline_db = TestDb::postgres_at(&admin_url, config);
    for db in [&batch_db, &baseline_db] {
        let started = Instant::now();
        seed(&db.db(), users);
        eprintln!("seeded {users} people in {:.1} s", secs(started.elapsed()));
    }

    checkpoint(&baseline_db.db());
    let baseline = baseline(&baseline_db.db(), users);
    drop(baseline_db);
    checkpoint(&batch_db.db());
    let (run, created) = run_batch(batch_db.url());
    assert_eq!(created, u64::from(users), "every seeded person was due");
    let (again, created_again) = run_batch(batch_db.url());
    assert_eq!(created_again, 0, "a second run writes nothing");

    println!("discovery-batch checkins, {users} people with affirmed profiles, PostgreSQL");
    let rows = [
        (format!("batch run, all due ({created} written)"), secs(run)),
        (
            format!("baseline: INSERT of {users} rows, 1,000 a statement"),
            secs(baseline),
        ),
        ("second batch run, nothing due".to_owned(), secs(again)),
    ];
    for (label, seconds) in rows {
        println!("  {label:<52} {seconds:>7.2} s");
    }
    println!(
        "  {:<52} {:>7.2}x",
        "ratio batch / baseline",
        secs(run) / secs(baseline)
    );
    if users >= 100_000 {
        let verdict = if run <= TARGET { "met" } else { "MISSED" };
        println!("  target <= {} s: {verdict}", TARGET.as_secs());
    }
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// Runs the release binary once; returns the wall time (start-up and connecting included) and
/// how many check-ins it reports.
fn run_batch(url: &str) -> (Duration, u64) {
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_discovery-batch"))
        .arg("checkins")
        .env("DATABASE_URL", url)
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    let elapsed = started.elapsed();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    (
        elapsed,
        summary["report"]["created"].as_u64().unwrap_or_default(),
    )
}

/// A plain batched INSERT of `users` check-in rows of the batch's size (1,000 rows a statement,
/// each its own transaction, against the same indexes and foreign key); returns the time.
fn baseline(db: &Database, users: u32) -> Duration {
    let (user_id, checkin_id) = (id("g", "1"), id("g", "5"));
    let started = Instant::now();
    let mut from = 1;
    while from <= users {
        let to = (from + 999).min(users);
        execute(
            db,
            &format!(
                r#"INSERT INTO coaching_checkin (id, user_id, message, quoted_goals, observation,
                       origin, created_at)
                   SELECT {checkin_id}, {user_id},
                       E'Time for your check-in. Here are the goals you named, in your own words:\n\n'
                       || E'“Open the workshop on Saturdays.”\n“Run a repair school with two teachers.”\n\n'
                       || 'Does this direction still hold for you?',
                       '["Open the workshop on Saturdays.","Run a repair school with two teachers."]',
                       CASE WHEN g % 5 = 0 THEN 'Over the last 14 days most of your logged time went to Vocation (40%), then Mission (25%).' END,
                       'batch', now() AT TIME ZONE 'UTC'
                   FROM generate_series({from}, {to}) AS g"#
            ),
        );
        from = to + 1;
    }
    started.elapsed()
}
