//! Re-classification after a rule change (issue 28, point 1), on SQLite and (when
//! `BENCH_DATABASE_URL` or `TEST_DATABASE_URL` names a server) PostgreSQL: the release
//! `discovery-api` over a fresh database where one heavy person has `BENCH_ENTRIES` entries
//! (default 1,000,000) and 499 rules of the four kinds (500, the most a person may have, with
//! the measured one), seeded by SQL with their match keys and with the foundation the rules give
//! them (decided while generating, with `domain::integration::RuleSet`). It measures:
//!
//! 1. **the rule write**: `POST /integration/rules` (a `label_contains "meeting"` rule at
//!    position 1, matching about 40% of the entries), then a `PUT` of it (another foundation),
//!    then its `DELETE`, each answered in at most 100 ms (target);
//! 2. **the job's throughput**: entries re-decided (the job's `total`) per second of wall time,
//!    from the rule write's answer until `GET /integration/reclassification` says idle (polled
//!    every 20 ms), for (a) those three changes, whose scope is the "meeting" entries and moves
//!    their foundation, and (b) a job over every candidate (a `reclassification` row with scope
//!    NULL inserted by SQL, as the migration queues one). Target: at least 50,000 entries/s.
//!    For comparison, one set-based `UPDATE` of the (a) rows (rolled back), and the raw
//!    database making the same writes as the job must, in short transactions of 16 and of 1,000
//!    rows by primary key (committed, then put back untimed). After every job,
//!    the entries are checked: a random sample of 10,000 against `domain::integration::
//!    first_match` over the rules as they finally stand (computed from the stored label and
//!    tags, not from the match keys), and every entry against the compiled rules;
//! 3. **another person's writes meanwhile**: sequential `POST /integration/task-mappings` (one
//!    upsert with a foundation) by a second person, p50 and p99, first with no job running for
//!    about the job's duration (the baseline), then while the job of (a) runs; the dashboard's
//!    20 ms progress poll runs in both. Target: p99 during at most 2x the baseline's. Between
//!    the two, the same writes beside a thread that only keeps one core busy (no database
//!    work): what the machine's cores alone do to that p99.
//!
//! The report (stdout, one line per figure, with its target) comes at the end; progress goes to
//! stderr. The service runs with its default 10 database connections. Run:
//! `cargo bench -p api-actix --bench reclassify` (`BENCH_ENTRIES=100000` for a small run).

// The 80-line limit is for the service's code (src/); a test or bench here is one scenario,
// read top to bottom, and splitting it would hide its steps.
#![allow(clippy::too_many_lines)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss,
    missing_debug_implementations
)]

mod support;

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use adapters_diesel::schema::{mapping_rules, reclassification, task_mapping};
use adapters_diesel::testing::TestDb;
use adapters_diesel::{DbConfig, DbConnection};
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use domain::foundation::Foundation;
use domain::ids::{RuleId, UserId};
use domain::integration::{
    EntryFacts, MatchKeys, MatchKind, Pattern, Rule, RuleMatch, RuleSet, first_match,
};
use serde_json::{Value, json};
use support::{Person, Server};
use time::format_description::well_known::Rfc3339;
use time::{OffsetDateTime, PrimitiveDateTime};

/// The service's default pool (`DATABASE_MAX_CONNECTIONS`).
const CONNECTIONS: usize = 10;
/// The most a person may have: 499 standing rules, and the measured one while it exists.
const RULES: usize = 500;
const SAMPLE: usize = 10_000;
const POLL: Duration = Duration::from_millis(20);
const WRITE_TARGET_MS: f64 = 100.0;
const RATE_TARGET: f64 = 50_000.0;
const P99_TARGET: f64 = 2.0;
/// The transaction sizes of the raw floors: the job's smallest and its largest on SQLite (the
/// PostgreSQL job's only one is the largest).
const SHORT_TRANSACTIONS: [usize; 2] = [16, 1_000];
/// The measured rule: at position 1, its label text is in about 42% of the labels.
const MEASURED: &str = "Meeting";

const SOURCES: [&str; 5] = ["toggl", "clockify", "aw", "cal", "tw"];
const VERBS: [&str; 20] = [
    "Write", "Review", "Plan", "Fix", "Call", "Read", "Design", "Test", "Deploy", "Draft", "Debug",
    "Prepare", "Update", "Research", "Email", "Sketch", "Refactor", "Present", "Organize", "Study",
];
const NOUNS: [&str; 50] = [
    "Report",
    "Budget",
    "Roadmap",
    "Invoice",
    "Slides",
    "Proposal",
    "Release",
    "Backlog",
    "Newsletter",
    "Contract",
    "Website",
    "Database",
    "Dashboard",
    "Onboarding",
    "Interview",
    "Workshop",
    "Podcast",
    "Article",
    "Chapter",
    "Thesis",
    "Garden",
    "Kitchen",
    "Taxes",
    "Groceries",
    "Workout",
    "Run",
    "Yoga",
    "Piano",
    "Guitar",
    "Spanish",
    "Family",
    "Kids",
    "Dinner",
    "Birthday",
    "Trip",
    "Doctor",
    "Dentist",
    "Car",
    "Bike",
    "House",
    "Server",
    "Pipeline",
    "Tests",
    "Docs",
    "Api",
    "Client",
    "Sprint",
    "Retro",
    "Standup",
    "Demo",
];
const TAG_GROUPS: [&str; 5] = ["Project", "Client", "Area", "Team", "Topic"];
const TAG_COUNT: u64 = 40;

fn main() {
    let entries: usize = env_number("BENCH_ENTRIES", 1_000_000);
    assert!(entries >= 1_000, "BENCH_ENTRIES: at least 1,000");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut report = vec![format!(
        "reclassify: {} entries of one person, {} standing rules + the measured one = {RULES}; 2 shared cores (figures are noisy \
         when other work runs)",
        thousands(entries),
        RULES - 1
    )];
    run_backend(&rt, "sqlite", entries, &TestDb::sqlite(), &mut report);
    match support::postgres_server() {
        Some(url) => {
            let db = TestDb::postgres_at(&url, |u| DbConfig::new(u));
            run_backend(&rt, "postgres", entries, &db, &mut report);
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

/// splitmix64: the entries' and rules' choices, the same in every run.
const fn mix(n: u64) -> u64 {
    let mut z = n.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn pick<T: Copy>(items: &[T], bits: u64) -> T {
    items[(bits % items.len() as u64) as usize]
}

fn tag_name(k: u64) -> String {
    format!("{}-{k}", pick(&TAG_GROUPS, k))
}

/// Entry `n` of the heavy person, as generated (the seed) and as checked.
struct Entry {
    external_task_id: String,
    label: Option<String>,
    tags: Vec<String>,
    /// Sent with a foundation (`mapped_by = 'client'`): no rule touches it.
    client: Option<Foundation>,
}

impl Entry {
    fn of(n: u64) -> Self {
        let h = mix(n);
        // Ids sort by source and project, as an importer's do; "toggl:p07:00001234".
        let external_task_id = format!("{}:p{:02}:{n:08}", pick(&SOURCES, h), (h >> 8) % 60);
        let noun = pick(&NOUNS, h >> 24);
        let label = match (h >> 16) % 100 {
            0..42 => Some(format!("{MEASURED}: {noun}")),
            42..95 => Some(format!("{} {noun}", pick(&VERBS, h >> 30))),
            _ => None,
        };
        let first = (h >> 40) % TAG_COUNT;
        let second = (h >> 48) % TAG_COUNT;
        let tags = match (h >> 36) % 10 {
            0..4 => vec![],
            4..8 => vec![tag_name(first)],
            _ if first == second => vec![tag_name(first)],
            _ => vec![tag_name(first), tag_name(second)],
        };
        let client = ((h >> 56) % 100 < 15).then(|| pick(&Foundation::ALL, h >> 4));
        Self {
            external_task_id,
            label,
            tags,
            client,
        }
    }

    fn keys(&self) -> MatchKeys {
        MatchKeys::of(&self.external_task_id, self.label.as_deref(), &self.tags)
    }

    fn facts(&self) -> EntryFacts<'_> {
        EntryFacts {
            external_task_id: &self.external_task_id,
            task_label: self.label.as_deref(),
            tags: &self.tags,
        }
    }

    fn in_measured_scope(&self) -> bool {
        self.client.is_none()
            && self
                .label
                .as_deref()
                .is_some_and(|l| l.to_lowercase().contains(&MEASURED.to_lowercase()))
    }
}

/// The entry's `n`, from the last 8 digits of its id.
fn entry_number(external_task_id: &str) -> u64 {
    external_task_id[external_task_id.len() - 8..]
        .parse()
        .unwrap()
}

/// Rule `i` (position `i + 1`): the four kinds in turn; some patterns match nothing here, as a
/// real person's older rules do.
fn standing_rule(i: usize) -> (MatchKind, String, Foundation) {
    let j = (i / 4) as u64;
    let h = mix(1_000_000 + i as u64);
    let foundation = pick(&Foundation::ALL, h);
    let (kind, pattern) = match i % 4 {
        0 => (
            MatchKind::LabelEquals,
            // Case differs from the labels': matching folds both.
            format!(
                "{} {}",
                pick(&VERBS, h >> 8).to_uppercase(),
                pick(&NOUNS, h >> 16)
            ),
        ),
        1 => (
            MatchKind::LabelContains,
            match j {
                0..30 => NOUNS[(j * 7 % 50) as usize].to_lowercase(),
                30..40 => VERBS[(j * 3 % 20) as usize].to_owned(),
                _ => format!("never {j}"),
            },
        ),
        2 => (
            MatchKind::Tag,
            if j < 30 {
                tag_name(j * 3 % TAG_COUNT).to_uppercase()
            } else {
                format!("unused-{j}")
            },
        ),
        _ => {
            let c = j * 7 % 300;
            (
                MatchKind::ExternalTaskIdPrefix,
                format!("{}:p{:02}:", pick(&SOURCES, c), c / 5),
            )
        }
    };
    (kind, pattern, foundation)
}

fn pdt(at: OffsetDateTime) -> PrimitiveDateTime {
    PrimitiveDateTime::new(at.date(), at.time())
}

#[derive(Insertable)]
#[diesel(table_name = task_mapping)]
#[diesel(treat_none_as_default_value = false)]
struct SeedRow<'a> {
    id: String,
    user_id: &'a str,
    external_task_id: String,
    task_label: Option<String>,
    foundation: Option<&'static str>,
    minutes: i32,
    occurred_at: PrimitiveDateTime,
    created_at: PrimitiveDateTime,
    updated_at: PrimitiveDateTime,
    tags: String,
    mapped_by: Option<&'static str>,
    match_label: Option<String>,
    match_tags: Option<String>,
    match_id: Option<String>,
}

/// What the seed holds, for the report and the checks.
#[derive(Default)]
struct Seeded {
    client: usize,
    by_rule: usize,
    unmapped: usize,
    /// Candidates whose label holds [`MEASURED`]: the scope of the measured change.
    measured_scope: usize,
    /// When the seed was written (every row's `updated_at`).
    at: Option<PrimitiveDateTime>,
}

impl Seeded {
    fn candidates(&self) -> usize {
        self.by_rule + self.unmapped
    }
}

/// The heavy person's rules, then their entries, straight into the database; then what
/// PostgreSQL's autovacuum would do (`VACUUM ANALYZE`; SQLite: nothing, as in service).
fn seed(conn: &mut DbConnection, user: &str, entries: usize) -> Seeded {
    let now = OffsetDateTime::now_utc().replace_nanosecond(0).unwrap();
    let created = pdt(now - time::Duration::days(1));
    for i in 0..RULES - 1 {
        let (kind, pattern, foundation) = standing_rule(i);
        diesel::insert_into(mapping_rules::table)
            .values((
                mapping_rules::id.eq(RuleId::new().to_string()),
                mapping_rules::user_id.eq(user),
                mapping_rules::position.eq(i32::try_from(i + 1).unwrap()),
                mapping_rules::match_kind.eq(kind.key()),
                mapping_rules::pattern.eq(pattern),
                mapping_rules::foundation.eq(foundation.key()),
                mapping_rules::created_at.eq(created),
            ))
            .execute(conn)
            .unwrap();
    }
    let rules = load_rules(conn, user);
    let set = RuleSet::new(&rules);
    let stamp = pdt(now);
    let mut seeded = Seeded {
        at: Some(stamp),
        ..Seeded::default()
    };
    let chunk = 50_000;
    for first in (0..entries).step_by(chunk) {
        let rows: Vec<SeedRow<'_>> = (first..(first + chunk).min(entries))
            .map(|n| {
                let entry = Entry::of(n as u64);
                let keys = entry.keys();
                let (foundation, mapped_by) = match entry.client {
                    Some(f) => {
                        seeded.client += 1;
                        (Some(f.key()), Some("client"))
                    }
                    None => match set.decide(&keys, &entry.external_task_id) {
                        Some(f) => {
                            seeded.by_rule += 1;
                            (Some(f.key()), Some("rule"))
                        }
                        None => {
                            seeded.unmapped += 1;
                            (None, None)
                        }
                    },
                };
                if entry.in_measured_scope() {
                    seeded.measured_scope += 1;
                }
                let occurred = pdt(now - time::Duration::seconds(30 * (n as i64 + 1)));
                SeedRow {
                    id: uuid::Uuid::now_v7().to_string(),
                    user_id: user,
                    tags: serde_json::to_string(&entry.tags).unwrap(),
                    external_task_id: entry.external_task_id,
                    task_label: entry.label,
                    foundation,
                    minutes: 5 + (n % 115) as i32,
                    occurred_at: occurred,
                    created_at: stamp,
                    updated_at: stamp,
                    mapped_by,
                    match_label: keys.label,
                    match_tags: Some(keys.tags),
                    match_id: keys.id,
                }
            })
            .collect();
        // 14 parameters a row: 14,000 a statement, below both backends' limits.
        match conn {
            DbConnection::Sqlite(c) => c
                .immediate_transaction(|c| {
                    for part in rows.chunks(1_000) {
                        diesel::insert_into(task_mapping::table)
                            .values(part)
                            .execute(c)?;
                    }
                    QueryResult::Ok(())
                })
                .unwrap(),
            DbConnection::Postgresql(c) => c
                .transaction(|c| {
                    for part in rows.chunks(1_000) {
                        diesel::insert_into(task_mapping::table)
                            .values(part)
                            .execute(c)?;
                    }
                    QueryResult::Ok(())
                })
                .unwrap(),
        }
    }
    if let DbConnection::Postgresql(c) = conn {
        c.batch_execute("VACUUM ANALYZE").unwrap();
    }
    seeded
}

type RuleRow = (String, i32, String, String, String, PrimitiveDateTime);

/// The person's rules as stored, as the domain's [`Rule`]s.
fn load_rules(conn: &mut DbConnection, user: &str) -> Vec<Rule> {
    use mapping_rules as r;
    let rows: Vec<RuleRow> = r::table
        .filter(r::user_id.eq(user))
        .select((
            r::id,
            r::position,
            r::match_kind,
            r::pattern,
            r::foundation,
            r::created_at,
        ))
        .load(conn)
        .unwrap();
    let user_id: UserId = user.parse().unwrap();
    rows.into_iter()
        .map(
            |(id, position, kind, pattern, foundation, created_at)| Rule {
                id: id.parse().unwrap(),
                user_id,
                position: u32::try_from(position).unwrap(),
                matcher: RuleMatch::new(
                    MatchKind::from_key(&kind).unwrap(),
                    Pattern::non_blank(pattern).unwrap(),
                ),
                foundation: foundation.parse().unwrap(),
                created_at: created_at.assume_utc(),
            },
        )
        .collect()
}

/// A stored entry: id, label, tags, foundation, mapped_by, match_label, match_tags, match_id.
type StoredRow = (
    String,
    Option<String>,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
);

const STORED: (
    task_mapping::external_task_id,
    task_mapping::task_label,
    task_mapping::tags,
    task_mapping::foundation,
    task_mapping::mapped_by,
    task_mapping::match_label,
    task_mapping::match_tags,
    task_mapping::match_id,
) = (
    task_mapping::external_task_id,
    task_mapping::task_label,
    task_mapping::tags,
    task_mapping::foundation,
    task_mapping::mapped_by,
    task_mapping::match_label,
    task_mapping::match_tags,
    task_mapping::match_id,
);

/// Why a stored row is not what one atomic pass of `decide` gives, if it is not.
fn wrong(row: &StoredRow, decide: &dyn Fn(&Entry) -> Option<Foundation>) -> Option<String> {
    let (id, label, tags, foundation, mapped_by, match_label, match_tags, match_id) = row;
    let generated = Entry::of(entry_number(id));
    let stored = Entry {
        external_task_id: id.clone(),
        label: label.clone(),
        tags: serde_json::from_str(tags).unwrap(),
        client: None,
    };
    if stored.label != generated.label || stored.tags != generated.tags {
        return Some(format!("{id}: label or tags changed"));
    }
    let keys = stored.keys();
    if (match_label, match_tags.as_deref(), match_id) != (&keys.label, Some(&*keys.tags), &keys.id)
    {
        return Some(format!("{id}: match keys differ from the fold"));
    }
    let expected = match generated.client {
        Some(f) => (Some(f.key()), Some("client")),
        None => {
            let decided = decide(&stored);
            (decided.map(Foundation::key), decided.map(|_| "rule"))
        }
    };
    let actual = (foundation.as_deref(), mapped_by.as_deref());
    (actual != expected).then(|| format!("{id}: stored {actual:?}, one atomic pass {expected:?}"))
}

/// Checks the person's entries against one atomic pass over the rules as they now stand: a
/// random sample against `first_match` (from the stored label and tags), and every entry
/// against the compiled rules. Panics on a difference; returns how many were checked.
fn check(
    conn: &mut DbConnection,
    user: &str,
    entries: usize,
    seed: u64,
    what: &str,
) -> (usize, usize) {
    use task_mapping as tm;
    let queued: i64 = reclassification::table
        .filter(reclassification::user_id.eq(user))
        .count()
        .get_result(conn)
        .unwrap();
    assert_eq!(queued, 0, "{what}: the job is gone once idle");
    let rules = load_rules(conn, user);
    // The sample: distinct entry numbers, their ids regenerated.
    let mut picked = std::collections::BTreeSet::new();
    let mut state = mix(seed);
    while picked.len() < SAMPLE.min(entries) {
        state = mix(state);
        picked.insert(state % entries as u64);
    }
    let ids: Vec<String> = picked
        .iter()
        .map(|&n| Entry::of(n).external_task_id)
        .collect();
    let mut sampled = 0;
    for part in ids.chunks(500) {
        let rows: Vec<StoredRow> = tm::table
            .filter(tm::user_id.eq(user))
            .filter(tm::external_task_id.eq_any(part))
            .select(STORED)
            .load(conn)
            .unwrap();
        assert_eq!(
            rows.len(),
            part.len(),
            "{what}: every sampled entry is there"
        );
        for row in &rows {
            if let Some(why) = wrong(row, &|e| first_match(&rules, &e.facts())) {
                panic!("{what}, against first_match: {why}");
            }
        }
        sampled += rows.len();
    }
    let set = RuleSet::new(&rules);
    let mut all = 0;
    let mut after = String::new();
    loop {
        let rows: Vec<StoredRow> = tm::table
            .filter(tm::user_id.eq(user))
            .filter(tm::external_task_id.gt(&after))
            .order(tm::external_task_id.asc())
            .limit(50_000)
            .select(STORED)
            .load(conn)
            .unwrap();
        let Some(last) = rows.last() else { break };
        after.clone_from(&last.0);
        for row in &rows {
            if let Some(why) = wrong(row, &|e| set.decide(&e.keys(), &e.external_task_id)) {
                panic!("{what}, against the compiled rules: {why}");
            }
        }
        all += rows.len();
    }
    assert_eq!(all, entries, "{what}: every entry is there");
    (sampled, all)
}

/// Rows written since `since` (`updated_at`) among the person's entries.
fn written_since(conn: &mut DbConnection, user: &str, since: PrimitiveDateTime) -> i64 {
    use task_mapping as tm;
    tm::table
        .filter(tm::user_id.eq(user))
        .filter(tm::updated_at.gt(since))
        .count()
        .get_result(conn)
        .unwrap()
}

/// The floor of the measured change: one set-based UPDATE giving the scope's rows a
/// foundation, timed, then rolled back. Rows per second.
fn set_based_floor(conn: &mut DbConnection, user: &str, rows: usize) -> f64 {
    // The user id is a UUID the service made: safe to inline, and the same SQL on both.
    let sql = format!(
        "UPDATE task_mapping SET foundation = 'vocation', mapped_by = 'rule',
                updated_at = CURRENT_TIMESTAMP
         WHERE user_id = '{user}' AND (mapped_by IS NULL OR mapped_by = 'rule')
           AND match_label LIKE '%{}%'",
        MEASURED.to_lowercase()
    );
    let mut elapsed = 0.0;
    let outcome = conn.transaction::<(), diesel::result::Error, _>(|c| {
        let started = Instant::now();
        let n = diesel::sql_query(&sql).execute(c)?;
        elapsed = started.elapsed().as_secs_f64();
        assert_eq!(n, rows, "the set-based UPDATE's rows");
        Err(diesel::result::Error::RollbackTransaction)
    });
    assert!(matches!(
        outcome,
        Err(diesel::result::Error::RollbackTransaction)
    ));
    rows as f64 / elapsed
}

/// The same writes as the measured change, by the raw database the way the job must make them:
/// in short transactions of `size` rows (in external id order, by primary key, as the job
/// writes), committed; on PostgreSQL without waiting for the WAL flush, as the job's. Then
/// the rows are put back as they were (not timed). Rows per second.
fn short_transaction_floor(conn: &mut DbConnection, user: &str, size: usize) -> f64 {
    use task_mapping as tm;
    let pattern = format!("%{}%", MEASURED.to_lowercase());
    let candidate = tm::mapped_by.is_null().or(tm::mapped_by.eq("rule"));
    let rows: Vec<(String, Option<String>, Option<String>)> = tm::table
        .filter(tm::user_id.eq(user))
        .filter(candidate)
        .filter(tm::match_label.like(&pattern))
        .order(tm::external_task_id.asc())
        .select((tm::external_task_id, tm::foundation, tm::mapped_by))
        .load(conn)
        .unwrap();
    let now = pdt(OffsetDateTime::now_utc());
    let postgres = matches!(conn, DbConnection::Postgresql(_));
    let started = Instant::now();
    for chunk in rows.chunks(size) {
        let ids: Vec<&str> = chunk.iter().map(|r| r.0.as_str()).collect();
        conn.transaction::<_, diesel::result::Error, _>(|c| {
            if postgres {
                c.batch_execute("SET LOCAL synchronous_commit = off")?;
            }
            diesel::update(
                tm::table
                    .filter(tm::user_id.eq(user))
                    .filter(tm::external_task_id.eq_any(&ids)),
            )
            .set((
                tm::foundation.eq("vocation"),
                tm::mapped_by.eq("rule"),
                tm::updated_at.eq(now),
            ))
            .execute(c)
        })
        .unwrap();
    }
    let rate = rows.len() as f64 / started.elapsed().as_secs_f64();
    let mut before: std::collections::HashMap<(Option<String>, Option<String>), Vec<&str>> =
        std::collections::HashMap::new();
    for (id, foundation, mapped_by) in &rows {
        before
            .entry((foundation.clone(), mapped_by.clone()))
            .or_default()
            .push(id);
    }
    for ((foundation, mapped_by), ids) in before {
        for chunk in ids.chunks(1_000) {
            diesel::update(
                tm::table
                    .filter(tm::user_id.eq(user))
                    .filter(tm::external_task_id.eq_any(chunk)),
            )
            .set((tm::foundation.eq(&foundation), tm::mapped_by.eq(&mapped_by)))
            .execute(conn)
            .unwrap();
        }
    }
    rate
}

/// The HTTP side: the heavy person's rule changes and progress, the other person's writes.
struct Client<'a> {
    http: reqwest::Client,
    server: &'a Server,
}

impl Client<'_> {
    /// A rule change; its answer's time and body (the rule, or nothing for a DELETE).
    async fn rule_change(
        &self,
        key: &str,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
        status: u16,
    ) -> (Duration, Value) {
        let mut request = self
            .http
            .request(method.clone(), self.server.url(path))
            .header("X-API-Key", key);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let started = Instant::now();
        let response = request.send().await.unwrap();
        let got = response.status().as_u16();
        let text = response.text().await.unwrap();
        let elapsed = started.elapsed();
        assert_eq!(got, status, "{method} {path}: {text}");
        (elapsed, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// `GET /integration/reclassification`: running, done, total.
    async fn progress(&self, key: &str) -> (bool, u64, u64) {
        let answer: Value = self
            .http
            .get(self.server.url("/integration/reclassification"))
            .header("X-API-Key", key)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        (
            answer["state"] == "running",
            answer["done"].as_u64().unwrap(),
            answer["total"].as_u64().unwrap(),
        )
    }

    /// Polls every [`POLL`] from `started` until idle; the seconds from `started` and the
    /// largest `total` seen. With `until`, only polls for that long (a baseline's poll).
    async fn wait_idle(
        &self,
        key: &str,
        started: Instant,
        until: Option<Duration>,
        finished: &Cell<bool>,
    ) -> (f64, u64) {
        let mut total = 0;
        let mut last_report = Instant::now();
        loop {
            let (running, done, seen) = self.progress(key).await;
            total = total.max(seen);
            let over = until.is_some_and(|d| started.elapsed() >= d);
            if (!running && until.is_none()) || over {
                finished.set(true);
                return (started.elapsed().as_secs_f64(), total);
            }
            if running && last_report.elapsed() > Duration::from_secs(5) {
                eprintln!("  job: {done} of {seen}");
                last_report = Instant::now();
            }
            assert!(
                started.elapsed() < Duration::from_secs(3_600),
                "the job did not finish within an hour"
            );
            tokio::time::sleep(POLL).await;
        }
    }

    /// Sequential single upserts by `person` until `finished`: each one's milliseconds.
    async fn other_writes(
        &self,
        person: &Person,
        next: &Cell<u64>,
        finished: &Cell<bool>,
    ) -> Vec<f64> {
        let url = self.server.url("/integration/task-mappings");
        let mut latencies = Vec::new();
        let now = OffsetDateTime::now_utc().replace_nanosecond(0).unwrap();
        while !finished.get() {
            let n = next.get();
            next.set(n + 1);
            let body = json!({
                "external_task_id": format!("other:{n:08}"),
                "task_label": "Focused work",
                "foundation": pick(&Foundation::ALL, n).key(),
                "minutes": 25,
                "occurred_at": (now - time::Duration::seconds(i64::try_from(n).unwrap()))
                    .format(&Rfc3339).unwrap(),
            });
            let started = Instant::now();
            let response = self
                .http
                .post(&url)
                .header("X-API-Key", &person.key)
                .json(&body)
                .send()
                .await
                .unwrap();
            let status = response.status();
            let _ = response.bytes().await.unwrap();
            latencies.push(started.elapsed().as_secs_f64() * 1_000.0);
            assert_eq!(status, 201, "POST /integration/task-mappings");
        }
        latencies
    }
}

/// One job's figures.
struct Job {
    /// The rule write's answer time (none for the job queued by SQL).
    write: Option<Duration>,
    seconds: f64,
    total: u64,
}

impl Job {
    fn rate(&self) -> f64 {
        self.total as f64 / self.seconds
    }
}

fn met(ok: bool) -> &'static str {
    if ok { "met" } else { "NOT met" }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

#[allow(clippy::too_many_lines)]
fn run_backend(
    rt: &tokio::runtime::Runtime,
    name: &str,
    entries: usize,
    db: &TestDb,
    report: &mut Vec<String>,
) {
    let server = Server::start(db.url(), CONNECTIONS);
    let heavy = rt.block_on(server.person("heavy@example.org"));
    let other = rt.block_on(server.person("other@example.org"));
    let database = db.db();
    let mut pooled = database.connection().unwrap();
    let conn: &mut DbConnection = &mut pooled;
    let user = heavy.id.as_str();

    let started = Instant::now();
    let seeded = seed(conn, user, entries);
    let seed_time = started.elapsed().as_secs_f64();
    let share = |n: usize| 100.0 * n as f64 / entries as f64;
    report.push(format!(
        "{name}: seed {} entries ({:.0}% sent with a foundation, {:.0}% rule-mapped, {:.0}% \
         unmapped; {} in the measured rule's scope) and {} rules by SQL in {seed_time:.1} s",
        thousands(entries),
        share(seeded.client),
        share(seeded.by_rule),
        share(seeded.unmapped),
        thousands(seeded.measured_scope),
        RULES - 1,
    ));
    eprintln!("{}", report.last().unwrap());
    let (sampled, all) = check(conn, user, entries, 1, "the seed");
    eprintln!("{name}: the seed checked ({sampled} sampled, {all} in all)");

    let client = Client {
        // Below the service's 5 s keep-alive: between phases this single-threaded runtime does
        // not run, so a connection the service closed meanwhile would be handed out again.
        http: reqwest::Client::builder()
            .pool_idle_timeout(Duration::from_secs(2))
            .build()
            .unwrap(),
        server: &server,
    };
    let idle = Cell::new(false);
    let mut checks = 1;

    // (b) Every candidate decided: a job with scope NULL, queued by SQL as the migration does.
    let since = seeded.at.unwrap();
    diesel::insert_into(reclassification::table)
        .values((
            reclassification::user_id.eq(user),
            reclassification::generation.eq(1_i64),
            reclassification::scope.eq(None::<String>),
            reclassification::done.eq(0_i64),
        ))
        .execute(conn)
        .unwrap();
    let started = Instant::now();
    idle.set(false);
    let (seconds, total) = rt.block_on(client.wait_idle(&heavy.key, started, None, &idle));
    let every = Job {
        write: None,
        seconds,
        total,
    };
    assert_eq!(
        every.total,
        seeded.candidates() as u64,
        "the full job's total: every candidate"
    );
    // The seed was what the rules give: nothing to change.
    assert_eq!(
        written_since(conn, user, since),
        0,
        "the full job over a consistent seed writes nothing"
    );
    check(conn, user, entries, 2, "after the full job");
    checks += 1;
    eprintln!("{name}: full job {:.0} entries/s", every.rate());

    // (a) The measured rule: POST, PUT, DELETE, each job waited for and checked.
    let mut changes: Vec<(&str, Job)> = Vec::new();
    let measured =
        |foundation: &str| json!({"match": {"label_contains": MEASURED}, "foundation": foundation});
    let mut body = measured("vocation");
    body["position"] = json!(1);
    let mut rule_id = String::new();
    for (label, method, status) in [
        ("POST", reqwest::Method::POST, 201),
        ("PUT", reqwest::Method::PUT, 200),
        ("DELETE", reqwest::Method::DELETE, 204),
    ] {
        let (path, body) = match label {
            "POST" => ("/integration/rules".to_owned(), Some(body.clone())),
            "PUT" => (
                format!("/integration/rules/{rule_id}"),
                Some(measured("love")),
            ),
            _ => (format!("/integration/rules/{rule_id}"), None),
        };
        let (write, answer) =
            rt.block_on(client.rule_change(&heavy.key, method, &path, body, status));
        let started = Instant::now();
        if label == "POST" {
            assert_eq!(answer["position"], 1, "the rule is first");
            rule_id = answer["id"].as_str().unwrap().to_owned();
        }
        idle.set(false);
        let (seconds, total) = rt.block_on(client.wait_idle(&heavy.key, started, None, &idle));
        let job = Job {
            write: Some(write),
            seconds,
            total,
        };
        assert_eq!(
            job.total, seeded.measured_scope as u64,
            "{label}: the job's total is the rule's scope"
        );
        check(conn, user, entries, 3 + checks, label);
        checks += 1;
        eprintln!(
            "{name}: {label} answered in {:.1} ms, its job {:.0} entries/s",
            write.as_secs_f64() * 1e3,
            job.rate()
        );
        changes.push((label, job));
    }
    let floor = set_based_floor(conn, user, seeded.measured_scope);
    let short_floors: Vec<(usize, f64)> = SHORT_TRANSACTIONS
        .iter()
        .map(|&size| (size, short_transaction_floor(conn, user, size)))
        .collect();
    check(
        conn,
        user,
        entries,
        99,
        "after the short-transaction floors",
    );

    // (3) The other person's writes: the baseline for about the POST job's duration, then
    // while the same POST's job runs again (the data as before: the DELETE undid it).
    let window = Duration::from_secs_f64(changes[0].1.seconds.max(2.0));
    let next = Cell::new(0);
    idle.set(false);
    let started = Instant::now();
    let (mut baseline, _) = rt.block_on(async {
        tokio::join!(
            client.other_writes(&other, &next, &idle),
            client.wait_idle(&heavy.key, started, Some(window), &idle),
        )
    });
    // The same writes beside a thread that only keeps one core busy, with no database work:
    // what the shared cores leave the other person beside any job that uses a core.
    idle.set(false);
    let spinning = Arc::new(AtomicBool::new(true));
    let spinner = {
        let spinning = Arc::clone(&spinning);
        std::thread::spawn(move || {
            let mut x = 0_u64;
            while spinning.load(Ordering::Relaxed) {
                x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
            }
        })
    };
    let started = Instant::now();
    let (mut busy_core, _) = rt.block_on(async {
        tokio::join!(
            client.other_writes(&other, &next, &idle),
            client.wait_idle(&heavy.key, started, Some(window), &idle),
        )
    });
    spinning.store(false, Ordering::Relaxed);
    spinner.join().unwrap();
    idle.set(false);
    let (mut during, (during_write, during_job)) = rt.block_on(async {
        let job = async {
            let (write, _) = client
                .rule_change(
                    &heavy.key,
                    reqwest::Method::POST,
                    "/integration/rules",
                    Some(body.clone()),
                    201,
                )
                .await;
            let started = Instant::now();
            let (seconds, total) = client.wait_idle(&heavy.key, started, None, &idle).await;
            (
                write,
                Job {
                    write: Some(write),
                    seconds,
                    total,
                },
            )
        };
        tokio::join!(client.other_writes(&other, &next, &idle), job)
    });
    assert_eq!(during_job.total, seeded.measured_scope as u64);
    check(conn, user, entries, 100, "after the POST under load");
    checks += 1;
    drop(server);

    // The report.
    for (label, job) in &changes {
        let ms = job.write.unwrap().as_secs_f64() * 1e3;
        report.push(format!(
            "{name}: {label} /integration/rules{} answered in {ms:.1} ms (target <= \
             {WRITE_TARGET_MS:.0} ms: {})",
            if *label == "POST" { "" } else { "/{id}" },
            met(ms <= WRITE_TARGET_MS)
        ));
    }
    let job_line = |what: &str, job: &Job| {
        format!(
            "{name}: job {what}: {} entries re-decided in {:.2} s = {} entries/s (target >= \
             {}: {})",
            thousands(job.total as usize),
            job.seconds,
            thousands(job.rate() as usize),
            thousands(RATE_TARGET as usize),
            met(job.rate() >= RATE_TARGET)
        )
    };
    for (label, job) in &changes {
        report.push(job_line(
            &format!(
                "(a) after the {label} (scope: label contains \"meeting\", {label_moves})",
                label_moves = if *label == "DELETE" {
                    "back to the other rules"
                } else {
                    "all moved"
                }
            ),
            job,
        ));
    }
    report.push(job_line(
        "(b) over every candidate (scope NULL, queued by SQL; nothing to change)",
        &every,
    ));
    report.push(format!(
        "{name}: for comparison, one set-based UPDATE of the (a) rows (rolled back): {} rows/s; \
         the POST's job is {:.2}x of it",
        thousands(floor as usize),
        changes[0].1.rate() / floor
    ));
    for (size, rate) in &short_floors {
        report.push(format!(
            "{name}: for comparison, the raw database making the same writes in transactions of \
             {size} rows (by primary key, committed): {} rows/s; the POST's job is {:.2}x of it",
            thousands(*rate as usize),
            changes[0].1.rate() / rate
        ));
    }
    report.push(format!(
        "{name}: correctness: after the seed and each of the {} jobs, {} sampled entries equal \
         first_match over the final rules and all {} equal the compiled rules: yes",
        checks - 1,
        thousands(SAMPLE.min(entries)),
        thousands(entries)
    ));
    baseline.sort_by(f64::total_cmp);
    during.sort_by(f64::total_cmp);
    let (b50, b99) = (percentile(&baseline, 0.5), percentile(&baseline, 0.99));
    let (d50, d99) = (percentile(&during, 0.5), percentile(&during, 0.99));
    report.push(format!(
        "{name}: other person's POST /integration/task-mappings: baseline p50 {b50:.2} ms p99 \
         {b99:.2} ms ({} requests, {:.1} s); during the (a) job p50 {d50:.2} ms p99 {d99:.2} ms \
         ({} requests, {:.1} s); p99 ratio {:.2}x (target <= {P99_TARGET}x: {}), p50 ratio \
         {:.2}x",
        baseline.len(),
        window.as_secs_f64(),
        during.len(),
        during_job.seconds,
        d99 / b99,
        met(d99 / b99 <= P99_TARGET),
        d50 / b50
    ));
    busy_core.sort_by(f64::total_cmp);
    let (c50, c99) = (percentile(&busy_core, 0.5), percentile(&busy_core, 0.99));
    report.push(format!(
        "{name}: the same writes beside a thread that only keeps one core busy (no database \
         work, no job): p50 {c50:.2} ms p99 {c99:.2} ms ({} requests); p99 ratio {:.2}x of the \
         baseline",
        busy_core.len(),
        c99 / b99
    ));
    report.push(format!(
        "{name}: meanwhile the POST answered in {:.1} ms and its job ran at {} entries/s",
        during_write.as_secs_f64() * 1e3,
        thousands(during_job.rate() as usize)
    ));
}

/// 1234567 as "1,234,567".
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
