//! Text the service would refuse (control characters other than tab, line feed and carriage
//! return) never reaches a request: a whole batch would be refused for it.

use discovery_sync::import::{CsvOptions, toggl};
use discovery_sync::tags::{fit_tags_with, is_refused};
use time::UtcOffset;

#[test]
fn control_characters_in_tags_become_spaces_with_a_warning_and_blank_tags_go() {
    let mut warnings = Vec::new();
    let tags = fit_tags_with(
        ["a\u{1}b", " padded ", "\u{7}", "   ", "tab\tok"].into_iter(),
        |w| warnings.push(w),
    );
    assert_eq!(vec!["a b", "padded", "tab\tok"], tags);
    assert_eq!(2, warnings.len(), "{warnings:?}");
    assert!(warnings[0].contains("control characters replaced by spaces"));
    assert!(is_refused('\u{1b}') && !is_refused('\n') && !is_refused('\u{7f}'));
}

#[test]
fn a_csv_row_with_control_characters_keeps_its_entry_cleaned() {
    let text = "Email,Project,Description,Start date,Start time,Duration,Tags\n\
                a@example.org,P,form\u{c}feed,2026-01-05,09:00:00,00:10:00,\"ok, bell\u{7}\"\n";
    let parsed = toggl::parse(text.as_bytes(), CsvOptions::new(UtcOffset::UTC)).unwrap();
    assert!(parsed.skipped.is_empty());
    let entry = &parsed.entries[0];
    assert_eq!(Some("form feed"), entry.task_label.as_deref());
    assert_eq!(vec!["project:P", "ok", "bell"], entry.tags);
    assert_eq!(1, parsed.warnings.len());
    assert_eq!(2, parsed.warnings[0].line);
}
