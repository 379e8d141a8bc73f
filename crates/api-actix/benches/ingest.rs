//! Bulk ingest, the path the importers stand on: `POST /integration/task-mappings/batch` with
//! 100,000 entries in batches of 1,000, one after another, against two baselines measured in
//! the same run, each round on a fresh database:
//!
//! - **the native floor**: the same rows upserted straight into the same schema with prepared
//!   statements, one transaction per batch of 1,000, on a connection with the service's own
//!   settings (no HTTP, no JSON, no validation), two ways, the faster being the floor: a
//!   statement per row, and multi-row statements of 500 rows. Target: the route at least 0.7x
//!   of it, on both backends. The rows are new, so
//!   `INSERT ... ON CONFLICT (user_id, external_task_id) DO NOTHING` does all an upsert does;
//!   diesel caches the one-row statement (it does not cache `DO UPDATE`).
//! - **the peer** (SQLite only, when `PEER_AW_SERVER` names its binary): ActivityWatch's
//!   aw-server-rust, release, commit 59eaae3 (`benches/peer/build-aw-server.sh` builds it),
//!   on a fresh database file, taking the same entries as events through its bulk insert
//!   (`POST /api/0/buckets/{id}/events` with 1,000 events a request). Target: at least 0.5x.
//!
//! Every figure is rows per second; each line gives the median of the rounds and the ratio of
//! the medians. `BENCH_ROWS` (default 100,000), `BENCH_BATCH` (1,000), `BENCH_ROUNDS` (5);
//! PostgreSQL too when `BENCH_DATABASE_URL` or `TEST_DATABASE_URL` names a server.
//! `BENCH_RULES=N` also runs the route with the foundation left to N rules (the importers'
//! case); `BENCH_AGAIN=1` posts every batch a second time (an import run twice, every entry
//! known). Run: `cargo bench -p api-actix --bench ingest`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::cast_precision_loss,
    missing_debug_implementations
)]

mod support;

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use adapters_diesel::schema::task_mapping;
use adapters_diesel::testing::TestDb;
use adapters_diesel::{DbConfig, DbConnection};
use diesel::prelude::*;
use serde_json::{Value, json};
use support::Server;
use support::tempfile_dir::TempDir;
use time::format_description::well_known::Rfc3339;
use time::{OffsetDateTime, PrimitiveDateTime};

const FOUNDATIONS: [&str; 6] = [
    "love",
    "strength",
    "mission",
    "vocation",
    "short_term",
    "long_term",
];

fn main() {
    let plan = Plan {
        rows: env_number("BENCH_ROWS", 100_000),
        batch: env_number("BENCH_BATCH", 1_000),
        rounds: env_number("BENCH_ROUNDS", 5).max(1),
        rules: env_number("BENCH_RULES", 0),
        peer: std::env::var("PEER_AW_SERVER")
            .ok()
            .filter(|p| !p.is_empty()),
        start: OffsetDateTime::now_utc().replace_nanosecond(0).unwrap(),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut report = Vec::new();
    run_backend(&rt, "sqlite", &plan, TestDb::sqlite, &mut report);
    match support::postgres_server() {
        Some(url) => run_backend(
            &rt,
            "postgres",
            &plan,
            || TestDb::postgres_at(&url, |u| DbConfig::new(u)),
            &mut report,
        ),
        None => eprintln!("PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL"),
    }
    if plan.peer.is_none() {
        eprintln!("the peer skipped: set PEER_AW_SERVER to an aw-server binary");
    }
    println!("\n{}", report.join("\n"));
}

fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// What to run, from the environment.
struct Plan {
    rows: usize,
    batch: usize,
    rounds: usize,
    rules: usize,
    peer: Option<String>,
    /// The entries lie in the minutes before this.
    start: OffsetDateTime,
}

impl Plan {
    /// Entry `n`: its own id, one of 50 labels, the six foundations in turn.
    fn entry(&self, n: usize) -> Entry {
        Entry {
            external_task_id: format!("ingest:{n:08}"),
            task_label: format!("Task {}", n % 50),
            foundation: FOUNDATIONS[n % 6],
            minutes: 1 + i32::try_from(n % 120).unwrap(),
            occurred_at: self.start - time::Duration::minutes(i64::try_from(n).unwrap()),
        }
    }

    fn batches(&self) -> Vec<Vec<Entry>> {
        (0..self.rows)
            .step_by(self.batch)
            .map(|first| {
                (first..(first + self.batch).min(self.rows))
                    .map(|n| self.entry(n))
                    .collect()
            })
            .collect()
    }
}

struct Entry {
    external_task_id: String,
    task_label: String,
    foundation: &'static str,
    minutes: i32,
    occurred_at: OffsetDateTime,
}

impl Entry {
    fn json(&self, with_foundation: bool) -> Value {
        let mut body = json!({
            "external_task_id": self.external_task_id,
            "task_label": self.task_label,
            "minutes": self.minutes,
            "occurred_at": self.occurred_at.format(&Rfc3339).unwrap(),
        });
        if with_foundation {
            body["foundation"] = json!(self.foundation);
        }
        body
    }
}

fn run_backend(
    rt: &tokio::runtime::Runtime,
    name: &str,
    plan: &Plan,
    fresh: impl Fn() -> TestDb,
    report: &mut Vec<String>,
) {
    let batches = plan.batches();
    let (mut route, mut floor, mut peer, mut ruled, mut known) =
        (vec![], vec![], vec![], vec![], vec![]);
    for round in 1..=plan.rounds {
        let (r, again) = service_rate(rt, &fresh(), &batches, None);
        let per_row = floor_rate(rt, &fresh(), &batches, 1);
        let multi_row = floor_rate(rt, &fresh(), &batches, 500);
        let f = per_row.max(multi_row);
        eprintln!(
            "{name} round {round}: route {r:.0} rows/s, native floor {f:.0} rows/s \
             (a statement per row {per_row:.0}, 500 rows a statement {multi_row:.0})"
        );
        route.push(r);
        floor.push(f);
        if let Some(again) = again {
            eprintln!("{name} round {round}: route, every entry known: {again:.0} rows/s");
            known.push(again);
        }
        if plan.rules > 0 {
            let (d, _) = service_rate(rt, &fresh(), &batches, Some(plan.rules));
            eprintln!(
                "{name} round {round}: route, {} rules deciding: {d:.0} rows/s",
                plan.rules
            );
            ruled.push(d);
        }
        if let (Some(binary), "sqlite") = (&plan.peer, name) {
            let p = peer_rate(rt, binary, &batches);
            eprintln!("{name} round {round}: peer {p:.0} rows/s");
            peer.push(p);
        }
    }
    let (route, floor) = (median(&mut route), median(&mut floor));
    report.push(format!(
        "{name}: batch route {route:.0} rows/s, native floor {floor:.0} rows/s: {:.2}x \
         (target 0.7x; {} rows in batches of {}, median of {} rounds)",
        route / floor,
        plan.rows,
        plan.batch,
        plan.rounds
    ));
    if !known.is_empty() {
        let known = median(&mut known);
        report.push(format!(
            "{name}: batch route with every entry known (the same batches again) {known:.0} \
             rows/s: {:.2}x of the native floor",
            known / floor
        ));
    }
    if !ruled.is_empty() {
        let ruled = median(&mut ruled);
        report.push(format!(
            "{name}: batch route with the foundation left to {} rules {ruled:.0} rows/s: \
             {:.2}x of the native floor",
            plan.rules,
            ruled / floor
        ));
    }
    if !peer.is_empty() {
        let peer = median(&mut peer);
        report.push(format!(
            "{name}: peer aw-server-rust bulk insert {peer:.0} rows/s; the batch route is \
             {:.2}x of it (target 0.5x, aim 1x)",
            route / peer
        ));
    }
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The release service over `db`: one person posts every batch, one after another; rows/s
/// from the first request to the last answer. With `rules`, entries come without a foundation
/// and that many rules (the last one matching) decide it. With `BENCH_AGAIN`, also the rate of
/// posting every batch a second time (every entry known: an import run twice).
fn service_rate(
    rt: &tokio::runtime::Runtime,
    db: &TestDb,
    batches: &[Vec<Entry>],
    rules: Option<usize>,
) -> (f64, Option<f64>) {
    let server = Server::start(db.url(), 4);
    let person = rt.block_on(server.person("ingest@example.org"));
    let client = reqwest::Client::new();
    if let Some(n) = rules {
        for k in 0..n {
            // Only the last rule matches: every entry is tried against all of them.
            let pattern = if k + 1 == n {
                "task".to_owned()
            } else {
                format!("no such label {k}")
            };
            let body = json!({"match": {"label_contains": pattern}, "foundation": "mission"});
            let response = rt
                .block_on(
                    client
                        .post(server.url("/integration/rules"))
                        .header("X-API-Key", &person.key)
                        .json(&body)
                        .send(),
                )
                .unwrap();
            assert_eq!(response.status(), 201);
        }
    }
    let bodies: Vec<Vec<u8>> = batches
        .iter()
        .map(|batch| {
            let items: Vec<Value> = batch.iter().map(|e| e.json(rules.is_none())).collect();
            serde_json::to_vec(&json!({ "items": items })).unwrap()
        })
        .collect();
    let url = server.url("/integration/task-mappings/batch");
    let rows: usize = batches.iter().map(Vec::len).sum();
    let (created, first) = post_all(rt, &client, &url, &person.key, &bodies);
    assert_eq!(created, rows, "every entry was created");
    let again = std::env::var("BENCH_AGAIN").is_ok().then(|| {
        let (created, elapsed) = post_all(rt, &client, &url, &person.key, &bodies);
        assert_eq!(created, 0, "every entry was known the second time");
        rows as f64 / elapsed
    });
    (rows as f64 / first, again)
}

/// Posts every body in turn; returns how many entries were created and the seconds from the
/// first request to the last answer.
fn post_all(
    rt: &tokio::runtime::Runtime,
    client: &reqwest::Client,
    url: &str,
    key: &str,
    bodies: &[Vec<u8>],
) -> (usize, f64) {
    let started = Instant::now();
    let mut created = 0;
    for body in bodies {
        let response = rt
            .block_on(
                client
                    .post(url)
                    .header("X-API-Key", key)
                    .header("Content-Type", "application/json")
                    .body(body.clone())
                    .send(),
            )
            .unwrap();
        assert_eq!(response.status(), 200);
        let report: Value = rt.block_on(response.json()).unwrap();
        created += usize::try_from(report["created"].as_u64().unwrap()).unwrap();
    }
    (created, started.elapsed().as_secs_f64())
}

#[derive(Insertable)]
#[diesel(table_name = task_mapping)]
#[diesel(treat_none_as_default_value = false)]
struct Row<'a> {
    id: String,
    user_id: &'a str,
    external_task_id: &'a str,
    task_label: Option<&'a str>,
    foundation: Option<&'a str>,
    minutes: i32,
    occurred_at: PrimitiveDateTime,
    created_at: PrimitiveDateTime,
    updated_at: PrimitiveDateTime,
    tags: &'a str,
    mapped_by: Option<&'a str>,
}

/// The native floor: the same rows, prepared statements of `per_statement` rows, a
/// transaction per batch.
fn floor_rate(
    rt: &tokio::runtime::Runtime,
    db: &TestDb,
    batches: &[Vec<Entry>],
    per_statement: usize,
) -> f64 {
    let database = db.db();
    let user = support::person_in(rt, &database, "ingest");
    let mut conn = database.connection().unwrap();
    let started = Instant::now();
    for batch in batches {
        let rows = rows_of(batch, &user);
        // The one-row statement is cached, so it is prepared once per connection.
        match (&mut *conn, per_statement) {
            (DbConnection::Sqlite(c), 1) => c
                .immediate_transaction(|c| {
                    for row in &rows {
                        diesel::insert_into(task_mapping::table)
                            .values(row)
                            .on_conflict((task_mapping::user_id, task_mapping::external_task_id))
                            .do_nothing()
                            .execute(c)?;
                    }
                    diesel::QueryResult::Ok(())
                })
                .unwrap(),
            (DbConnection::Sqlite(c), n) => c
                .immediate_transaction(|c| {
                    for chunk in rows.chunks(n) {
                        diesel::insert_into(task_mapping::table)
                            .values(chunk)
                            .on_conflict((task_mapping::user_id, task_mapping::external_task_id))
                            .do_nothing()
                            .execute(c)?;
                    }
                    diesel::QueryResult::Ok(())
                })
                .unwrap(),
            (DbConnection::Postgresql(c), 1) => c
                .transaction(|c| {
                    for row in &rows {
                        diesel::insert_into(task_mapping::table)
                            .values(row)
                            .on_conflict((task_mapping::user_id, task_mapping::external_task_id))
                            .do_nothing()
                            .execute(c)?;
                    }
                    diesel::QueryResult::Ok(())
                })
                .unwrap(),
            (DbConnection::Postgresql(c), n) => c
                .transaction(|c| {
                    for chunk in rows.chunks(n) {
                        diesel::insert_into(task_mapping::table)
                            .values(chunk)
                            .on_conflict((task_mapping::user_id, task_mapping::external_task_id))
                            .do_nothing()
                            .execute(c)?;
                    }
                    diesel::QueryResult::Ok(())
                })
                .unwrap(),
        }
    }
    let elapsed = started.elapsed();
    let rows: usize = batches.iter().map(Vec::len).sum();
    let stored: i64 = task_mapping::table.count().get_result(&mut *conn).unwrap();
    assert_eq!(stored, rows as i64, "every row was written");
    rows as f64 / elapsed.as_secs_f64()
}

/// One batch as the rows the service would store for it.
fn rows_of<'a>(batch: &'a [Entry], user: &'a str) -> Vec<Row<'a>> {
    let now = pdt(OffsetDateTime::now_utc());
    batch
        .iter()
        .map(|e| Row {
            id: uuid::Uuid::now_v7().to_string(),
            user_id: user,
            external_task_id: &e.external_task_id,
            task_label: Some(&e.task_label),
            foundation: Some(e.foundation),
            minutes: e.minutes,
            occurred_at: pdt(e.occurred_at),
            created_at: now,
            updated_at: now,
            tags: "[]",
            mapped_by: Some("client"),
        })
        .collect()
}

fn pdt(at: OffsetDateTime) -> PrimitiveDateTime {
    PrimitiveDateTime::new(at.date(), at.time())
}

/// aw-server-rust on a fresh database file: one bucket, every batch as one bulk insert of
/// events (timestamp, duration in seconds, the label and id as data).
fn peer_rate(rt: &tokio::runtime::Runtime, binary: &str, batches: &[Vec<Entry>]) -> f64 {
    let peer = Peer::start(binary);
    let client = reqwest::Client::new();
    let bucket = peer.url("/api/0/buckets/ingest");
    let created = rt
        .block_on(
            client
                .post(&bucket)
                .json(&json!({"client": "bench", "type": "timetracking", "hostname": "bench"}))
                .send(),
        )
        .unwrap();
    assert!(created.status().is_success(), "{}", created.status());
    let bodies: Vec<Vec<u8>> = batches
        .iter()
        .map(|batch| {
            let events: Vec<Value> = batch
                .iter()
                .map(|e| {
                    json!({
                        "timestamp": e.occurred_at.format(&Rfc3339).unwrap(),
                        "duration": f64::from(e.minutes) * 60.0,
                        "data": {"label": e.task_label, "id": e.external_task_id,
                                 "foundation": e.foundation},
                    })
                })
                .collect();
            serde_json::to_vec(&events).unwrap()
        })
        .collect();
    let url = peer.url("/api/0/buckets/ingest/events");
    let started = Instant::now();
    for body in bodies {
        let response = rt
            .block_on(
                client
                    .post(&url)
                    .header("Content-Type", "application/json")
                    .body(body)
                    .send(),
            )
            .unwrap();
        assert!(response.status().is_success(), "{}", response.status());
    }
    let elapsed = started.elapsed();
    let rows: usize = batches.iter().map(Vec::len).sum();
    let count: Value = rt
        .block_on(
            rt.block_on(
                client
                    .get(peer.url("/api/0/buckets/ingest/events/count"))
                    .send(),
            )
            .unwrap()
            .json(),
        )
        .unwrap();
    assert_eq!(
        count.as_u64(),
        Some(rows as u64),
        "the peer kept every event"
    );
    rows as f64 / elapsed.as_secs_f64()
}

/// The peer's process over its own scratch directory, stopped on drop.
struct Peer {
    child: Child,
    base: String,
    _work: TempDir,
}

impl Peer {
    fn start(binary: &str) -> Self {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let work = TempDir::new();
        let log = std::fs::File::create(work.path().join("peer.log")).unwrap();
        let child = Command::new(binary)
            .args(["--port", &port.to_string(), "--no-legacy-import"])
            .arg("--dbpath")
            .arg(work.path().join("peer.db"))
            // Its config and cache go to the scratch directory too.
            .env("HOME", work.path())
            .env("XDG_CONFIG_HOME", work.path().join("config"))
            .env("XDG_DATA_HOME", work.path().join("data"))
            .env("XDG_CACHE_HOME", work.path().join("cache"))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the peer did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Self {
            child,
            base: format!("http://127.0.0.1:{port}"),
            _work: work,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
