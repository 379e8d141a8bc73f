//! The importers' parsers over hand-written exports in `tests/fixtures/import/`.

use std::collections::BTreeMap;

use discovery_sync::import::{
    CsvOptions, ImportError, ImportedEntry, MAX_TAG_CHARS, MAX_TAGS, Parsed, SkippedRow,
    SlashDates, clockify, toggl,
};
use time::UtcOffset;
use time::macros::{datetime, offset};

const TOGGL: &str = include_str!("../fixtures/import/toggl_detailed.csv");
const CLOCKIFY: &str = include_str!("../fixtures/import/clockify_detailed.csv");
const CLOCKIFY_24H: &str = include_str!("../fixtures/import/clockify_24h_day_first.csv");
const CAFE: &str = "Café – Überstunden 東京";

fn toggl_at(offset: UtcOffset) -> Parsed {
    toggl::parse(TOGGL.as_bytes(), CsvOptions::new(offset)).unwrap()
}

fn clockify_at(offset: UtcOffset) -> Parsed {
    clockify::parse(CLOCKIFY.as_bytes(), CsvOptions::new(offset)).unwrap()
}

fn minutes_by_project(entries: &[ImportedEntry]) -> BTreeMap<String, u32> {
    let mut totals = BTreeMap::new();
    for e in entries {
        let key = e.project.clone().unwrap_or_else(|| "(none)".to_owned());
        *totals.entry(key).or_insert(0) += e.minutes;
    }
    totals
}

fn minutes_by_tag(entries: &[ImportedEntry]) -> BTreeMap<String, u32> {
    let mut totals = BTreeMap::new();
    for e in entries {
        for t in &e.tags {
            *totals.entry(t.clone()).or_insert(0) += e.minutes;
        }
    }
    totals
}

fn totals(pairs: &[(&str, u32)]) -> BTreeMap<String, u32> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

fn ids(parsed: &Parsed) -> Vec<String> {
    parsed
        .entries
        .iter()
        .map(|e| e.external_task_id.clone())
        .collect()
}

fn by_label<'a>(parsed: &'a Parsed, label: &str) -> &'a ImportedEntry {
    parsed
        .entries
        .iter()
        .find(|e| e.task_label.as_deref() == Some(label))
        .unwrap_or_else(|| panic!("no entry labelled {label:?}"))
}

// --- Toggl -----------------------------------------------------------------------------------

#[test]
fn a_toggl_report_totals_minutes_per_project() {
    let parsed = toggl_at(offset!(+2));
    assert_eq!(8, parsed.entries.len());
    assert_eq!(
        totals(&[
            ("Website", 150 + 20 + 120 + 60),
            ("Reading", 45 + 15),
            (CAFE, 75),
            ("(none)", 30),
        ]),
        minutes_by_project(&parsed.entries)
    );
}

#[test]
fn a_toggl_report_totals_minutes_per_tag_with_the_project_first() {
    let parsed = toggl_at(offset!(+2));
    assert_eq!(
        totals(&[
            ("project:Website", 350),
            ("project:Reading", 60),
            (&format!("project:{CAFE}"), 75),
            ("dev", 150 + 20 + 30 + 120 + 60),
            ("review", 150),
            ("admin", 30),
            ("東京", 75),
        ]),
        minutes_by_tag(&parsed.entries)
    );
    assert_eq!(
        vec!["project:Website", "dev", "review"],
        parsed.entries[0].tags
    );
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
}

#[test]
fn toggl_durations_round_to_the_nearest_minute() {
    let parsed = toggl_at(offset!(+2));
    // 00:44:31 rounds up, 00:20:29 down.
    assert_eq!(
        45,
        by_label(&parsed, "She said \"wait\", then left").minutes
    );
    assert_eq!(
        20,
        parsed
            .entries
            .iter()
            .find(|e| e.task_label.is_none())
            .unwrap()
            .minutes
    );
}

#[test]
fn toggl_local_times_are_read_at_the_given_offset_and_stored_in_utc() {
    let east = toggl_at(offset!(+2));
    let west = toggl_at(offset!(-5));
    assert_eq!(datetime!(2026-03-16 07:05 UTC), east.entries[0].occurred_at);
    assert_eq!(datetime!(2026-03-16 14:05 UTC), west.entries[0].occurred_at);
    // 23:30 local at -05:00 is the next day in UTC.
    assert_eq!(
        datetime!(2026-03-17 04:30 UTC),
        by_label(&west, CAFE).occurred_at
    );
    assert_eq!(UtcOffset::UTC, east.entries[0].occurred_at.offset());
}

#[test]
fn toggl_ids_are_the_same_when_the_file_is_read_twice_even_at_another_offset() {
    let first = ids(&toggl_at(offset!(+2)));
    assert_eq!(first, ids(&toggl_at(offset!(+2))));
    assert_eq!(first, ids(&toggl_at(offset!(-5))));
    assert!(first.iter().all(|id| id.starts_with("toggl:")));
}

#[test]
fn toggl_ids_differ_between_rows_and_repeat_starts_are_numbered() {
    let parsed = toggl_at(offset!(+2));
    let ids = ids(&parsed);
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(ids.len(), unique.len(), "{ids:?}");
    // Same person, same start: the second row in file order gets ":2".
    let long = by_label(&parsed, "Long session").external_task_id.clone();
    let overlapping = &by_label(&parsed, "Overlapping podcast").external_task_id;
    assert_eq!(&format!("{long}:2"), overlapping);
    // Same start, another person: another id.
    let elena = &parsed.entries[0];
    let mira = parsed.entries.last().unwrap();
    assert_eq!(elena.task_label, mira.task_label);
    assert_ne!(elena.external_task_id, mira.external_task_id);
    // `toggl:` and 16 hex digits.
    assert_eq!(6 + 16, long.len());
    assert!(long[6..].bytes().all(|b| b.is_ascii_hexdigit()));
}

#[test]
fn toggl_ids_survive_edits_to_the_description_project_tags_and_end() {
    let before = toggl_at(offset!(+2));
    let edited = TOGGL.replace(
        "Kestrel & Co,Website,Checkout,\"Checkout totals, again\",Yes,2026-03-16,09:05:00,2026-03-16,11:35:00,02:30:00,\"dev, review\"",
        "Kestrel & Co,Shop,,Checkout totals,Yes,2026-03-16,09:05:00,2026-03-16,11:40:00,02:35:00,dev",
    );
    assert_ne!(TOGGL, edited);
    let after = toggl::parse(edited.as_bytes(), CsvOptions::new(offset!(+2))).unwrap();
    assert_eq!(ids(&before), ids(&after));
    assert_eq!(155, after.entries[0].minutes);
}

#[test]
fn toggl_rows_with_a_bad_duration_or_date_are_skipped_naming_their_line() {
    let parsed = toggl_at(offset!(+2));
    assert_eq!(
        vec![
            SkippedRow {
                line: 6,
                reason: "bad duration \"1h\" (expected H:MM:SS, H:MM or decimal hours)".to_owned()
            },
            SkippedRow {
                line: 7,
                reason: "bad date \"2026-02-30\"".to_owned()
            },
        ],
        parsed.skipped
    );
}

#[test]
fn strict_mode_fails_a_toggl_import_at_the_first_bad_line() {
    let err = toggl::parse(TOGGL.as_bytes(), CsvOptions::new(offset!(+2)).strict()).unwrap_err();
    assert_eq!(
        ImportError::Row {
            line: 6,
            reason: "bad duration \"1h\" (expected H:MM:SS, H:MM or decimal hours)".to_owned()
        },
        err
    );
    assert_eq!(
        "line 6: bad duration \"1h\" (expected H:MM:SS, H:MM or decimal hours)",
        err.to_string()
    );
}

#[test]
fn toggl_text_keeps_quotes_commas_line_breaks_and_non_ascii() {
    let parsed = toggl_at(offset!(+2));
    assert_eq!(
        Some("Checkout totals, again"),
        parsed.entries[0].task_label.as_deref()
    );
    by_label(&parsed, "She said \"wait\", then left");
    let cafe = by_label(&parsed, CAFE);
    assert_eq!(Some(CAFE), cafe.project.as_deref());
    assert_eq!(
        vec![format!("project:{CAFE}"), "東京".to_owned()],
        cafe.tags
    );
    let inbox = by_label(&parsed, "Inbox\nand planning");
    assert_eq!(None, inbox.project);
    assert_eq!(vec!["admin", "dev"], inbox.tags);
}

#[test]
fn an_empty_toggl_description_has_no_label() {
    let parsed = toggl_at(offset!(+2));
    let unlabelled: Vec<_> = parsed
        .entries
        .iter()
        .filter(|e| e.task_label.is_none())
        .collect();
    assert_eq!(1, unlabelled.len());
    assert_eq!(datetime!(2026-03-17 06:00 UTC), unlabelled[0].occurred_at);
}

#[test]
fn a_row_after_a_multi_line_cell_is_numbered_by_its_physical_line() {
    let text = TOGGL.replace(
        "Long session,Yes,2026-03-18,07:00:00",
        "Long session,Yes,2026-03-18,7h",
    );
    let parsed = toggl::parse(text.as_bytes(), CsvOptions::new(offset!(+2))).unwrap();
    // Header 1, rows 2-7, the two-line row 8-9, then line 10.
    assert_eq!(
        vec![6, 7, 10],
        parsed.skipped.iter().map(|s| s.line).collect::<Vec<_>>()
    );
    assert_eq!("bad time \"7h\"", parsed.skipped[2].reason);
}

#[test]
fn a_file_without_the_toggl_columns_is_refused() {
    let err = toggl::parse(CLOCKIFY_24H.as_bytes(), CsvOptions::new(offset!(+2))).unwrap_err();
    let ImportError::Header(message) = err else {
        panic!("{err:?}");
    };
    assert!(message.contains("\"Duration\""), "{message}");
    assert!(matches!(
        toggl::parse(&b""[..], CsvOptions::new(offset!(+2))),
        Err(ImportError::Header(_))
    ));
}

#[test]
fn a_short_row_and_bytes_that_are_not_utf8_are_skipped() {
    let mut text = b"User,Email,Project,Description,Start date,Start time,Duration,Tags\n".to_vec();
    text.extend_from_slice(b"A,a@example.org,P,ok,2026-01-05,09:00:00,00:10:00,\n");
    text.extend_from_slice(b"A,a@example.org,P,short,2026-01-05\n");
    text.extend_from_slice(b"A,a@example.org,P,caf\xe9,2026-01-05,10:00:00,00:10:00,\n");
    let parsed = toggl::parse(&text[..], CsvOptions::new(UtcOffset::UTC)).unwrap();
    assert_eq!(1, parsed.entries.len());
    assert_eq!(
        vec![
            SkippedRow {
                line: 3,
                reason: "the row has 5 cells where the header has 8: a quote left open (which \
                         swallows the rows after it), or a delimiter inside a cell without quotes"
                    .to_owned()
            },
            SkippedRow {
                line: 4,
                reason: "not UTF-8 text".to_owned()
            },
        ],
        parsed.skipped
    );
}

#[test]
fn tags_are_kept_to_twenty_of_at_most_a_hundred_characters_with_warnings() {
    let long = "x".repeat(MAX_TAG_CHARS + 20);
    let many: Vec<String> = (1..=25).map(|i| format!("t{i}")).collect();
    let cell = format!("{long}, t1, , {}", many.join(", "));
    let text = format!(
        "Email,Project,Description,Start date,Start time,Duration,Tags\n\
         a@example.org,P,many tags,2026-01-05,09:00:00,00:10:00,\"{cell}\"\n"
    );
    let parsed = toggl::parse(text.as_bytes(), CsvOptions::new(UtcOffset::UTC)).unwrap();
    let tags = &parsed.entries[0].tags;
    assert_eq!(MAX_TAGS, tags.len());
    assert_eq!("project:P", tags[0]);
    assert_eq!("x".repeat(MAX_TAG_CHARS), tags[1]);
    // The repeated t1 and the empty tag are dropped silently; t1..t18 fill the rest.
    assert_eq!("t18", tags[19]);
    assert!(
        tags.iter()
            .all(|t| (1..=MAX_TAG_CHARS).contains(&t.chars().count()))
    );
    let messages: Vec<_> = parsed
        .warnings
        .iter()
        .map(|w| (w.line, w.message.as_str()))
        .collect();
    assert_eq!(2, messages.len(), "{messages:?}");
    assert_eq!(2, messages[0].0);
    assert!(
        messages[0].1.contains("cut to 100 characters"),
        "{messages:?}"
    );
    assert_eq!(
        (
            2,
            "7 tags over the limit of 20 dropped: t19, t20, t21, t22, t23, t24, t25"
        ),
        messages[1]
    );
}

// --- Clockify --------------------------------------------------------------------------------

#[test]
fn a_clockify_report_totals_minutes_per_project_and_tag() {
    let parsed = clockify_at(offset!(+1));
    assert_eq!(4, parsed.entries.len());
    assert_eq!(
        totals(&[("Website", 150 + 20), ("Reading", 45), (CAFE, 75)]),
        minutes_by_project(&parsed.entries)
    );
    assert_eq!(
        totals(&[
            ("project:Website", 170),
            ("project:Reading", 45),
            (&format!("project:{CAFE}"), 75),
            ("dev", 170),
            ("review", 150),
            ("東京", 75),
        ]),
        minutes_by_tag(&parsed.entries)
    );
}

#[test]
fn clockify_twelve_hour_times_read_noon_and_midnight_right() {
    let parsed = clockify_at(UtcOffset::UTC);
    let at: Vec<_> = parsed.entries.iter().map(|e| e.occurred_at).collect();
    assert_eq!(
        vec![
            datetime!(2026-03-16 09:05 UTC),
            datetime!(2026-03-16 12:00 UTC), // 12:00:00 PM
            datetime!(2026-03-16 23:30 UTC), // 11:30:00 PM
            datetime!(2026-03-17 00:10 UTC), // 12:10:00 AM
        ],
        at
    );
    let shifted = clockify_at(offset!(+1));
    assert_eq!(
        datetime!(2026-03-16 08:05 UTC),
        shifted.entries[0].occurred_at
    );
}

#[test]
fn clockify_rows_with_a_bad_duration_or_date_are_skipped_naming_their_line() {
    let parsed = clockify_at(offset!(+1));
    assert_eq!(
        vec![
            SkippedRow {
                line: 6,
                reason: "bad duration \"1 h\" (expected H:MM:SS, H:MM or decimal hours)".to_owned()
            },
            SkippedRow {
                line: 7,
                reason: "bad date \"13/01/2026\"".to_owned()
            },
        ],
        parsed.skipped
    );
    let err =
        clockify::parse(CLOCKIFY.as_bytes(), CsvOptions::new(offset!(+1)).strict()).unwrap_err();
    assert!(matches!(err, ImportError::Row { line: 6, .. }), "{err:?}");
}

#[test]
fn clockify_ids_are_stable_distinct_and_apart_from_toggls() {
    let first = ids(&clockify_at(offset!(+1)));
    assert_eq!(first, ids(&clockify_at(offset!(-8))));
    let mut unique = first.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(first.len(), unique.len());
    assert!(first.iter().all(|id| id.starts_with("clockify:")));
    // The same person and local start in both trackers: the same hash, another source.
    let toggl_first = &toggl_at(offset!(+1)).entries[0].external_task_id;
    assert_eq!(toggl_first["toggl:".len()..], first[0]["clockify:".len()..]);
}

#[test]
fn clockify_text_keeps_quotes_commas_and_non_ascii_and_empty_descriptions_have_no_label() {
    let parsed = clockify_at(offset!(+1));
    assert_eq!(
        Some("Checkout totals, again"),
        parsed.entries[0].task_label.as_deref()
    );
    by_label(&parsed, "She said \"wait\", then left");
    let cafe = by_label(&parsed, CAFE);
    assert_eq!(
        vec![format!("project:{CAFE}"), "東京".to_owned()],
        cafe.tags
    );
    assert_eq!(None, parsed.entries[3].task_label);
}

#[test]
fn clockify_day_first_dates_and_24_hour_times_are_read_when_asked() {
    let options = CsvOptions {
        slash_dates: SlashDates::DayFirst,
        ..CsvOptions::new(offset!(+1))
    };
    let parsed = clockify::parse(CLOCKIFY_24H.as_bytes(), options).unwrap();
    assert!(parsed.skipped.is_empty(), "{:?}", parsed.skipped);
    let at: Vec<_> = parsed.entries.iter().map(|e| e.occurred_at).collect();
    // 3 April 2026, not 4 March.
    assert_eq!(
        vec![
            datetime!(2026-04-03 08:00 UTC),
            datetime!(2026-04-03 16:45 UTC)
        ],
        at
    );
    assert_eq!(
        totals(&[("Website", 105)]),
        minutes_by_project(&parsed.entries)
    );
    // Month first, the same text is 4 March.
    let us = clockify::parse(CLOCKIFY_24H.as_bytes(), CsvOptions::new(offset!(+1))).unwrap();
    assert_eq!(datetime!(2026-03-04 08:00 UTC), us.entries[0].occurred_at);
}

#[test]
fn the_id_is_a_hash_of_the_email_and_the_local_start_pinned() {
    use sha2::{Digest, Sha256};
    let digest = hex::encode(Sha256::digest(
        br#"["elena@example.org","2026-03-16T09:05:00"]"#,
    ));
    let expected = format!("toggl:{}", &digest[..16]);
    assert_eq!(expected, toggl_at(offset!(+2)).entries[0].external_task_id);
    assert_eq!(
        expected,
        discovery_sync::import::stable_id(
            "toggl",
            "elena@example.org",
            datetime!(2026-03-16 09:05)
        )
    );
}
