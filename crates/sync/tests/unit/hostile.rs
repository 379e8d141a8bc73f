//! Calendars written to hurt the importer (issue 43): components nested ten thousand deep,
//! and 100,000 RDATEs against 100,000 EXDATEs. Each is read, or refused naming the event, in
//! moments, and the events around it are imported.

use std::time::{Duration, Instant};

use discovery_sync::import::ics::{IcsOptions, Notice, parse};
use discovery_sync::zone::Zone;
use time::macros::datetime;

fn options() -> IcsOptions {
    IcsOptions {
        zone: Zone::named("UTC").unwrap(),
        strict: false,
        from: datetime!(2026-01-01 00:00 UTC),
        to: datetime!(2027-01-01 00:00 UTC),
        owner: None,
    }
}

const PLAIN: &str = "BEGIN:VEVENT\r\nUID:plain\r\nDTSTART:20260301T090000Z\r\n\
    DURATION:PT30M\r\nSUMMARY:Plain\r\nEND:VEVENT\r\n";

#[test]
fn components_nested_ten_thousand_deep_are_skipped_naming_the_event_not_a_crash() {
    let depth = 10_000;
    let mut deep =
        String::from("BEGIN:VEVENT\r\nUID:deep\r\nDTSTART:20260302T090000Z\r\nDURATION:PT30M\r\n");
    deep.push_str(&"BEGIN:VALARM\r\n".repeat(depth));
    deep.push_str(&"END:VALARM\r\n".repeat(depth));
    deep.push_str("END:VEVENT\r\n");
    let text = format!("BEGIN:VCALENDAR\r\n{deep}{PLAIN}END:VCALENDAR\r\n");
    let parsed = parse(&text, &options()).unwrap();
    assert_eq!(
        vec![Notice {
            at: "event deep".into(),
            message: "components (alarms) nested deeper than 8 inside it: not read".into(),
        }],
        parsed.skipped
    );
    assert_eq!(1, parsed.entries.len());
    // One alarm, as calendars have them, is read as before.
    let alarm = "BEGIN:VEVENT\r\nUID:alarm\r\nDTSTART:20260302T090000Z\r\nDURATION:PT30M\r\n\
        BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\nEND:VEVENT\r\n";
    let text = format!("BEGIN:VCALENDAR\r\n{alarm}END:VCALENDAR\r\n");
    let parsed = parse(&text, &options()).unwrap();
    assert!(parsed.skipped.is_empty(), "{:?}", parsed.skipped);
    assert_eq!(1, parsed.entries.len());
}

#[test]
fn a_hundred_thousand_rdates_against_as_many_exdates_take_moments() {
    let n: i64 = 100_000;
    let stamp = |minutes: i64| {
        (datetime!(2026-01-02 00:00 UTC) + time::Duration::minutes(minutes))
            .format(time::macros::format_description!(
                "[year][month][day]T[hour][minute][second]Z"
            ))
            .unwrap()
    };
    let rdates: Vec<String> = (0..n).map(stamp).collect();
    // Every other one excluded, and as many again that no RDATE has.
    let exdates: Vec<String> = (0..n).map(|i| stamp(i * 2)).collect();
    let text = format!(
        "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:many\r\nDTSTART:20260101T090000Z\r\n\
         DURATION:PT1M\r\nRDATE:{}\r\nEXDATE:{}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
        rdates.join(","),
        exdates.join(",")
    );
    let started = Instant::now();
    let parsed = parse(&text, &options()).unwrap();
    let took = started.elapsed();
    assert!(parsed.skipped.is_empty(), "{:?}", parsed.skipped);
    // DTSTART and the odd minutes.
    assert_eq!(1 + usize::try_from(n / 2).unwrap(), parsed.entries.len());
    // A list searched once per start took minutes here (5e9 comparisons); a set, moments.
    assert!(took < Duration::from_secs(30), "{took:?}");
}

#[test]
fn a_rule_of_every_second_since_1990_is_refused_in_moments_without_walking_from_1990() {
    let every_second = "BEGIN:VEVENT\r\nUID:seconds\r\nDTSTART:19900101T000000Z\r\n\
        DURATION:PT1S\r\nRRULE:FREQ=SECONDLY\r\nEND:VEVENT\r\n";
    // Every 15 minutes since 1990: 35,040 occurrences in the year read, all of them found.
    let quarter_hours = "BEGIN:VEVENT\r\nUID:quarters\r\nDTSTART:19900101T000000Z\r\n\
        DURATION:PT1M\r\nRRULE:FREQ=MINUTELY;INTERVAL=15\r\nEND:VEVENT\r\n";
    let text = format!("BEGIN:VCALENDAR\r\n{every_second}{quarter_hours}{PLAIN}END:VCALENDAR\r\n");
    let started = Instant::now();
    let parsed = parse(&text, &options()).unwrap();
    let took = started.elapsed();
    assert_eq!(1, parsed.skipped.len(), "{:?}", parsed.skipped);
    assert_eq!("event seconds", parsed.skipped[0].at);
    assert!(
        parsed.skipped[0]
            .message
            .contains("repeats more than 65535 times"),
        "{:?}",
        parsed.skipped
    );
    assert_eq!(365 * 96 + 1, parsed.entries.len());
    assert_eq!(
        datetime!(2026-01-01 00:00 UTC),
        parsed.entries[0].occurred_at,
        "the first quarter hour of the range"
    );
    // Walking every second from 1990 took minutes.
    assert!(took < Duration::from_secs(30), "{took:?}");
}

#[test]
fn without_from_the_range_read_is_the_last_two_years_so_a_rule_from_1990_is_walked_no_further() {
    use clap::Parser as _;
    use discovery_sync::cli::{Cli, DEFAULT_RANGE_DAYS, Tracker};
    let cli = Cli::try_parse_from(["discovery-sync", "ics", "--file", "calendar.ics"]).unwrap();
    let Tracker::Ics(import) = cli.tracker else {
        panic!("an ics import")
    };
    let now = datetime!(2026-12-06 12:00 UTC);
    let options = import.options(now, Zone::named("UTC").unwrap()).unwrap();
    assert_eq!(730, DEFAULT_RANGE_DAYS);
    assert_eq!(now - time::Duration::days(730), options.from);
    assert_eq!(now, options.to);
    // A daily meeting since 1990 gives the two years' days and no more.
    let daily = "BEGIN:VEVENT\r\nUID:daily\r\nDTSTART:19900101T120000Z\r\n\
        DURATION:PT15M\r\nRRULE:FREQ=DAILY\r\nEND:VEVENT\r\n";
    let text = format!("BEGIN:VCALENDAR\r\n{daily}END:VCALENDAR\r\n");
    let parsed = parse(&text, &options).unwrap();
    assert_eq!(730, parsed.entries.len());
    assert!(parsed.entries.iter().all(|e| e.occurred_at >= options.from));
}
