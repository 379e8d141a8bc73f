//! `discovery-sync toggl | clockify | activitywatch | ics`: one tracker's export file (or a
//! calendar) to the service,
//! every entry without a foundation and with its tags, so the server's rules decide. What was
//! skipped or changed is told on stderr, one line each with its place in the file. After a
//! successful upload, the file's range is swept of the source's entries the run did not send
//! ([`crate::sweep`]), unless `--no-sweep`, a dry run, or a skipped row (the file is then not
//! the tracker's whole truth) says not to.

use std::path::Path;

use serde_json::{Value, json};

use super::{client_for, deliver_streamed};
use crate::Failure;
use crate::cli::Upload;
use crate::client::{Client, Totals};
use crate::import::activitywatch::{self, ExportOptions};
use crate::import::ics::{self, IcsOptions, LeftOut};
use crate::import::{
    CsvFormat, CsvOptions, ImportError, ImportedEntry, SlashDates, clockify, read_csv, slash_dates,
    toggl,
};
use crate::items::{Batches, pieces_of};
use crate::skipped::{self, MaxSkipped};
use crate::sweep::{self, Range};
use crate::zone::Zone;

/// Which export, and how to read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    Toggl(CsvOptions),
    Clockify(CsvOptions),
    ActivityWatch(ExportOptions),
    Ics(IcsOptions),
}

impl Format {
    /// The subcommand's name.
    #[must_use]
    pub fn command(&self) -> &'static str {
        match self {
            Self::Toggl(_) => "toggl",
            Self::Clockify(_) => "clockify",
            Self::ActivityWatch(_) => "activitywatch",
            Self::Ics(_) => "ics",
        }
    }

    /// The zone whose midnights cut an entry longer than a day: the zone the file is read in
    /// (an ActivityWatch export's hours are never that long: UTC).
    #[must_use]
    pub fn zone(&self) -> Zone {
        match self {
            Self::Toggl(options) | Self::Clockify(options) => options.zone.clone(),
            Self::Ics(options) => options.zone.clone(),
            Self::ActivityWatch(_) => Zone::Fixed(time::UtcOffset::UTC),
        }
    }

    /// The prefix of every id this format's importer makes: what its sweep takes.
    #[must_use]
    pub fn id_prefix(&self) -> &'static str {
        match self {
            Self::Toggl(_) => toggl::ID_PREFIX,
            Self::Clockify(_) => clockify::ID_PREFIX,
            Self::ActivityWatch(_) => activitywatch::ID_PREFIX,
            Self::Ics(_) => ics::ID_PREFIX,
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
    /// Entries the sweep deleted; `None` when no sweep ran.
    pub swept: Option<u64>,
    /// Rows of other people than `--user`, left out (counted in `rows`).
    pub other_users: usize,
    /// A calendar's occurrences left out as all-day, cancelled or declined; `None` for the
    /// other formats.
    pub left_out: Option<LeftOut>,
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
            "swept": self.swept,
            "other_users": self.other_users,
            "left_out": self.left_out.map(|l| json!({
                "all_day": l.all_day,
                "cancelled": l.cancelled,
                "declined": l.declined,
            })),
        })
    }
}

/// What any export read, with its problems located in the file's own terms.
struct Read<'a> {
    entries: Entries<'a>,
    /// How many entries were read, and the items they make.
    counts: Counts,
    rows: usize,
    /// `(where, why)`: `line 6` or `aw-watcher-window_laptop events[3]`.
    skipped: Vec<(String, String)>,
    warnings: Vec<(String, String)>,
    /// The time the file covers, for the sweep; `None` when it has no entries.
    range: Option<Range>,
    /// Rows left out as other people's.
    other_people: usize,
    /// A calendar's occurrences left out, by why.
    left_out: Option<LeftOut>,
}

/// Entries counted as they are read.
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    entries: usize,
    /// The items they make: a split entry makes several.
    items: usize,
    /// Entries over 1,440 minutes, sent as several items.
    split: usize,
}

impl Counts {
    fn add(&mut self, entry: &ImportedEntry, zone: &Zone) {
        let pieces = pieces_of(entry, zone);
        self.entries += 1;
        self.items += pieces;
        self.split += usize::from(pieces > 1);
    }

    fn of(entries: &[ImportedEntry], zone: &Zone) -> Self {
        let mut counts = Self::default();
        entries.iter().for_each(|e| counts.add(e, zone));
        counts
    }
}

/// Where the entries of a read are when they are sent.
enum Entries<'a> {
    /// In memory: an ActivityWatch export's hours (a few per hour of the day, whatever the
    /// file's size).
    Held(Vec<ImportedEntry>),
    /// Still in the file, read again as they are sent: a CSV report or a calendar, whose
    /// first reading kept only its counts, range and problems.
    Csv {
        file: &'a std::fs::File,
        format: &'static CsvFormat,
        options: CsvOptions,
    },
    Calendar {
        file: &'a std::fs::File,
        options: IcsOptions,
    },
}

impl Entries<'_> {
    /// Hands each entry to `entry`, which answers `false` to stop.
    fn each(self, entry: &mut dyn FnMut(ImportedEntry) -> bool) -> Result<(), Failure> {
        match self {
            Self::Held(entries) => {
                for e in entries {
                    if !entry(e) {
                        break;
                    }
                }
                Ok(())
            }
            Self::Csv {
                file,
                format,
                options,
            } => again(file, |file| {
                read_csv(file, format, &options, entry).map(|_| ())
            }),
            Self::Calendar { file, options } => {
                again(file, |file| ics::stream(file, &options, entry).map(|_| ()))
            }
        }
    }
}

/// Reads `file` again from its start with `read`.
fn again(
    mut file: &std::fs::File,
    read: impl FnOnce(&std::fs::File) -> Result<(), ImportError>,
) -> Result<(), Failure> {
    let failed = |m: String| {
        Failure::Failed(format!(
            "the file could not be read again as it was sent (the entries before this were \
             sent; import it again): {m}"
        ))
    };
    std::io::Seek::rewind(&mut file).map_err(|e| failed(e.to_string()))?;
    read(file).map_err(|e| failed(e.to_string()))
}

/// Reads `file` as `format`, reports what it skipped on stderr and prints or sends the rest:
/// the counts, and the failure that stopped the run if one did. Failures:
/// [`Failure::Usage`] for a missing API key (checked before the file is read);
/// [`Failure::Failed`] for a file that cannot be read or is not of the format, for the first
/// malformed row in strict mode (nothing is sent), or for the service.
pub fn run(format: Format, file: &Path, upload: &Upload) -> (Report, Result<(), Failure>) {
    let mut report = Report {
        dry_run: upload.dry_run,
        ..Report::default()
    };
    let result = run_into(&mut report, &format, file, upload);
    (report, result)
}

fn run_into(
    report: &mut Report,
    format: &Format,
    file: &Path,
    upload: &Upload,
) -> Result<(), Failure> {
    let sweep = !upload.no_sweep;
    let started = std::time::Instant::now();
    let client = client_for(&upload.url, report.dry_run)?;
    let opened = std::fs::File::open(file)
        .map_err(|e| Failure::Failed(format!("cannot read {}: {e}", file.display())))?;
    let read = read(format, &opened).map_err(|e| {
        Failure::Failed(match &e {
            ImportError::Row { .. } | ImportError::Event { .. } | ImportError::Item { .. } => {
                eprintln!("stopped at {e}");
                format!("{e} (--strict: nothing was sent)")
            }
            ImportError::Header(m) | ImportError::Read(m) => format!("{}: {m}", file.display()),
            ImportError::DateOrder(m) | ImportError::People(m) => {
                return Failure::Usage(format!("{}: {m} (nothing was sent)", file.display()));
            }
        })
    })?;
    tell_what_was_read(report, &read);
    if let Some(path) = &upload.skipped_file {
        skipped::write_file(path, &read.skipped)?;
    }
    check_skipped(&read, upload.max_skipped())?;
    report.entries = read.counts.items;
    report.split = read.counts.split;
    let sweeping = match (&client, read.range) {
        (Some(client), Some(range)) if sweep => {
            if read.skipped.is_empty() {
                Some((client, range, not_sent_since(client, started)?))
            } else {
                eprintln!(
                    "not swept: {} rows were skipped, so the file may not hold everything the \
                     tracker has in its range (fix them, or import with --strict)",
                    read.skipped.len()
                );
                None
            }
        }
        _ => None,
    };
    // Only the entries whose later split pieces the sweep looks for are kept as they pass.
    let mut tail: Vec<ImportedEntry> = Vec::new();
    let tail_from = read.range.map(|range| range.to - sweep::TAIL);
    let (totals, result) = deliver_streamed(read.counts.items, client.as_ref(), |batch| {
        let mut batches = Batches::in_zone(batch, format.zone());
        read.entries.each(&mut |entry| {
            if tail_from.is_some_and(|from| entry.occurred_at >= from) {
                tail.push(entry.clone());
            }
            batches.push(entry)
        })?;
        batches.finish();
        Ok(())
    });
    report.totals = totals;
    result?;
    if let Some((client, range, since)) = sweeping {
        report.swept = Some(sweep_range(client, format, &tail, range, since)?);
    }
    Ok(())
}

/// What the first pass found, on stderr line by line and in the summary's counts.
fn tell_what_was_read(report: &mut Report, read: &Read<'_>) {
    for (at, why) in &read.skipped {
        eprintln!("skipped {at}: {why}");
    }
    for (at, what) in &read.warnings {
        eprintln!("warning {at}: {what}");
    }
    report.rows = read.rows;
    report.skipped = read.skipped.len();
    report.warnings = read.warnings.len();
    report.other_users = read.other_people;
    report.left_out = read.left_out;
    if let Some(l) = read.left_out {
        eprintln!(
            "left out: {} all-day, {} cancelled and {} declined occurrences",
            l.all_day, l.cancelled, l.declined
        );
    }
}

/// How long the service's `Date` can lag its clock: whole seconds, from a value the server
/// refreshes twice a second.
const DATE_LAG: std::time::Duration = std::time::Duration::from_secs(2);

/// The sweep's `not_sent_since`: the service's clock read before the first batch, so that
/// everything this run sends is stamped after it, and at least [`DATE_LAG`] after the run
/// began, so that everything sent before the run (a previous import a moment ago) is stamped
/// before it. The wait overlaps the reading of the file.
fn not_sent_since(
    client: &Client,
    started: std::time::Instant,
) -> Result<time::OffsetDateTime, Failure> {
    std::thread::sleep(DATE_LAG.saturating_sub(started.elapsed()));
    client.server_time()
}

/// Refuses to send anything from a file whose own rows gave nothing, or that skipped more than
/// `max` allows: a scheduler then sees a failure instead of a quietly partial import.
fn check_skipped(read: &Read, max: MaxSkipped) -> Result<(), Failure> {
    let own = read.rows - read.other_people;
    let skipped = read.skipped.len();
    if own > 0 && read.counts.entries == 0 {
        return Err(Failure::Failed(format!(
            "nothing to import: {own} rows read, {skipped} skipped, none gave an entry (nothing \
             was sent)"
        )));
    }
    if max.exceeded_by(skipped, own) {
        return Err(Failure::Failed(format!(
            "{skipped} of {own} rows were skipped, more than --max-skipped {} allows (nothing \
             was sent; see the skipped lines above)",
            max.describe()
        )));
    }
    Ok(())
}

/// Sweeps `range` of `format`'s entries sent before `since`, telling it on stderr.
fn sweep_range(
    client: &Client,
    format: &Format,
    entries: &[ImportedEntry],
    range: Range,
    since: time::OffsetDateTime,
) -> Result<u64, Failure> {
    let prefix = format.id_prefix();
    let swept = sweep::sweep(client, prefix, range, since)
        .and_then(|n| Ok(n + sweep::pieces_after(client, entries, range, since)?))
        .map_err(|e| {
            Failure::Failed(format!(
                "the entries were sent, but the sweep of what the tracker no longer has failed \
                 (run the import again): {e}"
            ))
        })?;
    if swept > 0 {
        eprintln!(
            "swept {swept} {prefix}* entries the file no longer has ({} to {})",
            format_time(range.from),
            format_time(range.to)
        );
    }
    Ok(swept)
}

fn format_time(at: time::OffsetDateTime) -> String {
    at.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// Reads `file` in one pass as it streams in (two for a CSV whose date order is taken from it:
/// the first reads only its start dates), never holding the file's text; a CSV's entries are
/// only counted, and read again as they are sent.
fn read<'a>(format: &Format, file: &'a std::fs::File) -> Result<Read<'a>, ImportError> {
    let (csv_format, options) = match format {
        Format::Toggl(options) => (&toggl::FORMAT, options),
        Format::Clockify(options) => (&clockify::FORMAT, options),
        Format::ActivityWatch(options) => {
            let parsed = activitywatch::parse(file, options.clone())?;
            return Ok(Read {
                range: hours_range(&parsed.entries),
                other_people: 0,
                left_out: None,
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
                counts: Counts::of(&parsed.entries, &format.zone()),
                entries: Entries::Held(parsed.entries),
            });
        }
        Format::Ics(options) => return calendar(file, options),
    };
    let mut options = options.clone();
    if options.slash_dates == SlashDates::Detect {
        options.slash_dates = slash_dates(file, csv_format)?;
        std::io::Seek::rewind(&mut &*file)
            .map_err(|e| ImportError::Read(format!("cannot read the CSV again: {e}")))?;
    }
    let mut counts = Counts::default();
    let csv = read_csv(file, csv_format, &options, &mut |entry| {
        counts.add(&entry, &options.zone);
        true
    })?;
    Ok(Read {
        range: csv
            .local_days
            .map(|(first, last)| days_range(first, last, &options)),
        rows: counts.entries + csv.skipped.len() + csv.other_people,
        other_people: csv.other_people,
        left_out: None,
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
        counts,
        entries: Entries::Csv {
            file,
            format: csv_format,
            options,
        },
    })
}

/// A calendar read from `file`: the occurrences in its range, counted (they are read again
/// as they are sent).
fn calendar<'a>(file: &'a std::fs::File, options: &IcsOptions) -> Result<Read<'a>, ImportError> {
    let mut counts = Counts::default();
    let parsed = ics::stream(file, options, &mut |entry| {
        counts.add(&entry, &options.zone);
        true
    })?;
    let notices = |list: Vec<ics::Notice>| list.into_iter().map(|n| (n.at, n.message)).collect();
    Ok(Read {
        // The range asked for, not the entries' first and last: the calendar is the whole
        // truth of it, so a meeting deleted at its edge is swept too.
        range: (counts.entries > 0).then_some(Range {
            from: options.from,
            to: options.to,
        }),
        rows: counts.entries + parsed.skipped.len(),
        other_people: 0,
        left_out: Some(parsed.left_out),
        skipped: notices(parsed.skipped),
        warnings: notices(parsed.warnings),
        counts,
        entries: Entries::Calendar {
            file,
            options: options.clone(),
        },
    })
}

/// Whole local days `first..=last` of a CSV report, in UTC.
fn days_range(first: time::Date, last: time::Date, options: &CsvOptions) -> Range {
    // Out of range only near the years 1 and 9999, where UTC's midnight is as good.
    let midnight = |day: time::Date| {
        options
            .zone
            .to_utc(day.midnight())
            .unwrap_or_else(|_| day.midnight().assume_utc())
    };
    // Only the last day the calendar has lacks a next one: the range then ends at its start.
    let after = last.next_day().map_or_else(|| midnight(last), midnight);
    Range {
        from: midnight(first).to_offset(time::UtcOffset::UTC),
        to: after.to_offset(time::UtcOffset::UTC),
    }
}

/// The UTC hours of an ActivityWatch export's entries, first to last.
fn hours_range(entries: &[ImportedEntry]) -> Option<Range> {
    let first = entries.iter().map(|e| e.occurred_at).min()?;
    let last = entries.iter().map(|e| e.occurred_at).max()?;
    Some(Range {
        from: first,
        to: last + time::Duration::HOUR,
    })
}
