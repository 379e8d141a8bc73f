//! Each importer at scale (issue 32), PostgreSQL only, run by hand: for Toggl, Clockify,
//! ActivityWatch and a calendar, a generated file of `IMPORT_ROWS` rows (20,000 by default;
//! `IMPORT_ROWS=1000000` for the figure) imported by the real `discovery-sync` binary
//! into the real service (in-process, over a fresh database), each for a fresh person, timed
//! end to end with its peak resident memory (GNU time's `%M`, the child's `ru_maxrss`), against
//! a raw batched `INSERT` of the same entries (1,000 rows a statement, each its own
//! transaction) for another fresh person. Rows are the file's: report rows, window events,
//! calendar occurrences. An ActivityWatch export's entries are hours of an app (240 events
//! each), so its raw INSERT writes far fewer rows than the file has.
//!
//! Needs `BENCH_DATABASE_URL` or `TEST_DATABASE_URL` and `/usr/bin/time`; without them it says
//! so and exits 0. `cargo bench -p sync --bench importers`.

// The 80-line limit is for the service's code (src/); a test or bench here is one scenario,
// read top to bottom, and splitting it would hide its steps.
#![allow(clippy::too_many_lines)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::cast_precision_loss,
    clippy::cast_possible_wrap,
    missing_debug_implementations
)]

#[path = "importers/files.rs"]
mod files;
// Only the person and the start are used here.
#[allow(dead_code)]
#[path = "scale/service.rs"]
mod service;
#[path = "scale/setup.rs"]
mod setup;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use adapters_diesel::schema::task_mapping;
use adapters_diesel::{Database, DbConnection};
use diesel::prelude::*;
use discovery_sync::import::ics::IcsOptions;
use discovery_sync::import::{CsvOptions, ImportedEntry, activitywatch, clockify, ics, toggl};
use discovery_sync::zone::Zone;
use time::{OffsetDateTime, PrimitiveDateTime, UtcOffset};

use service::Service;

fn main() {
    let Some(admin_url) = setup::admin_url("importers") else {
        return;
    };
    if !Path::new(TIME).exists() {
        eprintln!("importers benchmark skipped: it measures memory with GNU time ({TIME})");
        return;
    }
    let rows: usize = std::env::var("IMPORT_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let rt = setup::runtime();
    let test_db = setup::database(&admin_url);
    let server = rt.block_on(Service::start(test_db.url()));
    let db = test_db.db();
    let dir = std::env::temp_dir().join(format!("discovery-importers-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut report = vec![format!("importers: {rows} rows each, PostgreSQL")];
    for kind in ["toggl", "clockify", "activitywatch", "ics"] {
        let line = measure(&rt, &server, &db, &dir, kind, rows);
        eprintln!("{line}");
        report.push(line);
    }
    println!("\n{}", report.join("\n"));
    let _ = std::fs::remove_dir_all(&dir);
    drop(test_db);
    rt.shutdown_timeout(Duration::from_secs(5));
}

const TIME: &str = "/usr/bin/time";

/// One importer: the file written, imported, and its entries inserted raw; the report line.
fn measure(
    rt: &tokio::runtime::Runtime,
    server: &Service,
    db: &Database,
    dir: &Path,
    kind: &str,
    rows: usize,
) -> String {
    let file = dir.join(format!("{kind}.file"));
    let path = file.to_str().unwrap();
    let (args, entries): (Vec<String>, Vec<ImportedEntry>) = match kind {
        "toggl" | "clockify" => {
            if kind == "toggl" {
                files::toggl(&file, rows);
            } else {
                files::clockify(&file, rows);
            }
            let options = CsvOptions::new(UtcOffset::UTC);
            let open = || std::fs::File::open(&file).unwrap();
            let parsed = if kind == "toggl" {
                toggl::parse(open(), options)
            } else {
                clockify::parse(open(), options)
            };
            let flags = [
                kind,
                "--csv",
                path,
                "--utc-offset",
                "+00:00",
                "--month-first",
            ];
            let flags = if kind == "toggl" { &flags[..5] } else { &flags };
            (
                flags.iter().map(|s| (*s).to_owned()).collect(),
                parsed.unwrap().entries,
            )
        }
        "activitywatch" => {
            files::activitywatch(&file, rows);
            let parsed = activitywatch::parse(
                std::fs::File::open(&file).unwrap(),
                activitywatch::ExportOptions::default(),
            );
            (
                ["activitywatch", "--export", path]
                    .map(str::to_owned)
                    .to_vec(),
                parsed.unwrap().entries,
            )
        }
        _ => {
            let (from, to) = files::calendar(&file, rows);
            let options = IcsOptions {
                zone: Zone::Fixed(UtcOffset::UTC),
                strict: false,
                from: day(&from),
                to: day(&to) + time::Duration::days(1),
                owner: None,
            };
            let parsed = ics::parse(&std::fs::read_to_string(&file).unwrap(), &options);
            (
                [
                    "ics",
                    "--file",
                    path,
                    "--utc-offset",
                    "Z",
                    "--from",
                    &from,
                    "--to",
                    &to,
                ]
                .map(str::to_owned)
                .to_vec(),
                parsed.unwrap().entries,
            )
        }
    };
    let bytes = std::fs::metadata(&file).unwrap().len();
    let importer = rt.block_on(server.person(&format!("{kind}-import@example.org")));
    let started = Instant::now();
    let output = Command::new(TIME)
        .args(["-f", "max-rss-kb %M"])
        .arg(env!("CARGO_BIN_EXE_discovery-sync"))
        .args(&args)
        .env_clear()
        .env("DISCOVERY_API_KEY", &importer.key)
        .env("DISCOVERY_URL", &server.base)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let import_time = started.elapsed().as_secs_f64();
    let (summary, stderr) = setup::summary_of(kind, &output);
    assert_eq!(
        summary["rows"].as_u64(),
        Some(rows as u64 + u64::from(kind == "activitywatch")),
        "{summary}"
    );
    assert_eq!(
        summary["created"].as_u64(),
        Some(entries.len() as u64),
        "{summary}"
    );
    let rss_kb: u64 = stderr
        .lines()
        .find_map(|l| l.strip_prefix("max-rss-kb "))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let baseline = rt.block_on(server.person(&format!("{kind}-raw@example.org")));
    let raw_time = raw_insert(db, &baseline.id, &entries);
    format!(
        "{kind}: {rows} rows ({:.1} MB, {} entries) in {import_time:.1} s = {:.0} rows/s, peak \
         RSS {:.1} MB; raw INSERT of the same entries {raw_time:.2} s = {:.0} rows/s; the \
         import took {:.1}x the raw INSERT's time (its 2 s wait for the sweep's clock \
         included)",
        bytes as f64 / 1_048_576.0,
        entries.len(),
        rows as f64 / import_time,
        rss_kb as f64 / 1_024.0,
        entries.len() as f64 / raw_time,
        import_time / raw_time,
    )
}

fn day(text: &str) -> OffsetDateTime {
    time::Date::parse(
        text,
        time::macros::format_description!("[year]-[month]-[day]"),
    )
    .unwrap()
    .midnight()
    .assume_utc()
}

#[derive(Insertable)]
#[diesel(table_name = task_mapping)]
struct Row {
    id: String,
    user_id: String,
    external_task_id: String,
    task_label: Option<String>,
    minutes: i32,
    occurred_at: PrimitiveDateTime,
    created_at: PrimitiveDateTime,
    updated_at: PrimitiveDateTime,
    tags: String,
}

/// The entries as multi-row INSERTs of 1,000, each its own transaction; the seconds taken.
fn raw_insert(db: &Database, user_id: &str, entries: &[ImportedEntry]) -> f64 {
    let utc = |at: OffsetDateTime| {
        let at = at.to_offset(UtcOffset::UTC);
        PrimitiveDateTime::new(at.date(), at.time())
    };
    let now = utc(OffsetDateTime::now_utc());
    let rows: Vec<Row> = entries
        .iter()
        .map(|e| Row {
            id: uuid::Uuid::now_v7().to_string(),
            user_id: user_id.to_owned(),
            external_task_id: e.external_task_id.clone(),
            task_label: e.task_label.clone(),
            minutes: i32::try_from(e.minutes).unwrap(),
            occurred_at: utc(e.occurred_at),
            created_at: now,
            updated_at: now,
            tags: serde_json::to_string(&e.tags).unwrap(),
        })
        .collect();
    let mut conn = db.connection().unwrap();
    let DbConnection::Postgresql(pg) = &mut *conn else {
        panic!("the importers benchmark runs on PostgreSQL only")
    };
    let started = Instant::now();
    for chunk in rows.chunks(1_000) {
        let n = diesel::insert_into(task_mapping::table)
            .values(chunk)
            .execute(pg)
            .unwrap();
        assert_eq!(n, chunk.len());
    }
    started.elapsed().as_secs_f64()
}
