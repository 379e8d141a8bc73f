//! A Toggl detailed report imported by `discovery-sync`, against a raw batched INSERT.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use adapters_diesel::Database;
use adapters_diesel::schema::task_mapping;
use diesel::prelude::*;
use discovery_sync::import::{CsvOptions, toggl};
use time::{OffsetDateTime, PrimitiveDateTime, UtcOffset};

use super::service::Service;
use super::setup::summary_of;
use super::{Plan, SPAN_SECONDS, count, pdt, pg, ratio_line, thousands};

const PROJECTS: [(&str, &str); 4] = [
    ("Kestrel & Co", "Website"),
    ("", "Reading"),
    ("", "Admin"),
    ("", ""),
];
const DESCRIPTIONS: [&str; 5] = [
    "Checkout totals, again",
    "She said \"wait\", then left",
    "Deep work",
    "Email",
    "",
];
const TOGGL_TAGS: [&str; 4] = ["", "dev", "dev, review", "focus"];

/// A Toggl detailed report of `rows` entries of one person, one every `step` seconds over the
/// last year (distinct starts), a few projects, descriptions and tags.
fn write_toggl_csv(path: &Path, rows: usize) {
    let file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut csv = csv::Writer::from_writer(file);
    csv.write_record([
        "User",
        "Email",
        "Client",
        "Project",
        "Task",
        "Description",
        "Billable",
        "Start date",
        "Start time",
        "End date",
        "End time",
        "Duration",
        "Tags",
        "Amount (USD)",
    ])
    .unwrap();
    let step = (SPAN_SECONDS / rows as i64).max(1);
    let first = OffsetDateTime::now_utc().replace_nanosecond(0).unwrap()
        - time::Duration::seconds(step * rows as i64);
    let date = time::macros::format_description!("[year]-[month]-[day]");
    let clock = time::macros::format_description!("[hour]:[minute]:[second]");
    for i in 0..rows {
        let start = first + time::Duration::seconds(step * i as i64);
        let seconds = 60 * (1 + (i * 7) % 120) as i64 + (i % 60) as i64;
        let end = start + time::Duration::seconds(seconds);
        let (client, project) = PROJECTS[i % PROJECTS.len()];
        let billable = if client.is_empty() { "No" } else { "Yes" };
        let duration = format!(
            "{:02}:{:02}:{:02}",
            seconds / 3_600,
            seconds / 60 % 60,
            seconds % 60
        );
        let (start_date, start_time) =
            (start.format(&date).unwrap(), start.format(&clock).unwrap());
        let (end_date, end_time) = (end.format(&date).unwrap(), end.format(&clock).unwrap());
        csv.write_record([
            "Ada Importer",
            "importer@example.org",
            client,
            project,
            "",
            DESCRIPTIONS[i % DESCRIPTIONS.len()],
            billable,
            start_date.as_str(),
            start_time.as_str(),
            end_date.as_str(),
            end_time.as_str(),
            duration.as_str(),
            TOGGL_TAGS[i % TOGGL_TAGS.len()],
            if client.is_empty() { "0.00" } else { "20.00" },
        ])
        .unwrap();
    }
    csv.flush().unwrap();
}

#[derive(Insertable)]
#[diesel(table_name = task_mapping)]
struct Row {
    id: String,
    user_id: String,
    external_task_id: String,
    task_label: Option<String>,
    foundation: Option<String>,
    minutes: i32,
    occurred_at: PrimitiveDateTime,
    created_at: PrimitiveDateTime,
    updated_at: PrimitiveDateTime,
    tags: String,
    mapped_by: Option<String>,
}

pub(crate) fn import(
    rt: &tokio::runtime::Runtime,
    server: &Service,
    db: &Database,
    plan: &Plan,
    report: &mut Vec<String>,
) {
    let importer = rt.block_on(server.person("importer@example.org"));
    let baseline = rt.block_on(server.person("raw-insert@example.org"));
    let dir = ScratchDir::new();
    let file = dir.0.join("TogglTrack_Report_Detailed.csv");
    let started = Instant::now();
    write_toggl_csv(&file, plan.import);
    let written = started.elapsed().as_secs_f64();
    let bytes = std::fs::metadata(&file).unwrap().len();
    eprintln!(
        "wrote {} Toggl rows ({:.0} MB) in {written:.1} s",
        thousands(plan.import as i64),
        bytes as f64 / 1_048_576.0
    );

    // The importer, end to end: reading, parsing, hashing, the batches over HTTP, the
    // service's validation, rules and upserts.
    let started = Instant::now();
    let output = sync_command(&file)
        .env("DISCOVERY_API_KEY", &importer.key)
        .env("DISCOVERY_URL", &server.base)
        .output()
        .expect("discovery-sync runs");
    let import_time = started.elapsed().as_secs_f64();
    let (summary, _) = summary_of("discovery-sync", &output);
    let n = plan.import as u64;
    assert_eq!(summary["created"].as_u64(), Some(n), "summary {summary}");
    assert_eq!(summary["skipped"].as_u64(), Some(0), "summary {summary}");
    let stored = count(
        db,
        &format!(
            "SELECT count(*) AS n FROM task_mapping WHERE user_id = '{}'",
            importer.id
        ),
    );
    assert_eq!(
        stored, plan.import as i64,
        "the imported rows in the database"
    );

    // The baseline: the same rows (the importer's ids, labels, tags, minutes and times, no
    // foundation as no rule matches) as multi-row INSERTs of 1,000, each its own transaction.
    let started = Instant::now();
    let parsed = toggl::parse(
        std::fs::read(&file).unwrap().as_slice(),
        CsvOptions::new(UtcOffset::UTC),
    )
    .unwrap();
    let parse_time = started.elapsed().as_secs_f64();
    assert_eq!(parsed.entries.len(), plan.import);
    let now = pdt(OffsetDateTime::now_utc());
    let rows: Vec<Row> = parsed
        .entries
        .iter()
        .map(|e| Row {
            id: uuid::Uuid::now_v7().to_string(),
            user_id: baseline.id.clone(),
            external_task_id: e.external_task_id.clone(),
            task_label: e.task_label.clone(),
            foundation: None,
            minutes: i32::try_from(e.minutes).unwrap(),
            occurred_at: pdt(e.occurred_at),
            created_at: now,
            updated_at: now,
            tags: serde_json::to_string(&e.tags).unwrap(),
            mapped_by: None,
        })
        .collect();
    let mut conn = db.connection().unwrap();
    let started = Instant::now();
    for chunk in rows.chunks(1_000) {
        let n = diesel::insert_into(task_mapping::table)
            .values(chunk)
            .execute(pg(&mut conn))
            .unwrap();
        assert_eq!(n, chunk.len());
    }
    let raw_time = started.elapsed().as_secs_f64();
    drop(conn);
    let stored = count(
        db,
        &format!(
            "SELECT count(*) AS n FROM task_mapping WHERE user_id = '{}'",
            baseline.id
        ),
    );
    assert_eq!(stored, plan.import as i64, "the raw rows in the database");

    // Where the time goes. The client alone: a dry run does everything but send (reads,
    // parses, makes the ids and the JSON bodies, and prints them). The service alone: the same
    // bodies posted one after another by this process, for a third person. The service's SQL
    // alone: the same rows written as its batch upsert writes new entries (INSERT ... ON
    // CONFLICT DO NOTHING, a statement and a transaction per 1,000), for a fourth.
    let started = Instant::now();
    let dry = sync_command(&file)
        .arg("--dry-run")
        .output()
        .expect("discovery-sync --dry-run runs");
    let client_time = started.elapsed().as_secs_f64();
    assert!(dry.status.success(), "discovery-sync --dry-run failed");
    let printed = String::from_utf8(dry.stdout).unwrap();
    let mut bodies: Vec<String> = printed.lines().map(str::to_owned).collect();
    bodies.pop(); // The summary.
    drop(printed);
    assert_eq!(
        bodies.len(),
        plan.import.div_ceil(1_000),
        "one body per batch"
    );
    let alone = rt.block_on(server.person("service-alone@example.org"));
    let started = Instant::now();
    let mut created = 0;
    for body in bodies {
        created += rt.block_on(server.post_batch(&alone.key, body));
    }
    let service_time = started.elapsed().as_secs_f64();
    assert_eq!(created, n, "the service alone created every entry");
    let upserter = rt.block_on(server.person("raw-upsert@example.org"));
    let mut rows = rows;
    for row in &mut rows {
        row.id = uuid::Uuid::now_v7().to_string();
        row.user_id.clone_from(&upserter.id);
    }
    let upsert_time = raw_upsert(db, &rows);
    drop(rows);

    let (rate, raw_rate) = (n as f64 / import_time, n as f64 / raw_time);
    report.push(format!(
        "import: discovery-sync toggl --csv ({} rows, {:.0} MB) {import_time:.1} s, created {}; \
         raw INSERT of the same rows {raw_time:.1} s; parsing the file alone {parse_time:.1} s",
        thousands(n as i64),
        bytes as f64 / 1_048_576.0,
        thousands(summary["created"].as_i64().unwrap()),
    ));
    report.push(ratio_line(
        "import: discovery-sync toggl end to end vs raw batched INSERT (1,000 rows a statement)",
        rate,
        raw_rate,
        "rows/s",
        0.5,
        true,
    ));
    report.push(format!(
        "import, where the time goes (each beside the raw INSERT's {raw_time:.1} s): the client \
         alone (--dry-run: read, parse, ids, JSON bodies) {client_time:.1} s; the service alone \
         (the same {} bodies posted in turn) {service_time:.1} s = {:.2}x the raw rate; the \
         service's SQL alone (INSERT ... ON CONFLICT DO NOTHING, a statement and a transaction \
         per 1,000) {upsert_time:.1} s = {:.2}x the raw rate",
        plan.import.div_ceil(1_000),
        raw_time / service_time,
        raw_time / upsert_time
    ));
}

/// `discovery-sync toggl --csv FILE --utc-offset +00:00` with nothing but `PATH` from this
/// process's environment, output captured.
fn sync_command(file: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_discovery-sync"));
    command
        .args(["toggl", "--csv"])
        .arg(file)
        .args(["--utc-offset", "+00:00"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// `rows` written as the service's batch upsert writes them (adapters-diesel `upsert_many`):
/// seconds.
fn raw_upsert(db: &Database, rows: &[Row]) -> f64 {
    use task_mapping as tm;
    let mut conn = db.connection().unwrap();
    let conn = pg(&mut conn);
    let started = Instant::now();
    for batch in rows.chunks(1_000) {
        conn.transaction::<_, diesel::result::Error, _>(|c| {
            let inserted = diesel::insert_into(tm::table)
                .values(batch)
                .on_conflict((tm::user_id, tm::external_task_id))
                .do_nothing()
                .execute(c)?;
            assert_eq!(inserted, batch.len());
            Ok(())
        })
        .unwrap();
    }
    started.elapsed().as_secs_f64()
}

/// A directory under the system's temporary one, removed on drop.
struct ScratchDir(PathBuf);

impl ScratchDir {
    fn new() -> Self {
        let path = std::env::temp_dir().join(format!("discovery-scale-{}", uuid::Uuid::now_v7()));
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
