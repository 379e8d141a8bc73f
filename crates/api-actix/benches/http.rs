//! HTTP benchmarks of the running service, each beside a baseline measured in the same run:
//!
//! - `auth`: `GET /api/me` with a Bearer JWT, an API key and the session cookie, each against
//!   the mean of the `GET /healthz` runs just before and after it (wrk, 32 connections).
//!   Target: each at least 0.7 of `/healthz`. For comparison, without a target, the same for
//!   `GET /api/auth/config` with no credential: logged like the others, authenticated not at all,
//!   so it shows what the activity log and routing alone leave.
//! - `mappings`: `POST /integration/task-mappings` with an API key (wrk + a Lua body script, 32
//!   connections, a new external id per request) against the same single-row INSERT run
//!   directly on the same database (1 and 32 connections; the better rate is the baseline).
//!   Target: at least 0.6 of the raw rate.
//! - `patterns`: `GET /integration/work-patterns?days=14` for a person with 100,000 of
//!   1,000,000 mappings (wrk, one connection, p50) against the raw SQL aggregate run
//!   directly (p50 of sequential runs). Target: within 1.5x.
//!
//! The release `discovery-api` binary (with `DATABASE_MAX_CONNECTIONS=32`) serves a fresh database: SQLite always, PostgreSQL too when
//! `BENCH_DATABASE_URL` or `TEST_DATABASE_URL` names a server. Needs `wrk` (Debian package).
//! `BENCH_SECONDS` (default 10) bounds each wrk run; `BENCH_ROWS` (default 1,000,000) the seed;
//! `BENCH_ONLY=auth,mappings,patterns` picks scenarios; `BENCH_ROUNDS` (default 3) the rounds of
//! the mappings comparison. Run: `cargo bench -p api-actix --bench http`.

// The 80-line limit is for the service's code (src/); a test or bench here is one scenario,
// read top to bottom, and splitting it would hide its steps.
#![allow(clippy::too_many_lines)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    missing_debug_implementations
)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use adapters_diesel::testing::TestDb;
use adapters_diesel::{Backend, Database, DbConfig, DbConnection};
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Date, Nullable, Text, Timestamp};
use serde_json::Value;
use support::{Person, Server};
use time::{OffsetDateTime, PrimitiveDateTime};

mod support;

const CONNECTIONS: usize = 32;
const PEOPLE: usize = 10;
const SPAN_DAYS: i64 = 90;

fn main() {
    if Command::new("wrk").arg("--version").output().is_err() {
        eprintln!("wrk is not installed: apt-get install -y wrk");
        std::process::exit(2);
    }
    let seconds: u64 = env_number("BENCH_SECONDS", 10);
    let rows: usize = env_number("BENCH_ROWS", 1_000_000);
    let rounds: usize = env_number("BENCH_ROUNDS", 3).max(1);
    let only = std::env::var("BENCH_ONLY").unwrap_or_else(|_| "auth,mappings,patterns".into());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut report = Vec::new();

    let sqlite = TestDb::sqlite_with(pool);
    let plan = Plan {
        seconds,
        rows,
        rounds,
        only,
    };
    run_backend(&runtime, &sqlite, "sqlite", &plan, &mut report);
    drop(sqlite);
    match support::postgres_server() {
        Some(url) => {
            let pg = TestDb::postgres_at(&url, pool);
            run_backend(&runtime, &pg, "postgres", &plan, &mut report);
        }
        None => eprintln!("PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL"),
    }
    println!("\n{}", report.join("\n"));
}

fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Enough connections for the 32-connection raw baseline.
fn pool(url: &str) -> DbConfig {
    let mut config = DbConfig::new(url);
    config.max_connections = u32::try_from(CONNECTIONS).unwrap();
    config
}

/// What to run, from the environment.
struct Plan {
    seconds: u64,
    rows: usize,
    rounds: usize,
    only: String,
}

fn run_backend(
    rt: &tokio::runtime::Runtime,
    test_db: &TestDb,
    name: &str,
    plan: &Plan,
    report: &mut Vec<String>,
) {
    let Plan {
        seconds,
        rows,
        rounds,
        ref only,
    } = *plan;
    let server = Server::start(test_db.url(), CONNECTIONS);
    let people: Vec<Person> = (0..PEOPLE)
        .map(|n| rt.block_on(server.person(&format!("bench{n}@example.org"))))
        .collect();
    let db = test_db.db();
    let wrk = Wrk {
        seconds,
        work: server.work.path().to_owned(),
    };

    if only.contains("auth") {
        // Each run sits between two runs of /healthz and is compared with their mean, so a
        // machine that speeds up or slows down during the run (another tenant, the page cache)
        // shifts both sides alike.
        let health = || wrk.rate(&server.url("/healthz"), &[], CONNECTIONS);
        let mut healths = vec![health()];
        let mut rates = Vec::new();
        for (label, path, header) in [
            (
                "/api/me with Bearer",
                "/api/me",
                Some(format!("Authorization: Bearer {}", people[0].jwt)),
            ),
            (
                "/api/me with API key",
                "/api/me",
                Some(format!("X-API-Key: {}", people[0].key)),
            ),
            (
                "/api/me with cookie",
                "/api/me",
                Some(format!("Cookie: ds_access={}", people[0].jwt)),
            ),
            // No target: a request that is logged like the others but carries no credential,
            // so its ratio is what routing, a small JSON answer and the activity log leave
            // before any authentication is done.
            ("/api/auth/config, no credential", "/api/auth/config", None),
        ] {
            let headers: Vec<&str> = header.iter().map(String::as_str).collect();
            let rate = wrk.rate(&server.url(path), &headers, CONNECTIONS);
            healths.push(health());
            let around = (healths[healths.len() - 2] + healths[healths.len() - 1]) / 2.0;
            rates.push((label, header.is_some(), rate, around));
        }
        let runs: Vec<String> = healths.iter().map(|h| format!("{h:.0}")).collect();
        report.push(format!(
            "{name} auth: /healthz runs {} req/s",
            runs.join(", ")
        ));
        for (label, has_target, rate, health) in rates {
            if has_target {
                report.push(ratio_line(
                    &format!("{name} auth: {label}"),
                    rate,
                    health,
                    "req/s",
                    0.7,
                    true,
                ));
            } else {
                report.push(format!(
                    "{name} auth: for comparison, {label} (logged, no authentication): {rate:.2} / {health:.2} req/s = {:.2}x",
                    rate / health
                ));
            }
        }
    }

    if only.contains("mappings") {
        // Rounds of (service, raw) back to back; the median of the per-round ratios is the
        // figure, so a burst of load on the machine skews one round, not the verdict.
        let mut ratios = Vec::new();
        for round in 0..rounds {
            let http = wrk.post_mappings(
                &server.url("/integration/task-mappings"),
                &people[1].key,
                round,
            );
            let before = count(&db, "SELECT COUNT(*) AS n FROM task_mapping");
            let raw_one = raw_insert_rate(&db, people[2].id.as_str(), 1, seconds, round);
            let raw_many = raw_insert_rate(&db, people[2].id.as_str(), CONNECTIONS, seconds, round);
            let after = count(&db, "SELECT COUNT(*) AS n FROM task_mapping");
            assert!(after > before, "the raw baseline wrote nothing");
            let raw = raw_one.max(raw_many);
            ratios.push(http / raw);
            report.push(format!(
                "{name} mappings round {}: POST {http:.0} req/s; raw INSERT {raw_one:.0} rows/s on 1 connection, {raw_many:.0} on {CONNECTIONS}; {:.2}x",
                round + 1,
                http / raw
            ));
        }
        ratios.sort_by(f64::total_cmp);
        report.push(ratio_line(
            &format!("{name} mappings: POST /integration/task-mappings (API key, {CONNECTIONS} connections), median of {rounds} rounds"),
            ratios[ratios.len() / 2],
            1.0,
            "(service/raw)",
            0.6,
            true,
        ));
    }

    if only.contains("patterns") {
        let started = Instant::now();
        let ids: Vec<&str> = people.iter().map(|p| p.id.as_str()).collect();
        seed(&db, &ids, rows);
        eprintln!(
            "{name}: seeded {rows} mappings in {:.1?}",
            started.elapsed()
        );
        let url = server.url("/integration/work-patterns?days=14");
        // The window moves with the clock, so a seeded row can leave it between two reads: the
        // service's total is checked against raw totals read just before and just after it.
        loop {
            let before = raw_total(&db, &people[0].id);
            let http_total = rt.block_on(server.total_minutes(&url, &people[0].key));
            if raw_total(&db, &people[0].id) == before {
                assert_eq!(http_total, before, "the service and the raw SQL disagree");
                break;
            }
        }
        let (raw_p50, raw_total) = raw_rollup_p50(&db, &people[0].id, seconds);
        let http_p50 = wrk.p50(&url, &[&format!("X-API-Key: {}", people[0].key)]);
        report.push(format!(
            "{name} patterns: the 14-day window holds {raw_total} minutes of {} mappings for the person",
            rows / PEOPLE
        ));
        report.push(ratio_line(
            &format!("{name} patterns: GET /integration/work-patterns?days=14 p50"),
            http_p50 * 1_000.0,
            raw_p50 * 1_000.0,
            "ms",
            1.5,
            false,
        ));
    }
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

/// The release binary on a free loopback port, in dev mode over the given database.
impl Server {
    async fn total_minutes(&self, url: &str, key: &str) -> i64 {
        let body: Value = reqwest::Client::new()
            .get(url)
            .header("X-API-Key", key)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        body["total_minutes"].as_i64().unwrap()
    }
}

struct Wrk {
    seconds: u64,
    work: PathBuf,
}

impl Wrk {
    fn run(&self, url: &str, headers: &[&str], connections: usize, extra: &[&str]) -> String {
        let mut command = Command::new("wrk");
        command
            .arg(format!("-t{}", 2.min(connections)))
            .arg(format!("-c{connections}"))
            .arg(format!("-d{}s", self.seconds))
            .args(extra);
        for header in headers {
            command.arg("-H").arg(header);
        }
        let output = command.arg(url).output().unwrap();
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(output.status.success(), "wrk failed: {text}");
        // Any error answer would make the rate meaningless.
        assert!(
            !text.contains("Non-2xx or 3xx responses"),
            "error answers during the run of {url}:\n{text}"
        );
        text
    }

    fn rate(&self, url: &str, headers: &[&str], connections: usize) -> f64 {
        let text = self.run(url, headers, connections, &[]);
        let rate = field(&text, "Requests/sec:");
        // Headers carry credentials: only their names are printed.
        let names: Vec<&str> = headers
            .iter()
            .map(|h| h.split(':').next().unwrap_or_default())
            .collect();
        eprintln!("{url} {names:?}: {rate:.0} req/s");
        rate
    }

    /// p50 latency in seconds, one connection (no queueing).
    fn p50(&self, url: &str, headers: &[&str]) -> f64 {
        let text = self.run(url, headers, 1, &["--latency"]);
        let p50 = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("50%"))
            .map(|v| seconds_of(v.trim()))
            .expect("wrk printed its latency distribution");
        eprintln!("{url}: p50 {:.3} ms", p50 * 1_000.0);
        p50
    }

    /// POSTs a new mapping per request: every wrk thread numbers its own external ids.
    fn post_mappings(&self, url: &str, key: &str, round: usize) -> f64 {
        let script = self.work.join("post-mapping.lua");
        std::fs::write(
            &script,
            format!(
                r#"local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
local n = 0
function request()
  n = n + 1
  local body = string.format('{{"external_task_id":"wrk-{round}-%d-%d","task_label":"bench","foundation":"vocation","minutes":25,"occurred_at":"2026-11-20T10:00:00Z"}}', tid, n)
  return wrk.format("POST", nil, {{["Content-Type"] = "application/json", ["X-API-Key"] = "{key}"}}, body)
end
"#
            ),
        )
        .unwrap();
        let text = self.run(url, &[], CONNECTIONS, &["-s", script.to_str().unwrap()]);
        let rate = field(&text, "Requests/sec:");
        eprintln!("POST {url}: {rate:.0} req/s");
        rate
    }
}

fn field(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|l| l.trim().strip_prefix(name))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("wrk printed no {name}:\n{text}"))
}

/// wrk's "1.23ms", "456.00us", "1.02s".
fn seconds_of(value: &str) -> f64 {
    let split = value.find(|c: char| c.is_ascii_alphabetic()).unwrap();
    let (number, unit) = value.split_at(split);
    let number: f64 = number.parse().unwrap();
    match unit {
        "us" => number / 1e6,
        "ms" => number / 1e3,
        "s" => number,
        "m" => number * 60.0,
        other => panic!("unknown unit {other}"),
    }
}

fn pdt(at: OffsetDateTime) -> PrimitiveDateTime {
    PrimitiveDateTime::new(at.date(), at.time())
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

fn count(db: &Database, sql: &str) -> i64 {
    let mut conn = db.connection().unwrap();
    diesel::sql_query(sql)
        .get_result::<Count>(&mut *conn)
        .unwrap()
        .n
}

/// Single-row INSERTs, autocommit, on `connections` pooled connections of the same database
/// for `seconds`; rows per second.
fn raw_insert_rate(
    db: &Database,
    user: &str,
    connections: usize,
    seconds: u64,
    round: usize,
) -> f64 {
    let sql = match db.backend() {
        Backend::Postgres => {
            "INSERT INTO task_mapping (id, user_id, external_task_id, task_label, foundation, mapped_by, minutes, \
             occurred_at, created_at, updated_at) VALUES ($1, $2, $3, 'bench', 'vocation', 'client', 25, $4, $5, $6)"
        }
        Backend::Sqlite => {
            "INSERT INTO task_mapping (id, user_id, external_task_id, task_label, foundation, mapped_by, minutes, \
             occurred_at, created_at, updated_at) VALUES (?, ?, ?, 'bench', 'vocation', 'client', 25, ?, ?, ?)"
        }
    };
    let stop = Arc::new(AtomicBool::new(false));
    let written = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let workers: Vec<_> = (0..connections)
        .map(|t| {
            let (db, stop, written, user) =
                (db.clone(), stop.clone(), written.clone(), user.to_owned());
            std::thread::spawn(move || {
                let mut conn = db.connection().unwrap();
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let now = pdt(OffsetDateTime::now_utc());
                    diesel::sql_query(sql)
                        .bind::<Text, _>(uuid::Uuid::now_v7().to_string())
                        .bind::<Text, _>(&user)
                        .bind::<Text, _>(format!("raw-{round}-{connections}-{t}-{n}"))
                        .bind::<Timestamp, _>(now)
                        .bind::<Timestamp, _>(now)
                        .bind::<Timestamp, _>(now)
                        .execute(&mut *conn)
                        .unwrap();
                    n += 1;
                }
                written.fetch_add(n, Ordering::Relaxed);
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(seconds));
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.join().unwrap();
    }
    #[allow(clippy::cast_precision_loss)]
    let rate = written.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64();
    eprintln!("raw INSERT on {connections} connection(s): {rate:.0} rows/s");
    rate
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

/// The 14-day aggregate written by hand, run back to back on one connection for `seconds`;
/// returns the p50 in seconds and the total minutes.
fn raw_rollup_p50(db: &Database, user: &str, seconds: u64) -> (f64, i64) {
    let mut conn = db.connection().unwrap();
    let mut samples = Vec::new();
    let mut total = 0;
    let deadline = Instant::now() + Duration::from_secs(seconds);
    while Instant::now() < deadline || samples.len() < 20 {
        let started = Instant::now();
        total = raw_rollup(&mut conn, user, OffsetDateTime::now_utc());
        samples.push(started.elapsed().as_secs_f64());
    }
    samples.sort_by(f64::total_cmp);
    let p50 = samples[samples.len() / 2];
    eprintln!(
        "raw 14-day aggregate: p50 {:.3} ms over {} runs",
        p50 * 1_000.0,
        samples.len()
    );
    (p50, total)
}

/// The raw 14-day total now.
fn raw_total(db: &Database, user: &str) -> i64 {
    raw_rollup(
        &mut db.connection().unwrap(),
        user,
        OffsetDateTime::now_utc(),
    )
}

/// The 14-day aggregate written by hand, ending at `now`; returns the total minutes.
fn raw_rollup(conn: &mut DbConnection, user: &str, now: OffsetDateTime) -> i64 {
    let sql = match conn {
        DbConnection::Postgresql(_) => {
            "SELECT CAST(occurred_at AS DATE) AS day, foundation, SUM(minutes) AS minutes FROM task_mapping \
             WHERE user_id = $1 AND occurred_at > $2 AND occurred_at <= $3 GROUP BY 1, 2"
        }
        DbConnection::Sqlite(_) => {
            "SELECT date(occurred_at) AS day, foundation, SUM(minutes) AS minutes FROM task_mapping \
             WHERE user_id = ? AND occurred_at > ? AND occurred_at <= ? GROUP BY 1, 2"
        }
    };
    diesel::sql_query(sql)
        .bind::<Text, _>(user)
        .bind::<Timestamp, _>(pdt(now - time::Duration::days(14)))
        .bind::<Timestamp, _>(pdt(now))
        .load::<DayRow>(conn)
        .unwrap()
        .iter()
        .map(|r| r.minutes.unwrap_or(0))
        .sum()
}

/// `rows` mappings spread evenly over the people and the last 90 days (newest a minute ago), in
/// one set-based INSERT (generate_series on PostgreSQL, a recursive CTE on SQLite).
fn seed(db: &Database, people: &[&str], rows: usize) {
    let per_person = (rows / people.len()).max(1);
    let step = (SPAN_DAYS * 86_400 / i64::try_from(per_person).unwrap()).max(1);
    let end = OffsetDateTime::now_utc().unix_timestamp() - 60;
    let ids = people
        .iter()
        .map(|p| format!("('{p}')"))
        .collect::<Vec<_>>()
        .join(", ");
    let last = per_person - 1;
    let mut conn = db.connection().unwrap();
    let sql = match &mut *conn {
        DbConnection::Postgresql(_) => format!(
            "BEGIN;
             INSERT INTO task_mapping (id, user_id, external_task_id, task_label, foundation, mapped_by, minutes,
                                       occurred_at, created_at, updated_at)
             SELECT gen_random_uuid()::text, p.id, 'seed-' || g, NULL,
                    (ARRAY['love','strength','mission','vocation','short_term','long_term'])[1 + g % 6],
                    'client', (g * 37) % 241,
                    to_timestamp({end} - g * {step}) AT TIME ZONE 'UTC',
                    to_timestamp({end}) AT TIME ZONE 'UTC', to_timestamp({end}) AT TIME ZONE 'UTC'
             FROM (VALUES {ids}) AS p(id) CROSS JOIN generate_series(0, {last}) AS g
             ORDER BY p.id, g;
             COMMIT;
             ANALYZE task_mapping;"
        ),
        DbConnection::Sqlite(_) => format!(
            "BEGIN IMMEDIATE;
             WITH RECURSIVE g(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM g WHERE n < {last}),
                  p(id) AS (VALUES {ids})
             INSERT INTO task_mapping (id, user_id, external_task_id, task_label, foundation, mapped_by, minutes,
                                       occurred_at, created_at, updated_at)
             SELECT lower(printf('%s-%s-7%s-8%s-%s', hex(randomblob(4)), hex(randomblob(2)),
                                 substr(hex(randomblob(2)), 2), substr(hex(randomblob(2)), 2), hex(randomblob(6)))),
                    p.id, 'seed-' || g.n, NULL,
                    CASE g.n % 6 WHEN 0 THEN 'love' WHEN 1 THEN 'strength' WHEN 2 THEN 'mission'
                                 WHEN 3 THEN 'vocation' WHEN 4 THEN 'short_term' ELSE 'long_term' END,
                    'client', (g.n * 37) % 241,
                    strftime('%Y-%m-%d %H:%M:%S', {end} - g.n * {step}, 'unixepoch'),
                    strftime('%Y-%m-%d %H:%M:%S', {end}, 'unixepoch'),
                    strftime('%Y-%m-%d %H:%M:%S', {end}, 'unixepoch')
             FROM p CROSS JOIN g;
             COMMIT;
             ANALYZE;"
        ),
    };
    conn.batch_execute(&sql).unwrap();
}
