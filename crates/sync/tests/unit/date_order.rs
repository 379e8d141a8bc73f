//! The date order of a CSV report taken from the file: a day above 12 decides it, and a file
//! that cannot tell is refused before anything is read from it.

use discovery_sync::import::{CsvOptions, ImportError, SlashDates, clockify};
use time::macros::{datetime, offset};

const DAY_FIRST: &str = include_str!("../fixtures/import/clockify_day_first_detected.csv");
const US: &str = include_str!("../fixtures/import/clockify_detailed.csv");
const AMBIGUOUS: &str = include_str!("../fixtures/import/clockify_24h_day_first.csv");

fn detected(csv: &str) -> Result<discovery_sync::import::Parsed, ImportError> {
    let options = CsvOptions {
        slash_dates: SlashDates::Detect,
        ..CsvOptions::new(offset!(+1))
    };
    clockify::parse(csv.as_bytes(), options)
}

#[test]
fn a_day_above_twelve_makes_every_date_of_the_file_day_first() {
    let parsed = detected(DAY_FIRST).unwrap();
    assert!(parsed.skipped.is_empty(), "{:?}", parsed.skipped);
    let starts: Vec<_> = parsed.entries.iter().map(|e| e.occurred_at).collect();
    assert_eq!(
        starts,
        [
            // 3 April, not 4 March; 5 May either way.
            datetime!(2026-04-03 08:00 UTC),
            datetime!(2026-04-13 16:45 UTC),
            datetime!(2026-04-25 07:00 UTC),
            datetime!(2026-05-05 07:00 UTC),
        ]
    );
}

#[test]
fn a_us_report_is_read_month_first_and_its_impossible_date_stays_a_bad_row() {
    let detected = detected(US).unwrap();
    let asked = clockify::parse(US.as_bytes(), CsvOptions::new(offset!(+1))).unwrap();
    assert_eq!(detected, asked);
    assert!(
        detected
            .skipped
            .iter()
            .any(|s| s.reason.contains("13/01/2026")),
        "{:?}",
        detected.skipped
    );
}

#[test]
fn a_file_whose_dates_could_be_either_is_refused_naming_a_date_and_the_flags() {
    let Err(ImportError::DateOrder(message)) = detected(AMBIGUOUS) else {
        panic!("not refused");
    };
    assert!(message.contains("line 2"), "{message}");
    assert!(message.contains("\"03/04/2026\""), "{message}");
    assert!(
        message.contains("--day-first") && message.contains("--month-first"),
        "{message}"
    );
}

#[test]
fn dates_that_vote_both_ways_equally_are_refused() {
    let header = AMBIGUOUS.lines().next().unwrap();
    let row = |date: &str| {
        format!(
            "Website,,x,,Elena Ruiz,elena@example.org,,No,{date},09:00:00,{date},09:15:00,00:15:00,0.25"
        )
    };
    let csv = format!("{header}\n{}\n{}\n", row("13/04/2026"), row("04/13/2026"));
    let Err(ImportError::DateOrder(message)) = detected(&csv) else {
        panic!("not refused");
    };
    assert!(message.contains("disagree"), "{message}");
}

#[test]
fn a_file_without_slash_dates_needs_no_flag() {
    let header = AMBIGUOUS.lines().next().unwrap();
    let csv = format!(
        "{header}\nWebsite,,x,,Elena Ruiz,elena@example.org,,No,2026-04-03,09:00:00,2026-04-03,09:15:00,00:15:00,0.25\n"
    );
    let parsed = detected(&csv).unwrap();
    assert_eq!(
        parsed.entries[0].occurred_at,
        datetime!(2026-04-03 08:00 UTC)
    );
}
