//! Scale (issue 22, point 5), PostgreSQL only, run by hand: the real service in-process over a
//! fresh database holding 10,000 people and 10,000,000 task mappings, one heavy person owning
//! 1,000,000 of them, each figure beside a baseline measured in the same run:
//!
//! - **work patterns**: p50 and p90 of sequential `GET /integration/work-patterns?days=14` (and
//!   `days=365`) for the heavy person, against the same aggregate run directly on the database
//!   as a prepared statement (per UTC day and foundation, the NULL group being the unmapped
//!   time), sampled in turn after a warm-up; the service's totals must equal the raw ones.
//!   Target: p50 within 1.5x. For comparison, the same SQL planned at every run (`sql_query`):
//!   a cached statement may settle on PostgreSQL's generic plan, which can differ; both plans
//!   are printed on stderr (`EXPLAIN (ANALYZE, BUFFERS)`).
//! - **weekly trends**: p50 of `GET /integration/work-patterns/weekly?weeks=104` for the heavy
//!   person in Europe/Berlin against the same weeks grouped by PostgreSQL itself (`AT TIME ZONE`,
//!   `date_trunc('week', …)`), week by week equal. Target: p50 within 1.5x.
//! - **a rule change**: `POST /integration/rules` mapping the heavy person's 100,000 unmapped
//!   "Deep work" entries to `vocation`, timed end to end as the rule write's answer plus its
//!   background re-classification until `GET /integration/reclassification` is idle, and
//!   checked with SQL (exactly those rows, `mapped_by = 'rule'`); then its `DELETE`, which maps
//!   them back. Target: within 10 s. For comparison, the set-based `UPDATE` of the same rows
//!   (and its revert) run directly, and the job's reads and writes replayed alone.
//! - **an import**: the real `discovery-sync toggl --csv FILE --utc-offset +00:00` of a
//!   1,000,000-row detailed report against the service, for a fresh person, against a raw
//!   batched `INSERT` of the same rows (same columns, 1,000 rows per statement, one transaction
//!   per statement) for another fresh person. Target: at least 0.5x the raw rate.
//!
//! It also reports the seed time and the database size per million entries. The report (stdout)
//! comes at the end; progress, plans and, for a missed target, more `EXPLAIN` go to stderr. The
//! database is dropped at the end (also on a panic; after a kill, drop the `discovery_test_*`
//! database by hand). People: the heavy one, the others seeded by SQL, and two more signed in
//! for the import and its baseline.
//!
//! Needs `BENCH_DATABASE_URL` or `TEST_DATABASE_URL` (a URL allowed to `CREATE DATABASE`);
//! without one it says so and exits 0. Knobs: `SCALE_PEOPLE` (10,000), `SCALE_ROWS`
//! (10,000,000), `SCALE_HEAVY` (1,000,000, of `SCALE_ROWS`), `SCALE_IMPORT` (1,000,000),
//! `SCALE_SAMPLES` (50 requests per work-pattern window, at least 30). Small run:
//! `SCALE_ROWS=200000 SCALE_HEAVY=50000 SCALE_IMPORT=50000 cargo bench -p sync --bench scale`.

// The 80-line limit is for the service's code (src/); a test or bench here is one scenario,
// read top to bottom, and splitting it would hide its steps.
#![allow(clippy::too_many_lines)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::cast_precision_loss,
    missing_debug_implementations
)]

#[path = "scale/import.rs"]
mod import;
#[path = "scale/patterns.rs"]
mod patterns;
#[path = "scale/rules.rs"]
mod rules;
#[path = "scale/seed.rs"]
mod seed;
#[path = "scale/service.rs"]
mod service;
#[path = "scale/setup.rs"]
mod setup;
#[path = "scale/weekly.rs"]
mod weekly;

use std::time::Duration;

use adapters_diesel::testing::TestDb;
use adapters_diesel::{Database, DbConnection};
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use time::{OffsetDateTime, PrimitiveDateTime, UtcOffset};

use service::Service;

const FOUNDATIONS: [&str; 6] = [
    "love",
    "strength",
    "mission",
    "vocation",
    "short_term",
    "long_term",
];

/// The heavy person's rules before the measured change: each rule-mapped seed entry meets
/// exactly one of them (and the foundation it gives), so adding the "deep work" rule after them
/// changes the "Deep work" entries and nothing else.
const STANDING_RULES: [(&str, &str, &str); 3] = [
    ("tag", "project:website", "mission"),
    ("label_equals", "gym", "strength"),
    ("label_contains", "review", "long_term"),
];

const SPAN_SECONDS: i64 = 365 * 86_400;

fn main() {
    let Some(admin_url) = setup::admin_url("scale") else {
        return;
    };
    let plan = Plan::from_env();
    let rt = setup::runtime();
    let test_db = setup::database(&admin_url);
    let report = run(&rt, &test_db, &plan);
    println!("\n{}", report.join("\n"));
    // Drops the database (FORCE ends the service's connections).
    drop(test_db);
    rt.shutdown_timeout(Duration::from_secs(5));
}

fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// What to run, from the environment.
struct Plan {
    people: i64,
    rows: i64,
    heavy: i64,
    import: usize,
    samples: usize,
}

impl Plan {
    fn from_env() -> Self {
        let plan = Self {
            people: env_number("SCALE_PEOPLE", 10_000),
            rows: env_number("SCALE_ROWS", 10_000_000),
            heavy: env_number("SCALE_HEAVY", 1_000_000),
            import: env_number("SCALE_IMPORT", 1_000_000),
            samples: env_number("SCALE_SAMPLES", 50).max(30),
        };
        assert!(plan.people >= 2, "SCALE_PEOPLE: at least 2");
        assert!(
            plan.heavy >= 20 && plan.heavy < plan.rows,
            "SCALE_HEAVY: at least 20 and below SCALE_ROWS"
        );
        assert!(plan.import >= 1, "SCALE_IMPORT: at least 1");
        plan
    }

    /// The heavy person's unmapped "Deep work" entries: heavy index `h` with `h % 20` in {0, 1}
    /// (100,000 of 1,000,000).
    fn deep_work(&self) -> i64 {
        2 * (self.heavy / 20) + (self.heavy % 20).min(2)
    }
}

fn run(rt: &tokio::runtime::Runtime, test_db: &TestDb, plan: &Plan) -> Vec<String> {
    let db = test_db.db();
    let mut report = Vec::new();
    let server = rt.block_on(Service::start(test_db.url()));
    let heavy = rt.block_on(server.person("heavy@example.org"));
    for (kind, pattern, foundation) in STANDING_RULES {
        rt.block_on(server.add_rule(&heavy.key, kind, pattern, foundation));
    }
    let version = text(&db, "SELECT version() AS v");
    report.push(format!(
        "scale: {} people, {} task mappings ({} of them the heavy person's, {} of those unmapped \
         \"Deep work\"), {} Toggl rows imported; {}",
        thousands(plan.people),
        thousands(plan.rows),
        thousands(plan.heavy),
        thousands(plan.deep_work()),
        thousands(plan.import as i64),
        version.split(" on ").next().unwrap_or(&version)
    ));

    seed::seed(&db, plan, &heavy.id, &mut report);
    checkpoint(&db);

    for days in [14, 365] {
        patterns::work_patterns(rt, &server, &db, &heavy, days, plan.samples, &mut report);
    }
    weekly::weekly(rt, &server, &db, &heavy, plan.samples, &mut report);
    rules::rule_change(rt, &server, &db, &heavy, plan, &mut report);
    import::import(rt, &server, &db, plan, &mut report);
    report
}

/// `higher_is_better`: throughput (ratio = value / base, target a floor) or latency (a ceiling).
fn ratio_line(
    label: &str,
    value: f64,
    base: f64,
    unit: &str,
    target: f64,
    higher_is_better: bool,
) -> String {
    let ratio = value / base;
    let met = if higher_is_better {
        ratio >= target
    } else {
        ratio <= target
    };
    let bound = if higher_is_better { ">=" } else { "<=" };
    format!(
        "RATIO {label}: {value:.2} / {base:.2} {unit} = {ratio:.2}x (target {bound} {target}x: {})",
        if met { "met" } else { "NOT met" }
    )
}

fn pg(conn: &mut DbConnection) -> &mut PgConnection {
    match conn {
        DbConnection::Postgresql(pg) => pg,
        DbConnection::Sqlite(_) => panic!("the scale benchmark runs on PostgreSQL only"),
    }
}

fn pdt(at: OffsetDateTime) -> PrimitiveDateTime {
    let at = at.to_offset(UtcOffset::UTC);
    PrimitiveDateTime::new(at.date(), at.time())
}

fn execute(db: &Database, sql: &str) {
    let mut conn = db.connection().unwrap();
    pg(&mut conn).batch_execute(sql).unwrap();
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

fn count(db: &Database, sql: &str) -> i64 {
    let mut conn = db.connection().unwrap();
    diesel::sql_query(sql)
        .get_result::<Count>(pg(&mut conn))
        .unwrap()
        .n
}

fn text(db: &Database, sql: &str) -> String {
    #[derive(QueryableByName)]
    struct One {
        #[diesel(sql_type = Text)]
        v: String,
    }
    let mut conn = db.connection().unwrap();
    diesel::sql_query(sql)
        .get_result::<One>(pg(&mut conn))
        .unwrap()
        .v
}

/// Writes out the seeding's dirty pages before measuring (best effort: `CHECKPOINT` needs a
/// superuser or `pg_checkpoint`).
fn checkpoint(db: &Database) {
    let mut conn = db.connection().unwrap();
    if let Err(e) = pg(&mut conn).batch_execute("CHECKPOINT") {
        eprintln!("no CHECKPOINT before measuring ({e}); expect more noise");
    }
}

/// Prints `EXPLAIN (ANALYZE, BUFFERS)` of `sql` on stderr: where a missed target's time goes.
fn explain(db: &Database, sql: &str) {
    let mut conn = db.connection().unwrap();
    explain_on(pg(&mut conn), sql);
}

/// [`explain`] on a given connection (one holding a prepared statement).
fn explain_on(conn: &mut PgConnection, sql: &str) {
    #[derive(QueryableByName)]
    struct Line {
        #[diesel(sql_type = Text)]
        #[diesel(column_name = "QUERY PLAN")]
        line: String,
    }
    let plan: Vec<Line> = diesel::sql_query(format!("EXPLAIN (ANALYZE, BUFFERS) {sql}"))
        .load(conn)
        .unwrap();
    eprintln!("EXPLAIN (ANALYZE, BUFFERS) {sql}");
    for l in plan {
        eprintln!("  {}", l.line);
    }
}

/// 1234567 as "1,234,567".
fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}
