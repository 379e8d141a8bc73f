//! What the batch benchmarks share: the seeding of a PostgreSQL database with people whose
//! profiles are affirmed and due for a check-in, and its helpers.

// Each benchmark uses its own part of this module.
#![allow(dead_code)]

use adapters_diesel::{Database, DbConnection};
use diesel::connection::SimpleConnection;

/// The PostgreSQL server to seed (`BENCH_DATABASE_URL`, else `TEST_DATABASE_URL`) and the number
/// of people (`BENCH_USERS`, else `default_users`); `None`, said on stderr, when this is not a
/// `cargo bench` run or no server is named.
pub fn setup(name: &str, default_users: u32) -> Option<(String, u32)> {
    if !std::env::args().any(|a| a == "--bench") {
        eprintln!("{name} benchmark: run it with `cargo bench -p batch --bench {name}`");
        return None;
    }
    let Some(admin_url) = ["BENCH_DATABASE_URL", "TEST_DATABASE_URL"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
    else {
        eprintln!("{name} benchmark skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL");
        return None;
    };
    let users = std::env::var("BENCH_USERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default_users);
    Some((admin_url, users))
}

pub fn execute(db: &Database, sql: &str) {
    let mut conn = db.connection().unwrap();
    let conn: &mut DbConnection = &mut conn;
    conn.batch_execute(sql).unwrap();
}

/// Writes out the seeding's dirty pages before a measurement, so that neither pays for them
/// (best effort: `CHECKPOINT` needs a superuser or `pg_checkpoint`).
pub fn checkpoint(db: &Database) {
    let mut conn = db.connection().unwrap();
    let conn: &mut DbConnection = &mut conn;
    if let Err(e) = conn.batch_execute("CHECKPOINT") {
        eprintln!("no CHECKPOINT before measuring ({e}); expect more noise");
    }
}

/// The id of seeded row `i` of a kind (`kind` tells kinds apart), UUID-shaped and ordered by `i`.
pub fn id(i: &str, kind: &str) -> String {
    format!("format('%s-0000-7000-8000-{kind:0>12}', lpad(to_hex({i}), 8, '0'))")
}

pub fn seed(db: &Database, users: u32) {
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
        INSERT INTO task_mapping (id, user_id, external_task_id, task_label, foundation, mapped_by, minutes,
            occurred_at, created_at, updated_at)
        SELECT format('%s-%s-7000-8000-000000000004', lpad(to_hex(i), 8, '0'),
                      lpad(to_hex(j), 4, '0')),
               {user_id}, 'task-' || j, 'Logged work',
               (ARRAY['love', 'strength', 'mission', 'vocation', 'short_term', 'long_term'])
                   [1 + (i + j) % 6],
               'client', 15 * (1 + j % 4), now() AT TIME ZONE 'UTC' - j * interval '1 day 1 hour',
               now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
        FROM seq, generate_series(1, 10) AS j WHERE i % 5 = 0;
        DROP TABLE seq;
        "#
    );
    execute(db, &sql);
    // As a live database would be: statistics gathered, visibility map set.
    execute(db, "VACUUM ANALYZE");
}
