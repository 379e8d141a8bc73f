//! `discovery-sync ics` through the binary: the hand-written calendar's summary, stderr and
//! exit codes, and against the service, a second import of a changed calendar leaving exactly
//! its own occurrences (a deleted event and an `EXDATE` swept).

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::harness::{TempDir, run_sync, spawn_app};

const CALENDAR: &str = include_str!("../fixtures/import/calendar.ics");
const YEAR: [&str; 6] = [
    "--timezone",
    "Europe/Berlin",
    "--from",
    "2026-01-01",
    "--to",
    "2026-12-31",
];

#[tokio::test(flavor = "multi_thread")]
async fn the_calendar_reports_what_it_left_out_and_skipped() {
    let dir = TempDir::new();
    let file = dir.write("calendar.ics", CALENDAR);
    let mut args = vec!["ics", "--file", file.as_str(), "--dry-run"];
    args.extend_from_slice(&YEAR);
    // Two malformed events of 16 read is over the default 5%.
    let run = run_sync(&args, &[], None).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.body_lines().is_empty(), "nothing sent: {}", run.stdout);
    args.extend_from_slice(&["--max-skipped", "2"]);
    let run = run_sync(&args, &[], None).await;
    // Imported with two events skipped: exit 3.
    assert_eq!(run.code, 3, "{run:?}");
    let s = &run.summary;
    assert_eq!(
        [&s["command"], &s["rows"], &s["entries"], &s["skipped"]],
        [&json!("ics"), &json!(16), &json!(14), &json!(2)]
    );
    assert_eq!(
        json!({"all_day": 1, "cancelled": 1, "declined": 1}),
        s["left_out"]
    );
    assert!(
        run.stderr
            .contains("skipped event broken@example.org: no DTSTART"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("left out: 1 all-day, 1 cancelled and 1 declined occurrences"),
        "{}",
        run.stderr
    );
    // Another person's view of the same calendar: Ada's refusal is not theirs.
    args.extend_from_slice(&["--user", "bob@example.org"]);
    let run = run_sync(&args, &[], None).await;
    assert_eq!(json!(0), run.summary["left_out"]["declined"]);
    assert_eq!(json!(15), run.summary["entries"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn from_after_to_is_bad_usage() {
    let dir = TempDir::new();
    let file = dir.write("calendar.ics", CALENDAR);
    let run = run_sync(
        &[
            "ics",
            "--file",
            &file,
            "--dry-run",
            "--from",
            "2026-05-01",
            "--to",
            "2026-04-30",
        ],
        &[],
        None,
    )
    .await;
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.body_lines().is_empty());
}

fn calendar(exdate: Option<&str>, with_review: bool) -> String {
    let mut lines = vec![
        "BEGIN:VCALENDAR",
        "BEGIN:VEVENT",
        "UID:weekly@example.org",
        "DTSTART;TZID=Europe/Berlin:20260302T100000",
        "DTEND;TZID=Europe/Berlin:20260302T110000",
        "RRULE:FREQ=WEEKLY;COUNT=4",
        "SUMMARY:Weekly",
    ];
    let exdate = exdate.map(|d| format!("EXDATE;TZID=Europe/Berlin:{d}"));
    lines.extend(exdate.as_deref());
    lines.push("END:VEVENT");
    if with_review {
        lines.extend([
            "BEGIN:VEVENT",
            "UID:review@example.org",
            "DTSTART:20260312T150000Z",
            "DURATION:PT45M",
            "SUMMARY:Review",
            "END:VEVENT",
        ]);
    }
    lines.push("END:VCALENDAR");
    lines.join("\r\n") + "\r\n"
}

fn ids(items: &[Value]) -> BTreeSet<String> {
    items
        .iter()
        .map(|i| i["external_task_id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_import_sweeps_the_deleted_event_and_the_excluded_occurrence() {
    let app = spawn_app().await;
    let key = app.person_with_key("calendar@example.org").await;
    let dir = TempDir::new();
    // A dry run needs no key: it is given none.
    let import = |text: String, more: &'static [&'static str], key: Option<String>| {
        let file = dir.write("meetings.ics", &text);
        let address = app.address.clone();
        async move {
            let mut args = vec!["ics", "--file", file.as_str(), "--url", address.as_str()];
            args.extend_from_slice(&YEAR);
            args.extend_from_slice(more);
            let env: Vec<(&str, &str)> = key
                .as_deref()
                .map(|k| vec![("DISCOVERY_API_KEY", k)])
                .unwrap_or_default();
            run_sync(&args, &env, None).await
        }
    };
    let first = import(calendar(None, true), &[], Some(key.clone())).await;
    assert_eq!(first.code, 0, "{first:?}");
    assert_eq!(json!(5), first.summary["created"]);
    assert_eq!(5, app.mappings(&key).await.len());

    let second_text = calendar(Some("20260316T100000"), false);
    let second = import(second_text.clone(), &[], Some(key.clone())).await;
    assert_eq!(second.code, 0, "{second:?}");
    assert_eq!(json!(2), second.summary["swept"], "{}", second.summary);
    let planned = import(second_text, &["--dry-run"], None).await;
    let planned: Vec<Value> = planned
        .body_lines()
        .iter()
        .flat_map(|b| b["items"].as_array().unwrap().clone())
        .collect();
    assert_eq!(3, planned.len());
    assert_eq!(ids(&planned), ids(&app.mappings(&key).await));
}
