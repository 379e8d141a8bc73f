//! The shape of a CSV report before its rows are read: which delimiter it uses (taken from its
//! header line: Excel saves with `;` where the decimal separator is a comma), and how much of a
//! header that is not the one expected an error may quote (never whole lines of someone's
//! data: a file fed to the wrong importer has no header, only its first row).

/// The delimiters a report may use, most likely first.
const DELIMITERS: [u8; 3] = [b',', b';', b'\t'];

/// Column names quoted in an error: at most this many...
const QUOTED_COLUMNS: usize = 6;
/// ...of at most this many characters each.
const QUOTED_CHARS: usize = 30;

/// The delimiter of a file whose first bytes are `head`: the one of [`DELIMITERS`] that occurs
/// most often outside quotes in its first line (a comma on a tie or when there is none).
pub(crate) fn delimiter(head: &[u8]) -> u8 {
    let mut counts = [0usize; DELIMITERS.len()];
    let mut quoted = false;
    for byte in head {
        match *byte {
            b'"' => quoted = !quoted,
            b'\n' if !quoted => break,
            b => {
                if let Some(i) = DELIMITERS.iter().position(|d| *d == b).filter(|_| !quoted) {
                    counts[i] += 1;
                }
            }
        }
    }
    let mut best = 0;
    for (i, count) in counts.iter().enumerate() {
        if *count > counts[best] {
            best = i;
        }
    }
    DELIMITERS[best]
}

/// How a delimiter is named in a message.
pub(crate) fn name(delimiter: u8) -> &'static str {
    match delimiter {
        b';' => "semicolons",
        b'\t' => "tabs",
        _ => "commas",
    }
}

/// The header's cells for an error message: at most [`QUOTED_COLUMNS`] of at most
/// [`QUOTED_CHARS`] characters each, and how many more there were.
pub(crate) fn quoted_columns(headers: &csv::StringRecord) -> String {
    let mut names: Vec<String> = headers
        .iter()
        .take(QUOTED_COLUMNS)
        .map(|h| {
            let h = h.trim_start_matches('\u{feff}').trim();
            if h.chars().count() > QUOTED_CHARS {
                format!("{}…", h.chars().take(QUOTED_CHARS).collect::<String>())
            } else {
                h.to_owned()
            }
        })
        .collect();
    if headers.len() > QUOTED_COLUMNS {
        names.push(format!("and {} more", headers.len() - QUOTED_COLUMNS));
    }
    names.join(", ")
}

/// Whether a cell of `record` holds a line that is a whole row of its own (at least `width - 1`
/// delimiters): the sign of a quote left open, which reads the rows after it into one cell.
/// A description that spans lines holds text, not rows.
pub(crate) fn swallows_rows(record: &csv::StringRecord, width: usize, delimiter: u8) -> bool {
    let delimiter = char::from(delimiter);
    record.iter().any(|cell| {
        cell.lines()
            .skip(1)
            .any(|line| line.matches(delimiter).count() + 1 >= width)
    })
}

/// How many line breaks `record`'s cells hold: the lines after its first that it spans.
pub(crate) fn line_breaks(record: &csv::StringRecord) -> usize {
    record.iter().map(|cell| cell.matches('\n').count()).sum()
}
