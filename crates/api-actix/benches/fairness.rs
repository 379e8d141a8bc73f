//! Fairness between people (issue 43, "Done when"), on SQLite and (when `BENCH_DATABASE_URL` or
//! `TEST_DATABASE_URL` names a server) PostgreSQL: while one person (Ada) sends
//! 1,000-entry batches from 16 connections without pause, another (Bob) makes one-row writes,
//! one after another, and each is timed. Measured in the same run, each on a fresh database:
//!
//! 1. **the service**: the release `discovery-api` (its default 10 database connections, the
//!    entries limit off so Ada is held back by nothing but the writer's turns), Ada through
//!    `POST /integration/task-mappings/batch`, Bob through `POST /integration/task-mappings`:
//!    Bob's p50 and p99 first with Ada idle, then under her load. Target: p99 under load at
//!    most 100 ms.
//! 2. **the raw database doing the same work**: 16 threads each inserting 1,000 rows a
//!    transaction, and Bob's one-row insert in a transaction of its own, straight on
//!    connections with the service's settings (no HTTP, no turns). Its p99 under load is what
//!    the database alone makes a one-row writer wait; the line gives the service's p99 as a
//!    ratio of it.
//!
//! `BENCH_WRITES` (default 300) of Bob's writes each time. The report (stdout) comes at the
//! end. Run: `cargo bench -p api-actix --bench fairness`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::cast_precision_loss,
    missing_debug_implementations
)]

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use adapters_diesel::testing::TestDb;
use adapters_diesel::{Database, DbConfig, DbConnection};
use diesel::connection::SimpleConnection;
use serde_json::json;
use support::{Person, Server};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// Ada's connections, and the entries of each of her batches.
const LOADERS: usize = 16;
const BATCH: usize = 1_000;
const TARGET_P99_MS: f64 = 100.0;

fn main() {
    let writes: usize = std::env::var("BENCH_WRITES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut report = Vec::new();
    run_backend(&rt, "sqlite", writes, TestDb::sqlite, &mut report);
    match support::postgres_server() {
        Some(url) => run_backend(
            &rt,
            "postgres",
            writes,
            || TestDb::postgres_at(&url, |u| DbConfig::new(u)),
            &mut report,
        ),
        None => eprintln!("PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL"),
    }
    println!("\n{}", report.join("\n"));
}

fn run_backend(
    rt: &tokio::runtime::Runtime,
    backend: &str,
    writes: usize,
    fresh: impl Fn() -> TestDb,
    report: &mut Vec<String>,
) {
    eprintln!("{backend}: the service");
    let db = fresh();
    let service = through_the_service(rt, db.url(), writes);
    drop(db);
    eprintln!("{backend}: the raw database");
    let db = fresh();
    let raw = straight_on_the_database(rt, db.url(), writes);
    drop(db);
    let met = if service.loaded.p99 <= TARGET_P99_MS {
        "met"
    } else {
        "NOT met"
    };
    report.push(format!(
        "{backend}: Bob's one-row write, p50/p99 ms: service idle {:.1}/{:.1}, service under \
         Ada's load {:.1}/{:.1} ({} of Bob's answered 503), raw database idle {:.1}/{:.1}, raw \
         under the same load {:.1}/{:.1}; p99 under load {:.2}x the raw database's; target \
         p99 <= {TARGET_P99_MS} ms: {met}. Ada meanwhile: {} batches stored by the service \
         ({} answered 503 busy), {} by the raw database",
        service.idle.p50,
        service.idle.p99,
        service.loaded.p50,
        service.loaded.p99,
        service.loaded.refused,
        raw.idle.p50,
        raw.idle.p99,
        raw.loaded.p50,
        raw.loaded.p99,
        service.loaded.p99 / raw.loaded.p99,
        service.batches,
        service.busy,
        raw.batches,
    ));
}

/// Bob's latencies, in milliseconds.
struct Stats {
    p50: f64,
    p99: f64,
    refused: usize,
}

fn stats(mut millis: Vec<f64>, refused: usize) -> Stats {
    millis.sort_by(f64::total_cmp);
    let at = |q: f64| millis[((millis.len() - 1) as f64 * q).round() as usize];
    Stats {
        p50: at(0.5),
        p99: at(0.99),
        refused,
    }
}

/// Bob's figures idle and under load, and Ada's batches stored (and refused busy) meanwhile.
struct Run {
    idle: Stats,
    loaded: Stats,
    batches: usize,
    busy: usize,
}

fn through_the_service(rt: &tokio::runtime::Runtime, url: &str, writes: usize) -> Run {
    let server = Server::start_with(url, 10, &[("RATE_LIMIT_ENTRIES_PER_MINUTE", "0")]);
    let ada = rt.block_on(server.person("ada@example.org"));
    let bob = rt.block_on(server.person("bob@example.org"));
    let client = reqwest::Client::new();
    let idle = rt.block_on(bob_over_http(&client, &server, &bob, "idle", writes));
    let stop = Arc::new(AtomicBool::new(false));
    let (stored, busy) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let loaders: Vec<_> = (0..LOADERS)
        .map(|loader| {
            let (client, url, key) = (client.clone(), server.url(BATCH_PATH), ada.key.clone());
            let (stop, stored, busy) = (stop.clone(), stored.clone(), busy.clone());
            rt.spawn(async move {
                let mut round = 0;
                while !stop.load(Ordering::Relaxed) {
                    let items: Vec<_> = (0..BATCH)
                        .map(|i| item(&format!("ada:{loader}:{round}:{i}")))
                        .collect();
                    let answer = client
                        .post(&url)
                        .header("X-API-Key", &key)
                        .json(&json!({ "items": items }))
                        .send()
                        .await
                        .unwrap();
                    match answer.status().as_u16() {
                        200 => stored.fetch_add(1, Ordering::Relaxed),
                        503 => busy.fetch_add(1, Ordering::Relaxed),
                        other => panic!("Ada's batch answered {other}"),
                    };
                    round += 1;
                }
            })
        })
        .collect();
    // Every loader has a batch in flight before Bob starts.
    std::thread::sleep(Duration::from_millis(500));
    let loaded = rt.block_on(bob_over_http(&client, &server, &bob, "loaded", writes));
    stop.store(true, Ordering::Relaxed);
    for loader in loaders {
        rt.block_on(loader).unwrap();
    }
    Run {
        idle,
        loaded,
        batches: stored.load(Ordering::Relaxed),
        busy: busy.load(Ordering::Relaxed),
    }
}

const BATCH_PATH: &str = "/integration/task-mappings/batch";

fn item(id: &str) -> serde_json::Value {
    json!({
        "external_task_id": id,
        "task_label": "Load",
        "foundation": "vocation",
        "minutes": 5,
        "occurred_at": OffsetDateTime::now_utc().replace_nanosecond(0).unwrap().format(&Rfc3339).unwrap(),
    })
}

/// Bob's `writes` one-row writes, one after another, each timed; a 503 counts as refused.
async fn bob_over_http(
    client: &reqwest::Client,
    server: &Server,
    bob: &Person,
    phase: &str,
    writes: usize,
) -> Stats {
    let url = server.url("/integration/task-mappings");
    let mut millis = Vec::with_capacity(writes);
    let mut refused = 0;
    for i in 0..writes {
        let started = Instant::now();
        let answer = client
            .post(&url)
            .header("X-API-Key", &bob.key)
            .json(&item(&format!("bob:{phase}:{i}")))
            .send()
            .await
            .unwrap();
        millis.push(started.elapsed().as_secs_f64() * 1_000.0);
        match answer.status().as_u16() {
            200 | 201 => {}
            503 => refused += 1,
            other => panic!("Bob's write answered {other}"),
        }
    }
    stats(millis, refused)
}

fn straight_on_the_database(rt: &tokio::runtime::Runtime, url: &str, writes: usize) -> Run {
    let mut config = DbConfig::new(url);
    config.max_connections = u32::try_from(LOADERS + 2).unwrap();
    let database = Database::connect(&config).unwrap();
    let ada = support::person_in(rt, &database, "ada");
    let bob = support::person_in(rt, &database, "bob");
    let idle = bob_straight(&database, &bob, "idle", writes);
    let stop = Arc::new(AtomicBool::new(false));
    let stored = Arc::new(AtomicUsize::new(0));
    let loaders: Vec<_> = (0..LOADERS)
        .map(|loader| {
            let (database, ada) = (database.clone(), ada.clone());
            let (stop, stored) = (stop.clone(), stored.clone());
            std::thread::spawn(move || {
                let mut conn = database.connection().unwrap();
                let mut round = 0;
                while !stop.load(Ordering::Relaxed) {
                    let ids: Vec<String> = (0..BATCH)
                        .map(|i| format!("ada:{loader}:{round}:{i}"))
                        .collect();
                    in_a_transaction(&mut conn, &insert_sql(&ada, &ids));
                    stored.fetch_add(1, Ordering::Relaxed);
                    round += 1;
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let loaded = bob_straight(&database, &bob, "loaded", writes);
    stop.store(true, Ordering::Relaxed);
    for loader in loaders {
        loader.join().unwrap();
    }
    Run {
        idle,
        loaded,
        batches: stored.load(Ordering::Relaxed),
        busy: 0,
    }
}

/// Bob's one-row inserts straight on a connection of his own, each timed.
fn bob_straight(database: &Database, bob: &str, phase: &str, writes: usize) -> Stats {
    let mut conn = database.connection().unwrap();
    let millis = (0..writes)
        .map(|i| {
            let sql = insert_sql(bob, &[format!("bob:{phase}:{i}")]);
            let started = Instant::now();
            in_a_transaction(&mut conn, &sql);
            started.elapsed().as_secs_f64() * 1_000.0
        })
        .collect();
    stats(millis, 0)
}

/// One transaction around `sql`: `BEGIN IMMEDIATE` on SQLite, as the service's writes take it.
fn in_a_transaction(conn: &mut DbConnection, sql: &str) {
    let begin = match conn {
        DbConnection::Sqlite(_) => "BEGIN IMMEDIATE",
        DbConnection::Postgresql(_) => "BEGIN",
    };
    conn.batch_execute(&format!("{begin}; {sql}; COMMIT"))
        .unwrap();
}

/// A multi-row insert of `ids` for `user`, as the service stores a mapping with a foundation.
fn insert_sql(user: &str, ids: &[String]) -> String {
    let at = "2026-12-01 10:00:00";
    let rows: Vec<String> = ids
        .iter()
        .map(|id| {
            format!(
                "('{}', '{user}', '{id}', 'Load', 'vocation', 5, '{at}', '{at}', '{at}', '[]', 'client')",
                uuid::Uuid::now_v7()
            )
        })
        .collect();
    format!(
        "INSERT INTO task_mapping (id, user_id, external_task_id, task_label, foundation, \
         minutes, occurred_at, created_at, updated_at, tags, mapped_by) VALUES {}",
        rows.join(", ")
    )
}
