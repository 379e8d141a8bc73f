//! Where a skipped row is: the physical line where it starts (the header being line 1), the
//! same for LF and CRLF files and after a quoted cell with line breaks.

use discovery_sync::import::{CsvOptions, toggl};
use time::macros::offset;

const HEADER: &str = "User,Email,Project,Description,Start date,Start time,Duration,Tags";

fn skipped_lines(csv: &str) -> Vec<usize> {
    toggl::parse(csv.as_bytes(), CsvOptions::new(offset!(+1)))
        .unwrap()
        .skipped
        .iter()
        .map(|s| s.line)
        .collect()
}

fn file(newline: &str) -> String {
    [
        HEADER,
        "Ada,ada@example.org,Web,Fine,2026-03-10,09:00:00,01:00:00,",
        "Ada,ada@example.org,Web,Bad,2026-03-10,10:00:00,1h,",
        "Ada,ada@example.org,Web,\"Two",
        "lines\",2026-03-10,11:00:00,01:00:00,",
        "Ada,ada@example.org,Web,Bad again,2026-03-10,12:00:00,2h,",
        "",
    ]
    .join(newline)
}

#[test]
fn lf_and_crlf_files_name_the_same_lines() {
    assert_eq!(skipped_lines(&file("\n")), [3, 6]);
    assert_eq!(skipped_lines(&file("\r\n")), [3, 6]);
}
