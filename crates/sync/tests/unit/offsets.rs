//! The `--utc-offset` flag of the CSV importers.

use discovery_sync::cli::parse_offset;
use time::UtcOffset;
use time::macros::offset;

#[test]
fn offsets_are_read_in_the_usual_forms() {
    for (text, expected) in [
        ("+02:00", offset!(+2)),
        ("-05:00", offset!(-5)),
        ("+05:30", offset!(+5:30)),
        ("-0330", offset!(-3:30)),
        ("+1", offset!(+1)),
        ("Z", UtcOffset::UTC),
        ("utc", UtcOffset::UTC),
        ("+00:00", UtcOffset::UTC),
    ] {
        assert_eq!(Ok(expected), parse_offset(text), "{text}");
    }
}

#[test]
fn anything_else_is_refused_naming_the_forms() {
    for text in ["", "2", "+25:00", "+02:60", "CET", "+2:0:0", "−02:00"] {
        let error = parse_offset(text).unwrap_err();
        assert!(error.contains("+02:00"), "{text}: {error}");
    }
}
