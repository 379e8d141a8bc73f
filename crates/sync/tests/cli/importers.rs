//! The importers end to end: a fixture file through the real binary into the real service,
//! whose rules (created through `/integration/rules`) classify the entries. Every expected
//! number is worked out from the fixture by `expected`, never copied from an output.

use std::collections::BTreeMap;

use serde_json::Value;
use time::macros::offset;
use time::{Duration, OffsetDateTime, UtcOffset};

use crate::expected::{self, Entry, Expected, FOUNDATIONS};
use crate::harness::{App, minutes_of, run_sync, spawn_app};

/// One tracker's fixture and how to run it.
struct Case {
    command: &'static str,
    /// `--csv` or `--export`.
    file_flag: &'static str,
    fixture: &'static str,
    /// The flags the format needs besides the file.
    flags: &'static [&'static str],
    /// Rules in order: `(tag, foundation)`.
    rules: &'static [(&'static str, &'static str)],
    expected: Expected,
}

const CSV_RULES: &[(&str, &str)] = &[
    ("project:Website", "vocation"),
    // After the project rule: an entry of Website tagged review stays vocation.
    ("review", "love"),
    ("project:Reading", "strength"),
    ("admin", "mission"),
];

const AW_RULES: &[(&str, &str)] = &[
    ("app:Code", "vocation"),
    ("app:Firefox", "mission"),
    // A whole machine: Code there is already vocation (the rule above comes first).
    ("host:studio", "love"),
];

fn fixture(name: &str) -> String {
    format!(
        "{}/tests/fixtures/import/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn read(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).expect("the fixture")
}

const TOGGL_OFFSET: UtcOffset = offset!(+2);
const CLOCKIFY_OFFSET: UtcOffset = offset!(-5);

fn toggl() -> Case {
    Case {
        command: "toggl",
        file_flag: "--csv",
        fixture: "toggl_detailed.csv",
        // A team export: Elena's rows (Mira's are left out, and counted).
        // The fixtures are dirty on purpose: a quarter of their rows or so is skipped.
        flags: &[
            "--utc-offset",
            "+02:00",
            "--user",
            "elena@example.org",
            "--max-skipped",
            "50%",
        ],
        rules: CSV_RULES,
        expected: expected::toggl(
            &read("toggl_detailed.csv"),
            TOGGL_OFFSET,
            "elena@example.org",
        ),
    }
}

fn clockify() -> Case {
    Case {
        command: "clockify",
        file_flag: "--csv",
        fixture: "clockify_detailed.csv",
        flags: &["--utc-offset", "-05:00", "--max-skipped", "50%"],
        rules: CSV_RULES,
        expected: expected::clockify(&read("clockify_detailed.csv"), CLOCKIFY_OFFSET),
    }
}

fn activitywatch() -> Case {
    Case {
        command: "activitywatch",
        file_flag: "--export",
        fixture: "activitywatch_export.json",
        flags: &["--max-skipped", "50%"],
        rules: AW_RULES,
        expected: expected::activitywatch(&read("activitywatch_export.json")),
    }
}

impl Case {
    /// `discovery-sync <command> <file flag> <fixture> <flags> --url <address> <more>`.
    fn args(&self, address: &str, more: &[&str]) -> Vec<String> {
        let mut args: Vec<String> = vec![
            self.command.into(),
            self.file_flag.into(),
            fixture(self.fixture),
            "--url".into(),
            address.into(),
        ];
        args.extend(self.flags.iter().map(|f| (*f).to_owned()));
        args.extend(more.iter().map(|f| (*f).to_owned()));
        args
    }

    async fn run(&self, app: &App, key: Option<&str>, more: &[&str]) -> crate::harness::Run {
        let args = self.args(&app.address, more);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let env: Vec<(&str, &str)> = key.map(|k| ("DISCOVERY_API_KEY", k)).into_iter().collect();
        run_sync(&args, &env, None).await
    }

    async fn person(&self, app: &App, what: &str) -> String {
        let key = app
            .person_with_key(&format!("{}-{what}@example.org", self.command))
            .await;
        for (tag, foundation) in self.rules {
            app.tag_rule(&key, tag, foundation).await;
        }
        key
    }

    async fn stored(&self, app: &App, key: &str) -> Vec<Value> {
        let (from, to) = self.expected.window();
        app.mappings_between(key, from, to).await
    }
}

/// The stored mappings as entries (tags, minutes, start), sorted.
fn as_entries(stored: &[Value]) -> Vec<Entry> {
    let mut entries: Vec<Entry> = stored
        .iter()
        .map(|m| Entry {
            occurred_at: OffsetDateTime::parse(
                m["occurred_at"].as_str().expect("occurred_at"),
                &time::format_description::well_known::Rfc3339,
            )
            .expect("RFC 3339"),
            minutes: m["minutes"].as_i64().expect("minutes"),
            // A dry run's body leaves out an empty tag list (the service's default).
            tags: m["tags"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .iter()
                .map(|t| t.as_str().expect("a tag").to_owned())
                .collect(),
        })
        .collect();
    entries.sort();
    entries
}

/// Minutes per foundation (all six) and unmapped, summed from the listing.
fn listed_totals(stored: &[Value]) -> (BTreeMap<String, i64>, i64) {
    let mut per: BTreeMap<String, i64> = FOUNDATIONS.iter().map(|f| ((*f).to_owned(), 0)).collect();
    let mut unmapped = 0;
    for m in stored {
        let minutes = m["minutes"].as_i64().expect("minutes");
        match m["foundation"].as_str() {
            Some(f) => *per.get_mut(f).expect("one of the six") += minutes,
            None => unmapped += minutes,
        }
    }
    (per, unmapped)
}

/// The fields that must not change on a re-run (everything but `updated_at`), by id.
fn by_id(stored: &[Value]) -> BTreeMap<String, Value> {
    stored
        .iter()
        .map(|m| {
            let mut m = m.clone();
            if let Some(object) = m.as_object_mut() {
                object.remove("updated_at");
            }
            (m["external_task_id"].as_str().expect("an id").to_owned(), m)
        })
        .collect()
}

async fn rules_classify_the_import_to_the_minute_and_a_rerun_changes_nothing(case: Case) {
    let expected = &case.expected;
    assert!(
        !expected.entries.is_empty() && !expected.bad.is_empty(),
        "the fixture has entries and bad rows"
    );
    let app = spawn_app().await;
    let key = case.person(&app, "rules").await;

    let first = case.run(&app, Some(&key), &[]).await;
    // Imported, with the fixture's bad rows skipped: exit 3, so a timer notices.
    assert_eq!(first.code, 3, "{first:?}");
    // Each bad row on its own stderr line, with where it is; nothing else was skipped.
    let skipped: Vec<&str> = first
        .stderr
        .lines()
        .filter(|l| l.starts_with("skipped "))
        .collect();
    assert_eq!(skipped.len(), expected.bad.len(), "{}", first.stderr);
    for (line, at) in skipped.iter().zip(&expected.bad) {
        assert!(
            line.starts_with(&format!("skipped {at}: ")),
            "{line} / {at}"
        );
    }
    let s = &first.summary;
    let n = expected.entries.len() as u64;
    assert_eq!(s["command"], case.command, "{s}");
    assert_eq!(s["ok"], true, "{s}");
    assert_eq!(s["dry_run"], false, "{s}");
    assert_eq!(s["rows"].as_u64(), Some(expected.rows as u64), "{s}");
    assert_eq!(
        s["skipped"].as_u64(),
        Some(expected.bad.len() as u64),
        "{s}"
    );
    assert_eq!(
        (
            s["entries"].as_u64(),
            s["created"].as_u64(),
            s["updated"].as_u64()
        ),
        (Some(n), Some(n), Some(0)),
        "{s}"
    );
    assert_eq!(s["batches"], 1, "{s}");
    assert!(!first.stdout.contains(&key) && !first.stderr.contains(&key));

    let stored = case.stored(&app, &key).await;
    let mut want = expected.entries.clone();
    want.sort();
    assert_eq!(as_entries(&stored), want);
    for m in &stored {
        // Sent without a foundation: a rule decided, or nothing did.
        let by_rule = m["foundation"].is_string();
        let mapped_by = if by_rule {
            Value::from("rule")
        } else {
            Value::Null
        };
        assert_eq!(m["mapped_by"], mapped_by, "{m}");
    }
    let (per_foundation, unmapped) = expected.totals(case.rules);
    assert_eq!(listed_totals(&stored), (per_foundation.clone(), unmapped));
    assert!(unmapped > 0, "the fixture leaves something to classify");

    // The same through work patterns, when the fixture falls inside its longest window.
    let (from, _) = expected.window();
    if OffsetDateTime::now_utc() - from < Duration::days(364) {
        let pattern = app.work_patterns_over(&key, 365).await;
        for foundation in FOUNDATIONS {
            assert_eq!(
                minutes_of(&pattern, foundation),
                per_foundation[foundation],
                "{foundation}: {pattern}"
            );
        }
        assert_eq!(pattern["unmapped_minutes"], unmapped, "{pattern}");
    } else {
        eprintln!("NOTE: the fixture is over a year old; its totals were checked on the listing");
    }

    let second = case.run(&app, Some(&key), &[]).await;
    assert_eq!(second.code, 3, "{second:?}");
    assert_eq!(
        (
            second.summary["created"].as_u64(),
            second.summary["updated"].as_u64()
        ),
        (Some(0), Some(n)),
        "{}",
        second.summary
    );
    assert_eq!(by_id(&case.stored(&app, &key).await), by_id(&stored));
}

#[tokio::test(flavor = "multi_thread")]
async fn toggl_entries_are_classified_by_the_servers_rules_to_the_minute_and_a_rerun_changes_nothing()
 {
    rules_classify_the_import_to_the_minute_and_a_rerun_changes_nothing(toggl()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn clockify_entries_are_classified_by_the_servers_rules_to_the_minute_and_a_rerun_changes_nothing()
 {
    rules_classify_the_import_to_the_minute_and_a_rerun_changes_nothing(clockify()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn activitywatch_hours_are_classified_by_the_servers_rules_to_the_minute_and_a_rerun_changes_nothing()
 {
    rules_classify_the_import_to_the_minute_and_a_rerun_changes_nothing(activitywatch()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn strict_stops_at_the_first_bad_row_naming_it_and_sends_nothing() {
    let app = spawn_app().await;
    for case in [toggl(), clockify(), activitywatch()] {
        let key = case.person(&app, "strict").await;
        let run = case.run(&app, Some(&key), &["--strict"]).await;
        assert_eq!(run.code, 1, "{run:?}");
        let first_bad = &case.expected.bad[0];
        assert!(
            run.stderr.contains(&format!("stopped at {first_bad}: ")),
            "{}: {}",
            case.command,
            run.stderr
        );
        let error = run.summary["error"].as_str().expect("an error");
        assert!(error.starts_with(&format!("{first_bad}: ")), "{error}");
        assert_eq!(run.summary["created"], 0);
        assert!(case.stored(&app, &key).await.is_empty(), "{}", case.command);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dry_run_needs_no_key_prints_every_entry_without_a_foundation_and_sends_nothing() {
    let app = spawn_app().await;
    for case in [toggl(), clockify(), activitywatch()] {
        let key = case.person(&app, "dry").await;
        let run = case.run(&app, None, &["--dry-run"]).await;
        // Each fixture has bad rows: skipped, exit 3.
        assert_eq!(run.code, 3, "{run:?}");
        assert_eq!(run.summary["dry_run"], true);
        // The batches printed, as a run would send them.
        assert_eq!(
            run.summary["batches"],
            run.body_lines().len(),
            "{}",
            run.summary
        );
        assert_eq!(run.summary["batches"], 1);
        let items: Vec<Value> = run
            .body_lines()
            .iter()
            .flat_map(|b| b["items"].as_array().expect("items").clone())
            .collect();
        assert!(
            items.iter().all(|i| i.get("foundation").is_none()),
            "{items:?}"
        );
        assert_eq!(as_entries(&items), {
            let mut want = case.expected.entries.clone();
            want.sort();
            want
        });
        let mut ids: Vec<&str> = items
            .iter()
            .map(|i| i["external_task_id"].as_str().expect("an id"))
            .collect();
        assert!(
            ids.iter()
                .all(|id| id.starts_with(&format!("{}:", case.command)))
        );
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), items.len(), "ids are distinct");
        assert!(case.stored(&app, &key).await.is_empty(), "{}", case.command);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn without_an_api_key_an_import_is_bad_usage_before_the_file_is_read() {
    let app = spawn_app().await;
    let case = toggl();
    let mut args = case.args(&app.address, &[]);
    args[2] = "/nonexistent/report.csv".into();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = run_sync(&args, &[], None).await;
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.summary["error"]
            .as_str()
            .is_some_and(|e| e.contains("DISCOVERY_API_KEY")),
        "{run:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_team_export_without_user_is_refused_naming_its_people_and_user_takes_one_persons_rows() {
    let app = spawn_app().await;
    let key = app.person_with_key("mira@example.org").await;
    let env = [("DISCOVERY_API_KEY", key.as_str())];
    let file = fixture("toggl_detailed.csv");
    let base = [
        "toggl",
        "--csv",
        file.as_str(),
        "--utc-offset",
        "+02:00",
        "--url",
        app.address.as_str(),
    ];
    let refused = run_sync(&base, &env, None).await;
    assert_eq!(refused.code, 2, "{refused:?}");
    let error = refused.summary["error"].as_str().expect("an error");
    assert!(
        error.contains("2 people")
            && error.contains("Elena Ruiz <elena@example.org>")
            && error.contains("Mira Koch <mira@example.org>")
            && error.contains("--user"),
        "{error}"
    );
    assert!(app.mappings(&key).await.is_empty(), "nothing was sent");

    let mut mira = base.to_vec();
    mira.extend(["--user", "Mira Koch"]);
    let run = run_sync(&mira, &env, None).await;
    assert_eq!(run.code, 0, "{run:?}");
    let text = read("toggl_detailed.csv");
    let elena = expected::toggl(&text, TOGGL_OFFSET, "elena@example.org");
    let rows_of_elena = elena.entries.len() + elena.bad.len();
    let s = &run.summary;
    assert_eq!(
        [&s["rows"], &s["other_users"], &s["created"], &s["skipped"]],
        [elena.rows, rows_of_elena, 1, 0],
        "{s}"
    );
    let stored = app.mappings(&key).await;
    assert_eq!(stored.len(), 1);
    assert_eq!(
        stored[0]["minutes"], 60,
        "Mira's one hour, and nothing of Elena's"
    );

    let mut nobody = base.to_vec();
    nobody.extend(["--user", "someone@example.org"]);
    let run = run_sync(&nobody, &env, None).await;
    assert_eq!(run.code, 2, "{run:?}");
    let error = run.summary["error"].as_str().expect("an error");
    assert!(error.contains("\"someone@example.org\""), "{error}");
}
