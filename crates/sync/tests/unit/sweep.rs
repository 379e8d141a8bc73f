//! The sweep's pieces that need no service: the service's clock read from its `Date`, and a
//! long range cut into calls the service accepts.

use discovery_sync::http_date::http_date;
use discovery_sync::sweep::{MAX_DAYS, Range, windows};
use time::Duration;
use time::macros::datetime;

#[test]
fn an_http_date_is_read_in_utc_and_anything_else_is_not() {
    assert_eq!(
        http_date("Fri, 27 Nov 2026 13:11:55 GMT"),
        Some(datetime!(2026-11-27 13:11:55 UTC))
    );
    assert_eq!(http_date("2026-11-27T13:11:55Z"), None);
    assert_eq!(http_date("Fri, 27 Nov 2026 13:11:55 +0100"), None);
}

#[test]
fn a_range_is_cut_into_consecutive_windows_of_at_most_the_services_bound() {
    let from = datetime!(2024-01-01 00:00 +1);
    let short = Range {
        from,
        to: from + Duration::days(30),
    };
    assert_eq!(windows(short), [short]);
    let long = Range {
        from,
        to: from + Duration::days(MAX_DAYS * 2 + 1),
    };
    let cut = windows(long);
    assert_eq!(cut.len(), 3);
    assert_eq!(cut[0].from, long.from);
    assert_eq!(cut[2].to, long.to);
    for pair in cut.windows(2) {
        assert_eq!(pair[0].to, pair[1].from, "no gap, no overlap");
    }
    assert!(
        cut.iter()
            .all(|w| w.to - w.from <= Duration::days(MAX_DAYS))
    );
    let empty = Range { from, to: from };
    assert!(windows(empty).is_empty());
}
