//! Which way a CSV report writes its slash dates, `03/04/2026`: taken from the file itself.
//! Clockify writes dates in the person's chosen format, `MM/DD/YYYY` or `DD/MM/YYYY`, and the
//! text of one date cannot tell 3 April from 4 March; but a report of any length has a day
//! above 12 somewhere, and that date can be read one way only.
//!
//! The start-date column is read in a pass of its own before the rows: each slash date whose first number is
//! above 12 is a vote for day first, each whose second is above 12 one for month first. The
//! order with more votes wins (a date that fits neither, `13/13/2026`, is then a bad row, as it
//! always was). A file whose slash dates are all ambiguous (both numbers 12 or below, and
//! different), or whose votes tie, is refused: [`ImportError::DateOrder`], before anything is
//! sent, asking for `--day-first` or `--month-first`. A file without slash dates
//! (`YYYY-MM-DD`, `DD.MM.YYYY`) needs neither.

use super::{CsvFormat, ImportError, SlashDates, open_csv};

/// The votes, and the first ambiguous date seen (its line and cell) for the message.
#[derive(Debug, Default)]
struct Votes {
    day_first: usize,
    month_first: usize,
    ambiguous: Option<(usize, String)>,
}

/// The order the file's slash dates are written in.
///
/// # Errors
/// [`ImportError::DateOrder`] when the file cannot tell (see the module); the header's errors
/// as the parse would give them.
pub(crate) fn detect<R: std::io::Read>(
    input: R,
    format: &CsvFormat,
) -> Result<SlashDates, ImportError> {
    let (mut reader, columns, lines) = open_csv(input, format)?;
    let column = columns.start_date;
    let mut votes = Votes::default();
    let mut record = csv::ByteRecord::new();
    // A row the reader cannot read is the parse's to report.
    while let Ok(true) = reader.read_byte_record(&mut record) {
        let Some(cell) = record.get(column).and_then(|c| std::str::from_utf8(c).ok()) else {
            continue;
        };
        let Some((a, b)) = slash_parts(cell.trim()) else {
            continue;
        };
        if a > 12 {
            votes.day_first += 1;
        } else if b > 12 {
            votes.month_first += 1;
        } else if a != b && votes.ambiguous.is_none() {
            let line = record.position().map_or(0, |p| lines.of(p));
            votes.ambiguous = Some((line, cell.trim().to_owned()));
        }
    }
    decide(&votes)
}

fn decide(votes: &Votes) -> Result<SlashDates, ImportError> {
    use std::cmp::Ordering;
    let ask = "pass --day-first (DD/MM/YYYY) or --month-first (MM/DD/YYYY)";
    match votes.day_first.cmp(&votes.month_first) {
        Ordering::Greater => Ok(SlashDates::DayFirst),
        Ordering::Less => Ok(SlashDates::MonthFirst),
        Ordering::Equal if votes.day_first > 0 => Err(ImportError::DateOrder(format!(
            "the dates disagree: {} read only day first and {} only month first; {ask}",
            votes.day_first, votes.month_first
        ))),
        Ordering::Equal => match &votes.ambiguous {
            None => Ok(SlashDates::MonthFirst),
            Some((line, cell)) => Err(ImportError::DateOrder(format!(
                "no date in the file has a day above 12, so its dates could be day first or \
                 month first (line {line}: {cell:?}); {ask}"
            ))),
        },
    }
}

/// `(a, b)` of a date `a/b/YYYY` written in digits; `None` for any other text.
fn slash_parts(text: &str) -> Option<(u32, u32)> {
    let mut parts = text.split('/');
    let (a, b, year) = (parts.next()?, parts.next()?, parts.next()?);
    let digits = |s: &str, max: usize| {
        (!s.is_empty() && s.len() <= max && s.bytes().all(|c| c.is_ascii_digit()))
            .then(|| s.parse::<u32>().ok())
            .flatten()
    };
    if parts.next().is_some() || year.len() != 4 {
        return None;
    }
    digits(year, 4)?;
    Some((digits(a, 2)?, digits(b, 2)?))
}
