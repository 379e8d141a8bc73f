//! `discovery-sync toggl | clockify | activitywatch`: one tracker's export file to the service,
//! every entry without a foundation and with its tags, so the server's rules decide. What was
//! skipped or changed is told on stderr, one line each with its place in the file.

use std::path::Path;

use serde_json::{Value, json};

use super::{client_for, deliver};
use crate::Failure;
use crate::client::Totals;
use crate::import::activitywatch::{self, ExportOptions};
use crate::import::{CsvOptions, ImportError, ImportedEntry, clockify, toggl};
use crate::items::items_of;

/// Which export, and how to read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Toggl(CsvOptions),
    Clockify(CsvOptions),
    ActivityWatch(ExportOptions),
}

impl Format {
    /// The subcommand's name.
    #[must_use]
    pub fn command(&self) -> &'static str {
        match self {
            Self::Toggl(_) => "toggl",
            Self::Clockify(_) => "clockify",
            Self::ActivityWatch(_) => "activitywatch",
        }
    }
}

/// The counts of a run, for the summary line.
#[derive(Debug, Default)]
pub struct Report {
    /// Data rows read (events, for ActivityWatch), skipped ones included.
    pub rows: usize,
    /// Items sent or, in a dry run, printed (a split entry counts once per piece).
    pub entries: usize,
    pub skipped: usize,
    pub warnings: usize,
    /// Entries over 1,440 minutes, sent as several items.
    pub split: usize,
    pub totals: Totals,
    pub dry_run: bool,
}

impl Report {
    /// The summary line's fields.
    #[must_use]
    pub fn json(&self) -> Value {
        json!({
            "dry_run": self.dry_run,
            "rows": self.rows,
            "entries": self.entries,
            "skipped": self.skipped,
            "warnings": self.warnings,
            "split": self.split,
            "batches": self.totals.batches,
            "created": self.totals.created,
            "updated": self.totals.updated,
        })
    }
}

/// What any export read, with its problems located in the file's own terms.
struct Read {
    entries: Vec<ImportedEntry>,
    rows: usize,
    /// `(where, why)`: `line 6` or `aw-watcher-window_laptop events[3]`.
    skipped: Vec<(String, String)>,
    warnings: Vec<(String, String)>,
}

/// Reads `file` as `format`, reports what it skipped on stderr and prints or sends the rest:
/// the counts, and the failure that stopped the run if one did. Failures:
/// [`Failure::Usage`] for a missing API key (checked before the file is read);
/// [`Failure::Failed`] for a file that cannot be read or is not of the format, for the first
/// malformed row in strict mode (nothing is sent), or for the service.
pub fn run(format: Format, file: &Path, url: &str, dry_run: bool) -> (Report, Result<(), Failure>) {
    let mut report = Report {
        dry_run,
        ..Report::default()
    };
    let result = run_into(&mut report, format, file, url);
    (report, result)
}

fn run_into(report: &mut Report, format: Format, file: &Path, url: &str) -> Result<(), Failure> {
    let client = client_for(url, report.dry_run)?;
    let bytes = std::fs::read(file)
        .map_err(|e| Failure::Failed(format!("cannot read {}: {e}", file.display())))?;
    let read = read(format, &bytes).map_err(|e| {
        Failure::Failed(match &e {
            ImportError::Row { .. } | ImportError::Event { .. } => {
                eprintln!("stopped at {e}");
                format!("{e} (--strict: nothing was sent)")
            }
            ImportError::Header(m) | ImportError::Read(m) => format!("{}: {m}", file.display()),
        })
    })?;
    for (at, why) in &read.skipped {
        eprintln!("skipped {at}: {why}");
    }
    for (at, what) in &read.warnings {
        eprintln!("warning {at}: {what}");
    }
    let (items, split) = items_of(&read.entries);
    report.rows = read.rows;
    report.skipped = read.skipped.len();
    report.warnings = read.warnings.len();
    report.entries = items.len();
    report.split = split;
    let (totals, result) = deliver(&items, client.as_ref());
    report.totals = totals;
    result
}

fn read(format: Format, bytes: &[u8]) -> Result<Read, ImportError> {
    let csv = match format {
        Format::Toggl(options) => toggl::parse(bytes, options)?,
        Format::Clockify(options) => clockify::parse(bytes, options)?,
        Format::ActivityWatch(options) => {
            let parsed = activitywatch::parse(bytes, options)?;
            return Ok(Read {
                rows: parsed.events,
                skipped: parsed
                    .skipped
                    .iter()
                    .map(|s| (s.locator(), s.reason.clone()))
                    .collect(),
                warnings: parsed
                    .warnings
                    .into_iter()
                    .map(|w| (w.at, w.message))
                    .collect(),
                entries: parsed.entries,
            });
        }
    };
    Ok(Read {
        rows: csv.entries.len() + csv.skipped.len(),
        skipped: csv
            .skipped
            .into_iter()
            .map(|s| (format!("line {}", s.line), s.reason))
            .collect(),
        warnings: csv
            .warnings
            .into_iter()
            .map(|w| (format!("line {}", w.line), w.message))
            .collect(),
        entries: csv.entries,
    })
}
