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

/// Clockify rows in America/New_York across both changes of clocks in 2026, in each of its
/// three duration styles: the file's durations are what is read, and the repeated hour of
/// 1 November is read as the duration and the end say.
#[test]
fn the_duration_decides_the_repeated_hour_in_all_three_styles_across_both_dst_nights() {
    use discovery_sync::zone::Zone;
    use time::macros::datetime;
    // (start date, start, end, full, compact, decimal)
    let rows = [
        // Fall back: 01:15 in summer time to 01:45 in winter time.
        (
            "11/01/2026",
            "01:15 AM",
            "01:45 AM",
            "1:30:00",
            "1:30",
            "1.50",
        ),
        // From before the repeated hour to its second pass.
        (
            "11/01/2026",
            "12:30 AM",
            "01:30 AM",
            "2:00:00",
            "2:00",
            "2.00",
        ),
        // From the second pass of 01:30 to 02:30.
        (
            "11/01/2026",
            "01:30 AM",
            "02:30 AM",
            "1:00:00",
            "1:00",
            "1.00",
        ),
        // Spring forward: 01:30 EST to 03:30 EDT is one hour.
        (
            "03/08/2026",
            "01:30 AM",
            "03:30 AM",
            "1:00:00",
            "1:00",
            "1.00",
        ),
        // Inside one pass of the repeated hour: nothing says which.
        (
            "11/01/2026",
            "01:10 AM",
            "01:40 AM",
            "0:30:00",
            "0:30",
            "0.50",
        ),
    ];
    let expected = [
        (datetime!(2026-11-01 05:15 UTC), 90),
        (datetime!(2026-11-01 04:30 UTC), 120),
        (datetime!(2026-11-01 06:30 UTC), 60),
        (datetime!(2026-03-08 06:30 UTC), 60),
        (datetime!(2026-11-01 05:10 UTC), 30),
    ];
    for style in 0..3 {
        let body: Vec<String> = rows
            .iter()
            .map(|(day, start, end, full, compact, decimal)| {
                let duration = [full, compact, decimal][style];
                format!("P,row,Ada,ada@example.org,{day},{start},{day},{end},{duration}")
            })
            .collect();
        let csv = format!("{HEADER}\n{}\n", body.join("\n"));
        let options = CsvOptions {
            zone: Zone::named("America/New_York").unwrap(),
            ..CsvOptions::new(offset!(UTC))
        };
        let parsed = clockify::parse(csv.as_bytes(), options).unwrap();
        assert!(parsed.skipped.is_empty(), "{:?}", parsed.skipped);
        let read: Vec<_> = parsed
            .entries
            .iter()
            .map(|e| (e.occurred_at, e.minutes))
            .collect();
        assert_eq!(expected.to_vec(), read, "style {style}");
        // Only the last row is undecided, and it is counted.
        assert_eq!(
            vec![6],
            parsed.warnings.iter().map(|w| w.line).collect::<Vec<_>>(),
            "style {style}: {:?}",
            parsed.warnings
        );
    }
}
