//! The shape of a CSV report: its delimiter taken from the header line, a file that ends
//! mid-row or holds a quote left open refused or located, and errors that quote at most a few
//! short column names of a file that is not the report expected.

use discovery_sync::import::{CsvOptions, ImportError, Parsed, toggl};
use time::macros::offset;

const HEADER: &str = "User,Email,Project,Description,Start date,Start time,Duration,Tags";

fn parse(text: &str) -> Result<Parsed, ImportError> {
    toggl::parse(text.as_bytes(), CsvOptions::new(offset!(+1)))
}

#[test]
fn semicolons_and_tabs_are_taken_from_the_header_line() {
    let comma =
        format!("{HEADER}\nAda,ada@example.org,\"Web, shop\",x,2026-03-10,09:00:00,01:00:00,\n");
    let want = parse(&comma).unwrap();
    assert_eq!(want.entries.len(), 1);
    for delimiter in [";", "\t"] {
        let text = comma
            .replace(',', delimiter)
            .replace(&format!("Web{delimiter} shop"), "Web, shop");
        let parsed = parse(&text).unwrap();
        assert_eq!(parsed.entries, want.entries, "{delimiter:?}");
    }
}

#[test]
fn a_file_cut_off_mid_row_is_an_error_naming_its_last_line() {
    let text = format!(
        "{HEADER}\nAda,ada@example.org,Web,x,2026-03-10,09:00:00,01:00:00,\nAda,ada@example.org,Web,y,2026-03-1"
    );
    let Err(ImportError::Read(message)) = parse(&text) else {
        panic!("not refused");
    };
    assert!(
        message.contains("ends mid-row: line 3 has 5 of the header's 8 cells"),
        "{message}"
    );
}

#[test]
fn a_quote_left_open_is_located_instead_of_swallowing_the_next_row_silently() {
    let text = format!(
        "{HEADER}\n\
         Ada,ada@example.org,Web,\"Open quote,2026-03-10,09:00:00,01:00:00,\n\
         Ada,ada@example.org,Web,Next,2026-03-10,10:00:00,01:00:00,\n\
         Ada,ada@example.org,Web,\"Closed\",2026-03-10,11:00:00,01:00:00,\n"
    );
    let parsed = parse(&text).unwrap();
    assert_eq!(parsed.skipped.len(), 1, "{:?}", parsed.skipped);
    assert_eq!(parsed.skipped[0].line, 2);
    assert!(
        parsed.skipped[0].reason.contains("quote left open"),
        "{:?}",
        parsed.skipped
    );
    // The rows it swallowed are named: they are lost with it.
    assert!(
        parsed.skipped[0]
            .reason
            .contains("lines 3 to 4 were read into it and not imported"),
        "{:?}",
        parsed.skipped
    );
    // What the open quote swallowed is not read as an entry of its own.
    assert!(
        parsed
            .entries
            .iter()
            .all(|e| e.task_label.as_deref() != Some("Next"))
    );
}

#[test]
fn a_file_for_another_importer_is_quoted_in_a_few_short_column_names_at_most() {
    let titles: Vec<String> = (0..40)
        .map(|i| format!("\"title\": \"Re: salary review of person {i} — confidential draft\""))
        .collect();
    let json = format!("{{\"buckets\": {{{}}}}}", titles.join(", "));
    let Err(ImportError::Header(message)) = parse(&json) else {
        panic!("not refused");
    };
    assert!(
        message.chars().count() < 700,
        "{} chars: {message}",
        message.chars().count()
    );
    assert!(message.contains(" more)"), "{message}");
    assert!(!message.contains("person 39"), "{message}");
}
