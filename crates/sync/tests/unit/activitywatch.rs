//! The ActivityWatch importer over a hand-written export in `tests/fixtures/import/`: two hosts
//! (one without an AFK watcher), AFK gaps, an event across an hour, overlapping events,
//! fractional seconds, non-ASCII titles and apps, an ignored browser bucket and bad events.

use std::collections::BTreeMap;

use discovery_sync::import::ImportError;
use discovery_sync::import::activitywatch::{
    ExportOptions, ExportWarning, ParsedExport, SkippedEvent, parse, stable_id,
};
use time::macros::datetime;

const EXPORT: &str = include_str!("../fixtures/import/activitywatch_export.json");

fn read(text: &str) -> ParsedExport {
    parse(text.as_bytes(), ExportOptions::default()).unwrap()
}

/// `(host, app, hour "HH")` → minutes.
fn minutes(parsed: &ParsedExport) -> BTreeMap<(String, String, String), u32> {
    parsed
        .entries
        .iter()
        .map(|e| {
            let host = e.tags[1].strip_prefix("host:").unwrap().to_owned();
            let app = e.task_label.clone().unwrap();
            let hour = format!("{:02}", e.occurred_at.hour());
            ((host, app, hour), e.minutes)
        })
        .collect()
}

fn expect(rows: &[(&str, &str, &str, u32)]) -> BTreeMap<(String, String, String), u32> {
    rows.iter()
        .map(|(h, a, hour, m)| (((*h).into(), (*a).into(), (*hour).into()), *m))
        .collect()
}

#[test]
fn active_time_is_window_time_inside_not_afk_periods_per_host_app_and_utc_hour() {
    let parsed = read(EXPORT);
    assert_eq!(
        expect(&[
            // 08:50-09:00 inside the first not-afk period.
            ("laptop", "Code", "08", 10),
            // 09:25:29.5 (after Firefox's overlap) to 09:30, then 09:40 (back from AFK) to
            // 10:00: 24:30.5, rounds up.
            ("laptop", "Code", "09", 25),
            // The same window event after the hour: 10:00-10:15.
            ("laptop", "Code", "10", 15),
            // 11:00:20-11:02:00.
            ("laptop", "Code", "11", 2),
            // 09:00-09:25:29.5: 29.5 s round down.
            ("laptop", "Firefox", "09", 25),
            // 10:30:00.25-11:00, of which 10:40-11:00 is not AFK.
            ("laptop", "Firefox", "10", 20),
            // 10:15-10:30:00.25, AFK from 10:25.
            ("laptop", "Telegram", "10", 10),
            // No AFK bucket on this host: window time as is, 13:40-14:10 across the hour.
            ("studio", "Blender", "13", 20),
            ("studio", "Blender", "14", 10 + 10),
            ("studio", "Code", "14", 13),  // 750.5 s
            ("studio", "Aperçu", "14", 5), // 300.4 s
        ]),
        minutes(&parsed)
    );
}

#[test]
fn time_outside_any_afk_event_and_hours_under_half_a_minute_are_not_entries() {
    let parsed = read(EXPORT);
    let apps: Vec<_> = parsed
        .entries
        .iter()
        .map(|e| e.task_label.as_deref().unwrap())
        .collect();
    // Slack (08:49:40, before the AFK watcher's first event) and Terminal (20 s) are absent.
    assert!(
        !apps.contains(&"Slack") && !apps.contains(&"Terminal"),
        "{apps:?}"
    );
    assert_eq!(11, parsed.entries.len());
}

#[test]
fn entries_start_at_the_utc_hour_and_carry_app_then_host_tags_and_the_app_as_label() {
    let parsed = read(EXPORT);
    let first = &parsed.entries[0];
    assert_eq!(datetime!(2026-03-16 08:00 UTC), first.occurred_at);
    assert_eq!(Some("Code"), first.task_label.as_deref());
    assert_eq!(vec!["app:Code", "host:laptop"], first.tags);
    assert_eq!(None, first.project);
    let apercu = parsed
        .entries
        .iter()
        .find(|e| e.task_label.as_deref() == Some("Aperçu"))
        .unwrap();
    assert_eq!(vec!["app:Aperçu", "host:studio"], apercu.tags);
    assert_eq!(datetime!(2026-03-16 14:00 UTC), apercu.occurred_at);
    // In time order.
    let at: Vec<_> = parsed.entries.iter().map(|e| e.occurred_at).collect();
    let mut sorted = at.clone();
    sorted.sort();
    assert_eq!(sorted, at);
}

#[test]
fn malformed_events_are_skipped_naming_bucket_and_index_and_other_buckets_are_ignored() {
    let parsed = read(EXPORT);
    assert_eq!(
        vec![
            SkippedEvent {
                bucket: "aw-watcher-afk_laptop".into(),
                index: Some(0),
                reason: "bad duration -1 (expected seconds >= 0)".into(),
            },
            SkippedEvent {
                bucket: "aw-watcher-window_laptop".into(),
                index: Some(0),
                reason: "bad timestamp \"16/03/2026 11:03\" (expected RFC 3339)".into(),
            },
            SkippedEvent {
                bucket: "aw-watcher-window_studio".into(),
                index: Some(2),
                reason: "no \"app\" string in data".into(),
            },
        ],
        parsed.skipped
    );
    assert_eq!(
        "aw-watcher-window_studio events[2]",
        parsed.skipped[2].locator()
    );
    // The browser bucket's 2 events are not read: 6 AFK + 9 + 5 window events.
    assert_eq!(20, parsed.events);
}

#[test]
fn a_host_without_an_afk_bucket_is_named_in_a_warning() {
    assert_eq!(
        vec![ExportWarning {
            at: "bucket aw-watcher-window_studio".into(),
            message: "host \"studio\" has no AFK bucket (afkstatus): its window time is \
                      counted whole, idle time included"
                .into(),
        }],
        read(EXPORT).warnings
    );
}

#[test]
fn strict_mode_stops_at_the_first_malformed_event() {
    let err = parse(
        EXPORT.as_bytes(),
        ExportOptions {
            strict: true,
            ..ExportOptions::default()
        },
    )
    .unwrap_err();
    assert_eq!(
        ImportError::Event {
            bucket: "aw-watcher-afk_laptop".into(),
            index: Some(0),
            reason: "bad duration -1 (expected seconds >= 0)".into(),
        },
        err
    );
    assert_eq!(
        "aw-watcher-afk_laptop events[0]: bad duration -1 (expected seconds >= 0)",
        err.to_string()
    );
}

#[test]
fn the_id_is_a_hash_of_host_app_and_hour_pinned() {
    use sha2::{Digest, Sha256};
    let digest = hex::encode(Sha256::digest(
        r#"["laptop","Code","2026-03-16T08:00:00Z"]"#.as_bytes(),
    ));
    let expected = format!("activitywatch:{}", &digest[..16]);
    assert_eq!(expected, read(EXPORT).entries[0].external_task_id);
    assert_eq!(
        expected,
        stable_id("laptop", "Code", datetime!(2026-03-16 08:00 UTC))
    );
}

#[test]
fn ids_are_distinct_and_the_same_when_the_export_is_read_again_or_has_grown() {
    let first = read(EXPORT);
    let ids: Vec<_> = first
        .entries
        .iter()
        .map(|e| e.external_task_id.clone())
        .collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(ids.len(), unique.len());
    assert_eq!(first, read(EXPORT));
    // A later export: Code went on until 11:20, and a new hour began on the studio.
    let grown = EXPORT
        .replace(
            r#"{"timestamp": "2026-03-16T11:00:20+00:00", "duration": 100.0,"#,
            r#"{"timestamp": "2026-03-16T11:00:20+00:00", "duration": 1180.0,"#,
        )
        .replace(
            r#"{"timestamp": "2026-03-16T10:40:00+00:00", "duration": 1500.0,"#,
            r#"{"timestamp": "2026-03-16T10:40:00+00:00", "duration": 2400.0,"#,
        )
        .replace(
            r#""events": [
      {"id": 5120,"#,
            r#""events": [
      {"id": 5121, "timestamp": "2026-03-16T15:00:00Z", "duration": 900.0, "data": {"app": "Blender", "title": "szene_β.blend"}},
      {"id": 5120,"#,
        );
    assert_ne!(EXPORT, grown);
    let later = read(&grown);
    let by_id = |p: &ParsedExport| -> BTreeMap<String, u32> {
        p.entries
            .iter()
            .map(|e| (e.external_task_id.clone(), e.minutes))
            .collect()
    };
    let (before, after) = (by_id(&first), by_id(&later));
    // Every hour already there keeps its id; the 11:00 hour has grown; one hour is new.
    assert!(before.keys().all(|id| after.contains_key(id)));
    assert_eq!(before.len() + 1, after.len());
    let code_11 = stable_id("laptop", "Code", datetime!(2026-03-16 11:00 UTC));
    assert_eq!((2, 20), (before[&code_11], after[&code_11]));
}

#[test]
fn overlapping_window_events_count_once_with_the_earlier_start_keeping_the_overlap() {
    let text = r#"{"buckets": {"w": {"type": "currentwindow", "hostname": "h", "events": [
        {"timestamp": "2026-03-16T09:10:00Z", "duration": 600, "data": {"app": "B"}},
        {"timestamp": "2026-03-16T09:00:00Z", "duration": 900, "data": {"app": "A"}},
        {"timestamp": "2026-03-16T09:02:00Z", "duration": 60, "data": {"app": "C"}}
    ]}}}"#;
    let parsed = read(text);
    // A 09:00-09:15, C inside A counts nothing, B 09:15-09:20.
    assert_eq!(
        expect(&[("h", "A", "09", 15), ("h", "B", "09", 5)]),
        minutes(&parsed)
    );
}

#[test]
fn overlapping_afk_periods_are_joined_and_afk_status_alone_adds_nothing() {
    let text = r#"{"buckets": {
      "w": {"type": "currentwindow", "hostname": "h", "events": [
        {"timestamp": "2026-03-16T23:30:00Z", "duration": 3600, "data": {"app": "A", "title": "t"}}]},
      "a": {"type": "afkstatus", "hostname": "h", "events": [
        {"timestamp": "2026-03-16T23:40:00Z", "duration": 600, "data": {"status": "not-afk"}},
        {"timestamp": "2026-03-16T23:45:00Z", "duration": 900, "data": {"status": "not-afk"}},
        {"timestamp": "2026-03-17T00:00:00Z", "duration": 600, "data": {"status": "afk"}},
        {"timestamp": "2026-03-17T00:10:00Z", "duration": 300, "data": {"status": "not-afk"}}]}
    }}"#;
    let parsed = read(text);
    // 23:40-00:00 (two overlapping periods, counted once), then 00:10-00:15 on the next day.
    assert_eq!(
        vec![
            (datetime!(2026-03-16 23:00 UTC), 20),
            (datetime!(2026-03-17 00:00 UTC), 5)
        ],
        parsed
            .entries
            .iter()
            .map(|e| (e.occurred_at, e.minutes))
            .collect::<Vec<_>>()
    );
    assert!(parsed.warnings.is_empty());
}

#[test]
fn a_long_app_name_is_cut_in_its_tag_with_one_warning() {
    let app = "Ä".repeat(120);
    let text = format!(
        r#"{{"buckets": {{"w": {{"type": "currentwindow", "hostname": "h", "events": [
        {{"timestamp": "2026-03-16T09:30:00Z", "duration": 3600, "data": {{"app": "{app}"}}}}]}}}}}}"#
    );
    let parsed = read(&text);
    assert_eq!(2, parsed.entries.len());
    assert!(
        parsed
            .entries
            .iter()
            .all(|e| e.tags[0].chars().count() == 100)
    );
    assert_eq!(Some(app.as_str()), parsed.entries[0].task_label.as_deref());
    let cut: Vec<_> = parsed
        .warnings
        .iter()
        .filter(|w| w.message.contains("cut to 100"))
        .collect();
    assert_eq!(1, cut.len(), "{:?}", parsed.warnings);
    assert_eq!("host h", cut[0].at);
}

#[test]
fn a_file_that_is_not_an_export_is_refused_and_bad_buckets_are_skipped_whole() {
    for text in ["", "[1, 2]", r#"{"bucket": {}}"#, "{\"buckets\": ["] {
        assert!(
            matches!(
                parse(text.as_bytes(), ExportOptions::default()),
                Err(ImportError::Header(_))
            ),
            "{text:?}"
        );
    }
    let parsed = read(
        r#"{"buckets": {"x": {"type": "currentwindow", "events": []}, "y": 3,
            "z": {"type": "afkstatus", "hostname": "h"}, "other": {"type": "app.editor.activity"}}}"#,
    );
    assert_eq!(
        vec![
            (
                "bucket x".to_owned(),
                "the bucket has no \"hostname\"".to_owned()
            ),
            (
                "bucket y".to_owned(),
                "the bucket is not a JSON object".to_owned()
            ),
            (
                "bucket z".to_owned(),
                "the bucket has no \"events\" list".to_owned()
            ),
        ],
        parsed
            .skipped
            .iter()
            .map(|s| (s.locator(), s.reason.clone()))
            .collect::<Vec<_>>()
    );
    assert!(parsed.entries.is_empty());
}

/// One window event of 18:00-19:00 UTC inside a not-afk period, read with hours of `zone`:
/// `(start, minutes)` per entry.
fn hours_in(zone: &str) -> Vec<(time::OffsetDateTime, u32)> {
    let export = r#"{"buckets": {
        "aw-watcher-window_pc": {"id": "aw-watcher-window_pc", "type": "currentwindow",
          "hostname": "pc", "events": [{"timestamp": "2026-06-12T18:00:00+00:00",
          "duration": 3600, "data": {"app": "Code", "title": "x"}}]},
        "aw-watcher-afk_pc": {"id": "aw-watcher-afk_pc", "type": "afkstatus",
          "hostname": "pc", "events": [{"timestamp": "2026-06-12T17:00:00+00:00",
          "duration": 10800, "data": {"status": "not-afk"}}]}}}"#;
    let options = ExportOptions {
        zone: Some(discovery_sync::zone::Zone::named(zone).unwrap()),
        ..ExportOptions::default()
    };
    parse(export.as_bytes(), options)
        .unwrap()
        .entries
        .iter()
        .map(|e| (e.occurred_at, e.minutes))
        .collect()
}

#[test]
fn hours_are_the_persons_where_the_offset_is_not_whole_hours() {
    // Kolkata (+05:30): 18:00-19:00 UTC is 23:30-00:30 local, half on each local day, cut at
    // the local midnight (18:30 UTC).
    assert_eq!(
        vec![
            (datetime!(2026-06-12 17:30 UTC), 30),
            (datetime!(2026-06-12 18:30 UTC), 30)
        ],
        hours_in("Asia/Kolkata")
    );
    // Whole-hour offsets keep the UTC hours (and so the ids of earlier imports).
    for zone in ["Europe/Berlin", "UTC"] {
        assert_eq!(
            vec![(datetime!(2026-06-12 18:00 UTC), 60)],
            hours_in(zone),
            "{zone}"
        );
    }
}
