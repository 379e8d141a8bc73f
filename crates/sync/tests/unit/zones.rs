//! Local times to UTC by IANA zone, with the zone's rules on each date: both sides of both
//! daylight-saving changes of a year, the skipped and the repeated hour, a whole report.

use discovery_sync::import::{CsvOptions, toggl};
use discovery_sync::zone::Zone;
use time::macros::datetime;
use time::{OffsetDateTime, PrimitiveDateTime};

fn berlin() -> Zone {
    Zone::named("Europe/Berlin").unwrap()
}

/// Each `(zone, local, UTC)` converts as given.
fn converts(cases: &[(&str, PrimitiveDateTime, OffsetDateTime)]) {
    for (zone, local, utc) in cases {
        let zone = Zone::named(zone).unwrap();
        assert_eq!(zone.to_utc(*local).unwrap(), *utc, "{zone:?} {local}");
    }
}

#[test]
fn winter_and_summer_dates_take_their_own_offsets() {
    converts(&[
        (
            "Europe/Berlin",
            datetime!(2026-01-15 09:00),
            datetime!(2026-01-15 08:00 UTC),
        ),
        (
            "Europe/Berlin",
            datetime!(2026-07-15 09:00),
            datetime!(2026-07-15 07:00 UTC),
        ),
        (
            "America/New_York",
            datetime!(2026-07-15 09:00),
            datetime!(2026-07-15 13:00 UTC),
        ),
    ]);
}

#[test]
fn a_skipped_time_moves_forward_by_the_gap_and_a_repeated_one_is_its_first_occurrence() {
    converts(&[
        // 29 March 2026: 02:00 CET becomes 03:00 CEST; 02:30 does not exist: 03:30 CEST.
        (
            "Europe/Berlin",
            datetime!(2026-03-29 02:30),
            datetime!(2026-03-29 01:30 UTC),
        ),
        (
            "Europe/Berlin",
            datetime!(2026-03-29 03:00),
            datetime!(2026-03-29 01:00 UTC),
        ),
        // 25 October 2026: 03:00 CEST becomes 02:00 CET; 02:30 happens twice: read at CEST.
        (
            "Europe/Berlin",
            datetime!(2026-10-25 02:30),
            datetime!(2026-10-25 00:30 UTC),
        ),
        (
            "Europe/Berlin",
            datetime!(2026-10-25 03:30),
            datetime!(2026-10-25 02:30 UTC),
        ),
    ]);
}

#[test]
fn an_unknown_zone_is_refused_naming_it() {
    let err = Zone::named("Europe/Atlantis").unwrap_err();
    assert!(err.contains("\"Europe/Atlantis\""), "{err}");
    assert!(Zone::named("+01:00").is_err());
}

#[test]
fn a_report_across_both_changes_is_read_with_each_dates_offset() {
    let csv = "User,Email,Project,Description,Start date,Start time,Duration,Tags\r\n\
               Ada,ada@example.org,Web,Winter,2026-03-28,09:00:00,01:00:00,\r\n\
               Ada,ada@example.org,Web,Summer,2026-03-30,09:00:00,01:00:00,\r\n\
               Ada,ada@example.org,Web,Still summer,2026-10-24,09:00:00,01:00:00,\r\n\
               Ada,ada@example.org,Web,Winter again,2026-10-26,09:00:00,01:00:00,\r\n";
    let mut options = CsvOptions::new(time::UtcOffset::UTC);
    options.zone = berlin();
    let parsed = toggl::parse(csv.as_bytes(), options).unwrap();
    let starts: Vec<_> = parsed.entries.iter().map(|e| e.occurred_at).collect();
    assert_eq!(
        starts,
        [
            datetime!(2026-03-28 08:00 UTC),
            datetime!(2026-03-30 07:00 UTC),
            datetime!(2026-10-24 07:00 UTC),
            datetime!(2026-10-26 08:00 UTC),
        ]
    );
    // The ids hold the local start: the same whatever the zone given.
    let fixed = toggl::parse(csv.as_bytes(), CsvOptions::new(time::UtcOffset::UTC)).unwrap();
    let ids = |p: &discovery_sync::import::Parsed| {
        p.entries
            .iter()
            .map(|e| e.external_task_id.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&parsed), ids(&fixed));
}
