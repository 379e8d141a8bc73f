//! A row whose start or end falls in the hour a zone repeats (01:00-02:00 on the night the
//! clocks go back): which of the two readings it means, decided by what else the row says.
//! The start and end readings whose difference is the row's duration (within a minute: a
//! compact `H:MM` or decimal duration is rounded) are taken; with decimal hours the exact
//! difference is the length, as for any row with an end. Where nothing decides (no end, or
//! both readings fit, as for 01:10-01:40 inside the repeated hour), the first reading is taken,
//! the zone's rule ([`crate::zone`]), and the row is counted as a warning.

use time::OffsetDateTime;

/// How far a duration may be from the difference of the start and end it confirms.
const ROUNDING: i64 = 60;

/// The message of a row nothing decides.
pub(super) const UNDECIDED: &str = "the start or end falls in the hour repeated when the \
    clocks went back, and neither the duration nor the end says which of the two it is: read \
    as the first (the earlier offset)";

/// The row's start and its length in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Decided {
    One(OffsetDateTime, u32),
    /// Several readings fit: the first is taken.
    Undecided(OffsetDateTime, u32),
}

/// The start and length of a row whose start may be any of `starts` and end any of `ends`
/// (none when it has no end), for a duration of `seconds` (`exact` unless decimal hours).
/// `starts` is never empty ([`crate::zone::Zone::readings`]).
pub(super) fn decide(
    starts: &[OffsetDateTime],
    ends: &[OffsetDateTime],
    seconds: u32,
    exact: bool,
) -> Decided {
    let length = |s: OffsetDateTime, e: OffsetDateTime| u32::try_from((e - s).whole_seconds());
    let fitting: Vec<(OffsetDateTime, u32)> = starts
        .iter()
        .flat_map(|s| ends.iter().map(move |e| (*s, *e)))
        .filter_map(|(s, e)| {
            let exact_length = length(s, e).ok()?;
            let off = (i64::from(exact_length) - i64::from(seconds)).abs();
            (off <= ROUNDING).then_some((s, if exact { seconds } else { exact_length }))
        })
        .collect();
    let ambiguous = starts.len() > 1 || ends.len() > 1;
    match fitting.as_slice() {
        [one] => Decided::One(one.0, one.1),
        [first, rest @ ..] if rest.iter().all(|r| r == first) => Decided::One(first.0, first.1),
        [first, ..] => Decided::Undecided(first.0, first.1),
        [] => {
            // The old rule: the first readings, the exact difference for decimal hours.
            let start = starts[0];
            let seconds = ends
                .first()
                .filter(|_| !exact)
                .and_then(|e| length(start, *e).ok())
                .unwrap_or(seconds);
            if ambiguous {
                Decided::Undecided(start, seconds)
            } else {
                Decided::One(start, seconds)
            }
        }
    }
}
