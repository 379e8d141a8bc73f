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

use adapters_diesel::testing::{TestDb, config};
use adapters_diesel::{Database, DbConnection};
use diesel::connection::SimpleConnection;

/// The run must stay below this for 100,000 people.
const TARGET: Duration = Duration::from_secs(60);

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        eprintln!("checkins benchmark: run it with `cargo bench -p batch --bench checkins`");
        return;
    }
    let Some(admin_url) = ["BENCH_DATABASE_URL", "TEST_DATABASE_URL"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
    else {
        eprintln!("checkins benchmark skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL");
        return;
    };
    let users: u32 = std::env::var("BENCH_USERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);

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

fn execute(db: &Database, sql: &str) {
    let mut conn = db.connection().unwrap();
    let conn: &mut DbConnection = &mut conn;
    conn.batch_execute(sql).unwrap();
}

/// Writes out the seeding's dirty pages before a measurement, so that neither pays for them
/// (best effort: `CHECKPOINT` needs a superuser or `pg_checkpoint`).
fn checkpoint(db: &Database) {
    let mut conn = db.connection().unwrap();
    let conn: &mut DbConnection = &mut conn;
    if let Err(e) = conn.batch_execute("CHECKPOINT") {
        eprintln!("no CHECKPOINT before measuring ({e}); expect more noise");
    }
}

/// The id of seeded row `i` of a kind (`kind` tells kinds apart), UUID-shaped and ordered by `i`.
fn id(i: &str, kind: &str) -> String {
    format!("format('%s-0000-7000-8000-{kind:0>12}', lpad(to_hex({i}), 8, '0'))")
}

fn seed(db: &Database, users: u32) {
    let (user_id, profile_id, checkin_id) = (id("i", "1"), id("i", "2"), id("i", "3"));
    let sql = format!(
        r#"
        CREATE TEMPORARY TABLE seq AS SELECT i FROM generate_series(1, {users}) AS i;
        INSERT INTO users (id, email, name, created_at, last_login_at, oidc_issuer, oidc_subject)
        SELECT {user_id}, 'person' || i || '@example.org', 'Person ' || i,
               now() AT TIME ZONE 'UTC' - interval '60 days', NULL,
               'https://id.example.org', 'subject-' || i
        FROM seq;
        INSERT INTO discovery_profile (id, user_id, enneagram_type, love_summary,
            strength_summary, mission_summary, vocation_summary, overlap_narrative, locked,
            affirmed_at, version, created_at, updated_at, near_term_goal_summary,
            long_term_goal_summary)
        SELECT {profile_id}, {user_id}, 1 + i % 9,
               'Building things with my hands, and the people I build them with.',
               'Patience, and explaining how things work.',
               'Repairing instead of replacing, so that things last.',
               'Carpentry and teaching it.',
               'A repair workshop that teaches as it mends.',
               TRUE, now() AT TIME ZONE 'UTC' - interval '50 days', 2,
               now() AT TIME ZONE 'UTC' - interval '55 days',
               now() AT TIME ZONE 'UTC' - interval '50 days',
               CASE WHEN i % 4 <> 0 THEN 'Open the workshop on Saturdays.' END,
               CASE WHEN i % 2 = 0 THEN 'Run a repair school with two teachers.' END
        FROM seq;
        INSERT INTO coaching_preferences (user_id, coaching_frequency, coaching_style,
            misalignment_threshold, friction_tolerance, prefer_questions_over_directives,
            time_of_day_preference, source, updated_at)
        SELECT {user_id}, (ARRAY['weekly', 'biweekly', 'monthly'])[1 + i % 3],
               (ARRAY['direct', 'warm', 'reflective'])[1 + i % 3], 0.25, 'medium', i % 2 = 0,
               'any', 'override', now() AT TIME ZONE 'UTC' - interval '45 days'
        FROM seq WHERE i % 3 = 0;
        INSERT INTO coaching_checkin (id, user_id, message, quoted_goals, observation, origin,
            created_at)
        SELECT {checkin_id}, {user_id}, 'An earlier check-in.', '["Open the workshop"]', NULL,
               'batch', now() AT TIME ZONE 'UTC' - interval '40 days'
        FROM seq WHERE i % 2 = 1;
        INSERT INTO task_mapping (id, user_id, external_task_id, task_label, foundation, minutes,
            occurred_at, created_at, updated_at)
        SELECT format('%s-%s-7000-8000-000000000004', lpad(to_hex(i), 8, '0'),
                      lpad(to_hex(j), 4, '0')),
               {user_id}, 'task-' || j, 'Logged work',
               (ARRAY['love', 'strength', 'mission', 'vocation', 'short_term', 'long_term'])
                   [1 + (i + j) % 6],
               15 * (1 + j % 4), now() AT TIME ZONE 'UTC' - j * interval '1 day 1 hour',
               now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
        FROM seq, generate_series(1, 10) AS j WHERE i % 5 = 0;
        DROP TABLE seq;
        "#
    );
    execute(db, &sql);
    // As a live database would be: statistics gathered, visibility map set.
    execute(db, "VACUUM ANALYZE");
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
