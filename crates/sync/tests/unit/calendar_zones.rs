//! Calendars as their programs write their zones: Outlook desktop (a Windows zone name with a
//! `VTIMEZONE` that defines it), Outlook on the web (a Windows zone name alone), Google and
//! Apple (IANA names with their own `VTIMEZONE`s), a custom zone no IANA name matches, and a
//! zone nothing defines. Each meeting is read to the minute, across the changes of clocks.

use discovery_sync::import::ics::{IcsOptions, Notice, ParsedCalendar, parse};
use discovery_sync::zone::Zone;
use time::OffsetDateTime;
use time::macros::datetime;

use crate::ics::starts_and_minutes;

/// 2026 and 2027, floating times in UTC (none of these calendars has one).
fn read(body: &str) -> ParsedCalendar {
    let options = IcsOptions {
        zone: Zone::named("UTC").unwrap(),
        strict: false,
        from: datetime!(2026-01-01 00:00 UTC),
        to: datetime!(2028-01-01 00:00 UTC),
        owner: None,
    };
    let text = format!("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n{body}END:VCALENDAR\r\n");
    parse(
        &text.replace('\n', "\r\n").replace("\r\r\n", "\r\n"),
        &options,
    )
    .unwrap()
}

fn event(uid: &str, tzid: &str, start: &str, end: &str, rule: &str) -> String {
    format!(
        "BEGIN:VEVENT\nUID:{uid}\nDTSTART;TZID={tzid}:{start}\nDTEND;TZID={tzid}:{end}\n\
         {rule}SUMMARY:{uid}\nEND:VEVENT\n"
    )
}

/// Outlook's (desktop and web alike) definition of US Eastern time.
const OUTLOOK_EASTERN: &str = "BEGIN:VTIMEZONE\nTZID:Eastern Standard Time\nBEGIN:STANDARD\n\
    DTSTART:16010101T020000\nTZOFFSETFROM:-0400\nTZOFFSETTO:-0500\n\
    RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=1SU;BYMONTH=11\nEND:STANDARD\nBEGIN:DAYLIGHT\n\
    DTSTART:16010101T020000\nTZOFFSETFROM:-0500\nTZOFFSETTO:-0400\n\
    RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=2SU;BYMONTH=3\nEND:DAYLIGHT\nEND:VTIMEZONE\n";

/// A weekly 09:00-10:00 meeting in New York from 26 October 2026: 13:00 UTC before the
/// clocks go back on 1 November, 14:00 after; and one in July.
fn new_york_meetings(tzid: &str) -> String {
    event(
        "weekly",
        tzid,
        "20261026T090000",
        "20261026T100000",
        "RRULE:FREQ=WEEKLY;COUNT=3\n",
    ) + &event("july", tzid, "20260701T083000", "20260701T094500", "")
}

fn new_york_expected() -> Vec<(OffsetDateTime, u32)> {
    vec![
        (datetime!(2026-07-01 12:30 UTC), 75),
        (datetime!(2026-10-26 13:00 UTC), 60),
        (datetime!(2026-11-02 14:00 UTC), 60),
        (datetime!(2026-11-09 14:00 UTC), 60),
    ]
}

#[test]
fn outlook_desktop_a_windows_zone_name_with_its_vtimezone_imports_to_the_minute() {
    let parsed = read(&(OUTLOOK_EASTERN.to_owned() + &new_york_meetings("Eastern Standard Time")));
    assert_eq!(Vec::<Notice>::new(), parsed.skipped);
    assert_eq!(new_york_expected(), starts_and_minutes(&parsed));
}

#[test]
fn outlook_on_the_web_a_windows_zone_name_alone_is_read_by_cldrs_table() {
    let parsed = read(&new_york_meetings("Eastern Standard Time"));
    assert_eq!(Vec::<Notice>::new(), parsed.skipped);
    assert_eq!(new_york_expected(), starts_and_minutes(&parsed));
    // W. Europe Standard Time is Europe/Berlin: 10:00 is 09:00 UTC in winter, 08:00 in summer.
    let parsed = read(
        &(event(
            "berlin",
            "W. Europe Standard Time",
            "20260323T100000",
            "20260323T103000",
            "RRULE:FREQ=WEEKLY;COUNT=2\n",
        )),
    );
    assert_eq!(
        vec![
            (datetime!(2026-03-23 09:00 UTC), 30),
            (datetime!(2026-03-30 08:00 UTC), 30)
        ],
        starts_and_minutes(&parsed)
    );
}

#[test]
fn an_old_outlook_display_name_is_read_by_the_files_vtimezone() {
    let name = "(UTC-05:00) Eastern Time (US & Canada)";
    let zone = OUTLOOK_EASTERN.replace("TZID:Eastern Standard Time", &format!("TZID:{name}"));
    let parsed = read(&(zone + &new_york_meetings(&format!("\"{name}\""))));
    assert_eq!(Vec::<Notice>::new(), parsed.skipped);
    assert_eq!(new_york_expected(), starts_and_minutes(&parsed));
}

#[test]
fn the_files_own_definition_comes_before_cldrs_table() {
    // A file that defines "Eastern Standard Time" as -05:00 all year: its July meeting is at
    // 13:30 UTC, not 12:30 as CLDR's America/New_York would have it.
    let zone = "BEGIN:VTIMEZONE\nTZID:Eastern Standard Time\nBEGIN:STANDARD\n\
        DTSTART:16010101T000000\nTZOFFSETFROM:-0500\nTZOFFSETTO:-0500\nEND:STANDARD\n\
        END:VTIMEZONE\n";
    let parsed = read(
        &(zone.to_owned()
            + &event(
                "july",
                "Eastern Standard Time",
                "20260701T083000",
                "20260701T094500",
                "",
            )),
    );
    assert_eq!(
        vec![(datetime!(2026-07-01 13:30 UTC), 75)],
        starts_and_minutes(&parsed)
    );
}

#[test]
fn a_custom_vtimezone_that_matches_no_iana_name_keeps_its_own_rules() {
    // +10:00, +11:00 from the first Sunday of October 02:00 to the first Sunday of April
    // 03:00 (southern summer), written as older programs write the days (BYMONTHDAY), and a
    // zone at +05:30 without daylight time.
    let zones = "BEGIN:VTIMEZONE\nTZID:Head Office\nBEGIN:DAYLIGHT\nDTSTART:20001001T020000\n\
        TZOFFSETFROM:+1000\nTZOFFSETTO:+1100\n\
        RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=SU;BYMONTHDAY=1,2,3,4,5,6,7\nEND:DAYLIGHT\n\
        BEGIN:STANDARD\nDTSTART:20000402T030000\nTZOFFSETFROM:+1100\nTZOFFSETTO:+1000\n\
        RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1SU\nEND:STANDARD\nEND:VTIMEZONE\n\
        BEGIN:VTIMEZONE\nTZID:Branch\nBEGIN:STANDARD\nDTSTART:19700101T000000\n\
        TZOFFSETFROM:+0530\nTZOFFSETTO:+0530\nEND:STANDARD\nEND:VTIMEZONE\n";
    let parsed = read(
        &(zones.to_owned()
            + &event(
                "summer",
                "Head Office",
                "20270110T100000",
                "20270110T110000",
                "",
            )
            + &event(
                "winter",
                "Head Office",
                "20260710T100000",
                "20260710T110000",
                "",
            )
            // 4 April 2027 is the night the clocks go back: 01:30 to 04:30 lasts 4 hours.
            + &event(
                "night",
                "Head Office",
                "20270404T013000",
                "20270404T043000",
                "",
            )
            + &event("branch", "Branch", "20260710T100000", "20260710T104500", "")),
    );
    assert_eq!(Vec::<Notice>::new(), parsed.skipped);
    assert_eq!(
        vec![
            (datetime!(2026-07-10 00:00 UTC), 60),
            (datetime!(2026-07-10 04:30 UTC), 45),
            (datetime!(2027-01-09 23:00 UTC), 60),
            (datetime!(2027-04-03 14:30 UTC), 240),
        ],
        starts_and_minutes(&parsed)
    );
}

#[test]
fn google_and_apple_iana_names_with_their_vtimezones_import_to_the_minute() {
    // Google writes X-LIC-LOCATION; Apple keeps past rules with an UNTIL beside today's.
    let google = "BEGIN:VTIMEZONE\nTZID:America/New_York\nX-LIC-LOCATION:America/New_York\n\
        BEGIN:DAYLIGHT\nTZOFFSETFROM:-0500\nTZOFFSETTO:-0400\nTZNAME:EDT\n\
        DTSTART:19700308T020000\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU\nEND:DAYLIGHT\n\
        BEGIN:STANDARD\nTZOFFSETFROM:-0400\nTZOFFSETTO:-0500\nTZNAME:EST\n\
        DTSTART:19701101T020000\nRRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU\nEND:STANDARD\n\
        END:VTIMEZONE\n";
    let parsed = read(&(google.to_owned() + &new_york_meetings("America/New_York")));
    assert_eq!(new_york_expected(), starts_and_minutes(&parsed));
    let apple = "BEGIN:VTIMEZONE\nTZID:Europe/Berlin\nBEGIN:DAYLIGHT\nTZOFFSETFROM:+0100\n\
        RRULE:FREQ=YEARLY;UNTIL=19950924T010000Z;BYMONTH=9;BYDAY=-1SU\n\
        DTSTART:19810329T020000\nTZNAME:CEST\nTZOFFSETTO:+0200\nEND:DAYLIGHT\n\
        BEGIN:STANDARD\nTZOFFSETFROM:+0200\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\n\
        DTSTART:19961027T030000\nTZNAME:CET\nTZOFFSETTO:+0100\nEND:STANDARD\n\
        BEGIN:DAYLIGHT\nTZOFFSETFROM:+0100\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\n\
        DTSTART:19810329T020000\nTZNAME:CEST\nTZOFFSETTO:+0200\nEND:DAYLIGHT\nEND:VTIMEZONE\n";
    let parsed = read(
        &(apple.to_owned()
            + &event(
                "apple",
                "Europe/Berlin",
                "20261024T100000",
                "20261024T110000",
                "RRULE:FREQ=DAILY;COUNT=2\n",
            )),
    );
    assert_eq!(
        vec![
            (datetime!(2026-10-24 08:00 UTC), 60),
            (datetime!(2026-10-25 09:00 UTC), 60)
        ],
        starts_and_minutes(&parsed)
    );
}

#[test]
fn a_zone_nothing_defines_is_refused_naming_it() {
    let parsed = read(&event(
        "mars",
        "Mars Standard Time",
        "20260701T083000",
        "20260701T094500",
        "",
    ));
    assert!(parsed.entries.is_empty());
    assert_eq!(
        vec![Notice {
            at: "event mars".into(),
            message: "unknown TZID \"Mars Standard Time\": not an IANA zone such as \
                      Europe/Berlin, no VTIMEZONE in the file defines it, and not a Windows \
                      zone name"
                .into(),
        }],
        parsed.skipped
    );
}
