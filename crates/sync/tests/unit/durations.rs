//! Every duration format the trackers export: `H:MM:SS`, Clockify's compact `H:MM`, and its
//! decimal hours (point or comma), for which the start and end are used when the file has them.

use discovery_sync::import::{CsvOptions, clockify};
use time::macros::offset;

const HEADER: &str =
    "Project,Description,User,Email,Start Date,Start Time,End Date,End Time,Duration (h)";
const NO_END: &str = "Project,Description,User,Email,Start Date,Start Time,Duration (h)";

fn minutes(header: &str, rows: &[&str]) -> Vec<u32> {
    let csv = format!("{header}\n{}\n", rows.join("\n"));
    let parsed = clockify::parse(csv.as_bytes(), CsvOptions::new(offset!(+1))).unwrap();
    assert!(parsed.skipped.is_empty(), "{:?}", parsed.skipped);
    parsed.entries.iter().map(|e| e.minutes).collect()
}

#[test]
fn full_compact_and_decimal_durations_are_read() {
    let rows = [
        "P,full,Ada,ada@example.org,2026-03-10,09:00:00,3:26:40",
        "P,compact,Ada,ada@example.org,2026-03-10,13:00:00,3:26",
        "P,decimal,Ada,ada@example.org,2026-03-10,17:00:00,0.26",
        "P,comma,Ada,ada@example.org,2026-03-10,18:00:00,\"1,50\"",
        "P,whole,Ada,ada@example.org,2026-03-10,20:00:00,2",
    ];
    // 0.26 h is 15.6 minutes: 16.
    assert_eq!(minutes(NO_END, &rows), [207, 206, 16, 90, 120]);
}

#[test]
fn decimal_hours_give_way_to_the_exact_start_and_end() {
    let rows = [
        // 15 min 20 s, which Clockify rounds to 0.26 h (15.6 min).
        "P,decimal,Ada,ada@example.org,2026-03-10,09:00:00,2026-03-10,09:15:20,0.26",
        // Over midnight.
        "P,late,Ada,ada@example.org,2026-03-10,23:30:00,2026-03-11,00:10:00,0.67",
        // Full durations are exact already: the end is not read.
        "P,full,Ada,ada@example.org,2026-03-11,09:00:00,2026-03-11,09:00:00,1:00:00",
    ];
    assert_eq!(minutes(HEADER, &rows), [15, 40, 60]);
}
