//! The rollup benchmark: seeds 100 people with 1,000,000 task mappings over ~90 days, then times
//! the 14-day `daily_minutes` rollup and the upsert of one new mapping through the adapter (the
//! async port on a tokio runtime) beside the same SQL run raw on a connection from the same
//! pool (and that raw SQL again behind the same `spawn_blocking` hop, to show what the hop alone
//! costs), and prints the adapter/raw ratios. SQLite always (a temporary file); PostgreSQL too when
//! `BENCH_DATABASE_URL` or `TEST_DATABASE_URL` names a server (a database of its own, dropped
//! afterwards; both come from `adapters_diesel::testing`). `BENCH_ROWS=20000` makes a quick smoke run.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_debug_implementations
)]

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use adapters_diesel::testing::TestDb;
use adapters_diesel::{
    Backend, Database, DbConfig, DbConnection, DieselTaskMappingRepository, DieselUserRepository,
};
use criterion::Criterion;
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Date, Nullable, Text, Timestamp};
use domain::account::{Email, LoginIdentity, TimeZone};
use domain::foundation::Foundation;
use domain::ids::UserId;
use domain::integration::{ExternalTaskId, Minutes, Tags, TaskMappingInput, Window};
use domain::ports::{TaskMappingRepository, UserRepository};
use time::macros::datetime;
use time::{OffsetDateTime, PrimitiveDateTime};

const USERS: usize = 100;
const SPAN_DAYS: i64 = 90;
/// The end of the seeded span and of the benchmarked window.
const END: OffsetDateTime = datetime!(2026-11-22 00:00 UTC);

fn main() {
    let rows: usize = std::env::var("BENCH_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let output = criterion_dir();
    let mut criterion = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .output_directory(&output)
        .configure_from_args();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();

    let sqlite = TestDb::sqlite_with(config);
    run_backend(
        &mut criterion,
        &runtime,
        &sqlite.db(),
        "sqlite",
        rows,
        &output,
    );
    drop(sqlite);

    let pg_url = ["BENCH_DATABASE_URL", "TEST_DATABASE_URL"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()));
    match pg_url {
        Some(url) => {
            let pg = TestDb::postgres_at(&url, config);
            run_backend(
                &mut criterion,
                &runtime,
                &pg.db(),
                "postgres",
                rows,
                &output,
            );
        }
        None => eprintln!("PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL"),
    }
    criterion.final_summary();
}

fn run_backend(
    c: &mut Criterion,
    rt: &tokio::runtime::Runtime,
    db: &Database,
    name: &str,
    rows: usize,
    output: &Path,
) {
    let started = std::time::Instant::now();
    let users = seed(rt, db, rows);
    eprintln!(
        "{name}: seeded {rows} task mappings for {USERS} people in {:.1?}",
        started.elapsed()
    );
    let user = users[0];
    let repo = DieselTaskMappingRepository::new(db.clone());
    let window = Window::ending_at(END, 14).unwrap();
    let raw_rollup = raw_rollup_sql(db.backend());

    // Both sides must agree before their speed is compared.
    let adapter_days = rt
        .block_on(repo.daily_minutes(user, &window, &TimeZone::utc()))
        .unwrap();
    let raw_rows = raw_rollup_rows(db, raw_rollup, user, &window);
    let adapter_total: i64 = adapter_days.iter().map(|d| d.minutes.total()).sum();
    let raw_total: i64 = raw_rows.iter().map(|r| r.minutes.unwrap_or(0)).sum();
    assert_eq!(adapter_total, raw_total, "adapter and raw SQL disagree");
    eprintln!(
        "{name}: the 14-day window holds {raw_total} minutes in {} (date, foundation) groups",
        raw_rows.len()
    );

    let rollup_group = format!("{name}_rollup_14d");
    {
        let mut group = c.benchmark_group(&rollup_group);
        group.bench_function("adapter", |b| {
            b.iter(|| {
                black_box(
                    rt.block_on(repo.daily_minutes(user, &window, &TimeZone::utc()))
                        .unwrap(),
                )
            });
        });
        group.bench_function("raw_sql", |b| {
            b.iter(|| black_box(raw_rollup_rows(db, raw_rollup, user, &window)));
        });
        // The raw SQL behind the same hop to the blocking pool the adapter takes: what is left
        // between this and `adapter` is the adapter's own work.
        group.bench_function("raw_sql_spawn_blocking", |b| {
            b.iter(|| {
                let db = db.clone();
                let rows =
                    rt.block_on(rt.spawn_blocking(move || {
                        raw_rollup_rows(&db, raw_rollup, user, &window).len()
                    }));
                black_box(rows.unwrap())
            });
        });
        group.finish();
    }

    let upsert_group = format!("{name}_upsert_one");
    let counter = AtomicU64::new(0);
    let next_id = |side: &str| format!("bench-{side}-{}", counter.fetch_add(1, Ordering::Relaxed));
    {
        let mut group = c.benchmark_group(&upsert_group);
        group.bench_function("adapter", |b| {
            b.iter(|| {
                let input = mapping_input(&next_id("adapter"));
                black_box(rt.block_on(repo.upsert(user, &input, END)).unwrap())
            });
        });
        group.bench_function("raw_sql", |b| {
            b.iter(|| raw_insert(db, user, &next_id("raw")));
        });
        group.bench_function("raw_sql_spawn_blocking", |b| {
            b.iter(|| {
                let (db, id) = (db.clone(), next_id("raw-blocking"));
                rt.block_on(rt.spawn_blocking(move || raw_insert(&db, user, &id)))
                    .unwrap();
            });
        });
        group.finish();
    }

    report_ratio(output, &rollup_group, 1.2, started);
    report_ratio(output, &upsert_group, 1.3, started);
}

/// Prints the adapter/raw ratio of the times criterion recorded in this run (a filter
/// on the command line may have skipped a group, leaving an older estimate behind).
fn report_ratio(output: &Path, group: &str, target: f64, run_started: std::time::Instant) {
    let since = std::time::SystemTime::now() - run_started.elapsed();
    let mean = |side: &str| -> Option<f64> {
        let path = output
            .join(group)
            .join(side)
            .join("new")
            .join("estimates.json");
        if std::fs::metadata(&path).ok()?.modified().ok()? < since {
            return None;
        }
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
        // The slope (what criterion prints) when it sampled linearly, else the mean.
        json["slope"]["point_estimate"]
            .as_f64()
            .or_else(|| json["mean"]["point_estimate"].as_f64())
    };
    if let (Some(adapter), Some(raw)) = (mean("adapter"), mean("raw_sql")) {
        let ratio = adapter / raw;
        let verdict = if ratio <= target { "within" } else { "OVER" };
        let hop = mean("raw_sql_spawn_blocking")
            .map(|hop| {
                format!(
                    "; raw behind spawn_blocking {:.1} µs = {:.2}x",
                    hop / 1_000.0,
                    hop / raw
                )
            })
            .unwrap_or_default();
        eprintln!(
            "RATIO {group}: adapter {:.1} µs / raw {:.1} µs = {ratio:.2}x ({verdict} the {target}x target){hop}",
            adapter / 1_000.0,
            raw / 1_000.0
        );
    }
}

fn criterion_dir() -> PathBuf {
    std::env::var_os("CRITERION_HOME").map_or_else(
        || {
            std::env::var_os("CARGO_TARGET_DIR").map_or_else(
                || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/criterion"),
                |t| PathBuf::from(t).join("criterion"),
            )
        },
        PathBuf::from,
    )
}

fn mapping_input(external: &str) -> TaskMappingInput {
    TaskMappingInput::new(
        ExternalTaskId::new(external).unwrap(),
        None,
        Some(Foundation::Vocation),
        Tags::default(),
        Minutes::new(25).unwrap(),
        END - time::Duration::hours(3),
    )
    .unwrap()
}

fn pdt(at: OffsetDateTime) -> PrimitiveDateTime {
    PrimitiveDateTime::new(at.date(), at.time())
}

#[derive(QueryableByName)]
struct DayRow {
    #[diesel(sql_type = Date)]
    #[allow(dead_code)]
    day: time::Date,
    #[diesel(sql_type = Text)]
    #[allow(dead_code)]
    foundation: String,
    #[diesel(sql_type = Nullable<BigInt>)]
    minutes: Option<i64>,
}

/// The aggregate the adapter runs, written by hand for each backend.
fn raw_rollup_sql(backend: Backend) -> &'static str {
    match backend {
        Backend::Postgres => {
            "SELECT CAST(occurred_at AS DATE) AS day, foundation, SUM(minutes) AS minutes FROM task_mapping \
             WHERE user_id = $1 AND occurred_at > $2 AND occurred_at <= $3 GROUP BY 1, 2"
        }
        Backend::Sqlite => {
            "SELECT date(occurred_at) AS day, foundation, SUM(minutes) AS minutes FROM task_mapping \
             WHERE user_id = ? AND occurred_at > ? AND occurred_at <= ? GROUP BY 1, 2"
        }
    }
}

fn raw_rollup_rows(db: &Database, sql: &str, user: UserId, window: &Window) -> Vec<DayRow> {
    let mut conn = db.connection().unwrap();
    diesel::sql_query(sql)
        .bind::<Text, _>(user.to_string())
        .bind::<Timestamp, _>(pdt(window.from))
        .bind::<Timestamp, _>(pdt(window.to))
        .load::<DayRow>(&mut *conn)
        .unwrap()
}

fn raw_insert(db: &Database, user: UserId, external: &str) {
    let sql = match db.backend() {
        Backend::Postgres => {
            "INSERT INTO task_mapping (id, user_id, external_task_id, task_label, foundation, mapped_by, \
             minutes, occurred_at, created_at, updated_at) VALUES ($1, $2, $3, NULL, 'vocation', 'client', 25, $4, $5, $5)"
        }
        Backend::Sqlite => {
            "INSERT INTO task_mapping (id, user_id, external_task_id, task_label, foundation, mapped_by, \
             minutes, occurred_at, created_at, updated_at) VALUES (?, ?, ?, NULL, 'vocation', 'client', 25, ?, ?, ?)"
        }
    };
    let mut conn = db.connection().unwrap();
    let now = pdt(END);
    let query = diesel::sql_query(sql)
        .bind::<Text, _>(uuid::Uuid::now_v7().to_string())
        .bind::<Text, _>(user.to_string())
        .bind::<Text, _>(external)
        .bind::<Timestamp, _>(pdt(END - time::Duration::hours(3)))
        .bind::<Timestamp, _>(now);
    let inserted = match db.backend() {
        // PostgreSQL reuses $5; SQLite's positional `?` needs the value twice.
        Backend::Postgres => query.execute(&mut *conn),
        Backend::Sqlite => query.bind::<Timestamp, _>(now).execute(&mut *conn),
    };
    assert_eq!(inserted.unwrap(), 1);
}

/// 100 people through the adapter, then their task mappings in one set-based INSERT per backend
/// (generate_series on PostgreSQL, a recursive CTE on SQLite), inside one transaction.
fn seed(rt: &tokio::runtime::Runtime, db: &Database, rows: usize) -> Vec<UserId> {
    let users_repo = DieselUserRepository::new(db.clone());
    let users: Vec<UserId> = (0..USERS)
        .map(|n| {
            let identity = LoginIdentity {
                issuer: "https://id.example.org".into(),
                subject: format!("bench-{n}"),
                email: Email::new(&format!("bench{n}@example.org")).unwrap(),
                name: None,
            };
            rt.block_on(users_repo.upsert_login(&identity, END))
                .unwrap()
                .id
        })
        .collect();
    let per_user = (rows / USERS).max(1);
    // Spread evenly over the span, newest at END.
    let step = (SPAN_DAYS * 86_400 / i64::try_from(per_user).unwrap()).max(1);
    let end = END.unix_timestamp();
    let mut conn = db.connection().unwrap();
    let sql = match &mut *conn {
        DbConnection::Postgresql(_) => format!(
            "BEGIN;
             INSERT INTO task_mapping (id, user_id, external_task_id, task_label, foundation, mapped_by,
                                       minutes, occurred_at, created_at, updated_at)
             SELECT gen_random_uuid()::text, u.id, 'seed-' || g, NULL,
                    (ARRAY['love','strength','mission','vocation','short_term','long_term'])[1 + g % 6],
                    'client',
                    (g * 37) % 241,
                    to_timestamp({end} - g * {step}) AT TIME ZONE 'UTC',
                    to_timestamp({end}) AT TIME ZONE 'UTC', to_timestamp({end}) AT TIME ZONE 'UTC'
             FROM users u CROSS JOIN generate_series(0, {last}) AS g
             ORDER BY u.id, g;
             COMMIT;
             ANALYZE task_mapping;",
            last = per_user - 1
        ),
        DbConnection::Sqlite(_) => format!(
            "BEGIN IMMEDIATE;
             WITH RECURSIVE g(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM g WHERE n < {last})
             INSERT INTO task_mapping (id, user_id, external_task_id, task_label, foundation, mapped_by,
                                       minutes, occurred_at, created_at, updated_at)
             SELECT lower(printf('%s-%s-7%s-8%s-%s', hex(randomblob(4)), hex(randomblob(2)),
                                 substr(hex(randomblob(2)), 2), substr(hex(randomblob(2)), 2), hex(randomblob(6)))),
                    u.id, 'seed-' || g.n, NULL,
                    CASE g.n % 6 WHEN 0 THEN 'love' WHEN 1 THEN 'strength' WHEN 2 THEN 'mission'
                                 WHEN 3 THEN 'vocation' WHEN 4 THEN 'short_term' ELSE 'long_term' END,
                    'client',
                    (g.n * 37) % 241,
                    strftime('%Y-%m-%d %H:%M:%S', {end} - g.n * {step}, 'unixepoch'),
                    strftime('%Y-%m-%d %H:%M:%S', {end}, 'unixepoch'),
                    strftime('%Y-%m-%d %H:%M:%S', {end}, 'unixepoch')
             FROM users u CROSS JOIN g;
             COMMIT;
             ANALYZE;",
            last = per_user - 1
        ),
    };
    conn.batch_execute(&sql).unwrap();
    users
}

/// The pool the benchmark has always used: 4 connections (the tests' helpers default to 8).
fn config(url: &str) -> DbConfig {
    let mut config = DbConfig::new(url);
    config.max_connections = 4;
    config
}
