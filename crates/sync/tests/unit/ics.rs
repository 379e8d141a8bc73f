//! The calendar importer over a hand-written `.ics` in `tests/fixtures/import/`: a weekly
//! meeting in Europe/Berlin across the spring change of clocks with an `EXDATE`, a
//! `RECURRENCE-ID` override and a UTC `UNTIL`; a floating time; a UTC time with a `DURATION`
//! and a folded, escaped summary; all-day, cancelled and declined events; malformed events.

use discovery_sync::import::ImportError;
use discovery_sync::import::ics::{IcsOptions, LeftOut, Notice, ParsedCalendar, parse, stable_id};
use discovery_sync::zone::Zone;
use time::OffsetDateTime;
use time::macros::datetime;

const CALENDAR: &str = include_str!("../fixtures/import/calendar.ics");

fn options(from: OffsetDateTime, to: OffsetDateTime) -> IcsOptions {
    IcsOptions {
        zone: Zone::named("Europe/Berlin").unwrap(),
        strict: false,
        from,
        to,
        owner: None,
    }
}

/// The year 2026 in Berlin.
fn year() -> IcsOptions {
    options(
        datetime!(2025-12-31 23:00 UTC),
        datetime!(2026-12-31 23:00 UTC),
    )
}

fn read(text: &str, options: &IcsOptions) -> ParsedCalendar {
    parse(text, options).unwrap()
}

pub(crate) fn starts_and_minutes(parsed: &ParsedCalendar) -> Vec<(OffsetDateTime, u32)> {
    parsed
        .entries
        .iter()
        .map(|e| (e.occurred_at, e.minutes))
        .collect()
}

#[test]
fn each_occurrence_in_the_range_is_an_entry_at_its_instant_with_rrule_exdate_and_override() {
    let parsed = read(CALENDAR, &year());
    let standup = |at: OffsetDateTime| (at, 15);
    assert_eq!(
        vec![
            // 09:30 in Berlin is 08:30 UTC in winter...
            standup(datetime!(2026-01-05 08:30 UTC)),
            standup(datetime!(2026-01-12 08:30 UTC)),
            standup(datetime!(2026-01-19 08:30 UTC)),
            standup(datetime!(2026-01-26 08:30 UTC)),
            standup(datetime!(2026-02-02 08:30 UTC)),
            standup(datetime!(2026-02-09 08:30 UTC)),
            // (16 February is an EXDATE)
            standup(datetime!(2026-02-23 08:30 UTC)),
            standup(datetime!(2026-03-02 08:30 UTC)),
            // 9 March moved to the 10th, 14:00-14:30 in Berlin.
            (datetime!(2026-03-10 13:00 UTC), 30),
            standup(datetime!(2026-03-16 08:30 UTC)),
            // The floating dentist's appointment, 15:00 in the caller's zone.
            (datetime!(2026-03-20 14:00 UTC), 60),
            standup(datetime!(2026-03-23 08:30 UTC)),
            // ...and 07:30 UTC after the clocks went forward on 29 March; the UNTIL (6 April,
            // 00:00 UTC) ends the series before 6 April.
            standup(datetime!(2026-03-30 07:30 UTC)),
            // UTC, with a DURATION of 1 h 30 min.
            (datetime!(2026-04-01 12:00 UTC), 90),
        ],
        starts_and_minutes(&parsed)
    );
    assert_eq!(
        LeftOut {
            all_day: 1,
            cancelled: 1,
            declined: 1,
        },
        parsed.left_out
    );
    assert_eq!(Some("ada@example.org"), parsed.owner.as_deref());
}

#[test]
fn labels_tags_and_ids_come_from_summary_categories_uid_and_the_original_start() {
    let parsed = read(CALENDAR, &year());
    let first = &parsed.entries[0];
    assert_eq!(Some("Standup"), first.task_label.as_deref());
    assert_eq!(vec!["team", "daily"], first.tags);
    assert_eq!(
        stable_id("standup@example.org", datetime!(2026-01-05 08:30 UTC)),
        first.external_task_id
    );
    let moved = &parsed.entries[8];
    assert_eq!(Some("Standup (moved)"), moved.task_label.as_deref());
    assert_eq!(vec!["team"], moved.tags);
    // Named by the start it was moved from: moving it again keeps the id.
    assert_eq!(
        stable_id("standup@example.org", datetime!(2026-03-09 08:30 UTC)),
        moved.external_task_id
    );
    let review = parsed.entries.last().unwrap();
    // Unfolded and unescaped.
    assert_eq!(
        Some("Review, plan and a summary long enough to be folded over two lines by the calendar"),
        review.task_label.as_deref()
    );
    assert_eq!(vec!["client:Kestrel"], review.tags);
    let mut ids: Vec<&str> = parsed
        .entries
        .iter()
        .map(|e| e.external_task_id.as_str())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(parsed.entries.len(), ids.len());
    assert!(ids.iter().all(|id| id.starts_with("ics:")));
    assert_eq!(parsed.entries, read(CALENDAR, &year()).entries);
}

#[test]
fn the_id_is_a_hash_of_uid_and_utc_start_pinned() {
    use sha2::{Digest, Sha256};
    let digest = hex::encode(Sha256::digest(
        br#"["standup@example.org","2026-01-05T08:30:00Z"]"#,
    ));
    assert_eq!(
        format!("ics:{}", &digest[..16]),
        stable_id("standup@example.org", datetime!(2026-01-05 09:30 +01:00))
    );
}

#[test]
fn malformed_events_are_skipped_by_uid_and_strict_mode_stops_at_the_first() {
    let parsed = read(CALENDAR, &year());
    assert_eq!(
        vec![
            Notice {
                at: "event broken@example.org".into(),
                message: "no DTSTART".into(),
            },
            Notice {
                at: "event mars@example.org".into(),
                message: "unknown TZID \"Mars/Olympus\": not an IANA zone such as \
                          Europe/Berlin, no VTIMEZONE in the file defines it, and not a Windows \
                          zone name"
                    .into(),
            },
        ],
        parsed.skipped
    );
    let strict = IcsOptions {
        strict: true,
        ..year()
    };
    assert_eq!(
        Err(ImportError::Item {
            at: "event broken@example.org".into(),
            reason: "no DTSTART".into(),
        }),
        parse(CALENDAR, &strict)
    );
}

#[test]
fn the_range_bounds_the_occurrences_and_the_owner_can_be_named() {
    // March only: 2, 10 (moved), 16, 23 and 30 March, and the dentist.
    let march = options(
        datetime!(2026-02-28 23:00 UTC),
        datetime!(2026-03-31 22:00 UTC),
    );
    let parsed = read(CALENDAR, &march);
    assert_eq!(6, parsed.entries.len(), "{:?}", starts_and_minutes(&parsed));
    assert_eq!(LeftOut::default(), parsed.left_out);
    // Someone else's view of the same file: Ada's refusal is not theirs.
    let bob = IcsOptions {
        owner: Some("bob@example.org".into()),
        ..year()
    };
    let parsed = read(CALENDAR, &bob);
    assert_eq!(0, parsed.left_out.declined);
    assert!(
        parsed
            .entries
            .iter()
            .any(|e| e.task_label.as_deref() == Some("All hands"))
    );
}

#[test]
fn floating_times_follow_the_callers_zone_and_zoned_ones_do_not() {
    let new_york = IcsOptions {
        zone: Zone::named("America/New_York").unwrap(),
        ..year()
    };
    let parsed = read(CALENDAR, &new_york);
    let at = |label: &str| {
        parsed
            .entries
            .iter()
            .find(|e| e.task_label.as_deref() == Some(label))
            .map(|e| e.occurred_at)
    };
    // 15:00 in New York (EDT since 8 March) is 19:00 UTC; the standup stays in Berlin.
    assert_eq!(Some(datetime!(2026-03-20 19:00 UTC)), at("Dentist"));
    assert_eq!(Some(datetime!(2026-01-05 08:30 UTC)), at("Standup"));
}

#[test]
fn a_meeting_across_a_change_of_clocks_lasts_what_it_lasted() {
    let text = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:night@example.org\r\n\
                DTSTART;TZID=Europe/Berlin:20261025T013000\r\n\
                DTEND;TZID=Europe/Berlin:20261025T033000\r\nSUMMARY:Night shift\r\n\
                END:VEVENT\r\nBEGIN:VEVENT\r\nUID:spring@example.org\r\n\
                DTSTART;TZID=Europe/Berlin:20260329T013000\r\n\
                DTEND;TZID=Europe/Berlin:20260329T033000\r\nSUMMARY:Spring shift\r\n\
                END:VEVENT\r\nEND:VCALENDAR\r\n";
    let parsed = read(text, &year());
    // 01:30 to 03:30 is an hour in March (02:00 does not exist) and three in October (02:00
    // to 03:00 comes twice).
    assert_eq!(
        vec![
            (datetime!(2026-03-29 00:30 UTC), 60),
            (datetime!(2026-10-24 23:30 UTC), 180),
        ],
        starts_and_minutes(&parsed)
    );
}

#[test]
fn a_file_that_is_not_a_calendar_is_refused() {
    for text in [
        "",
        "Start date,Start time\n2026-01-01,09:00\n",
        "{\"buckets\": {}}",
    ] {
        assert!(
            matches!(parse(text, &year()), Err(ImportError::Header(_))),
            "{text:?}"
        );
    }
}
