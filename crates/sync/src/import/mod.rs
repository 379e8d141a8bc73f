//! Importers: other trackers' exports read into [`ImportedEntry`] values, ready to be sent as
//! task mappings without a foundation (docs/api.md, "Mapping rules and unmapped time"). Pure
//! parsing: no HTTP, no files opened here; the caller hands in the bytes.
//!
//! - [`toggl`]: Toggl Track's detailed report, CSV.
//! - [`clockify`]: Clockify's detailed report, CSV.
//! - [`activitywatch`]: ActivityWatch's export, JSON: active time per host, app and UTC hour
//!   (its own rules for ids, tags and skipped events are in that module; what follows is the
//!   two CSV formats').
//! - [`ics`]: a calendar, iCalendar: the meetings in a range (its own rules too).
//!
//! **Rows.** A row that cannot be read (bad date, time or duration, a missing cell, text that is
//! not UTF-8) becomes a [`SkippedRow`] naming its line: the physical line where the row starts,
//! 1-based, the header being line 1 (what an editor shows; a quoted cell with a line break
//! makes the rows after it start further down). With [`CsvOptions::strict`] the first such row
//! is an [`ImportError::Row`] instead. A header without the columns a format needs is always an
//! [`ImportError::Header`]: nothing can be read from that file.
//!
//! **Ids.** `<source>:<16 hex digits of SHA-256>` over the JSON array `[who, start]`, where `who`
//! is the row's e-mail (its user name when the e-mail cell is empty or absent) and `start` is
//! the start as written in the file, normalised to `YYYY-MM-DDTHH:MM:SS` *local* time. Neither
//! export carries an entry id, and these two fields are what identifies an entry in both
//! trackers: one person starts one entry at one moment. They are stable because
//! - the same file gives the same ids, whatever the time zone the caller passes (the local
//!   start is hashed, not the UTC one) and whatever the date or clock format (the parsed value
//!   is hashed, not the text);
//! - editing an entry's description, project, tags or end in the tracker and exporting again
//!   keeps its id, so re-importing updates the entry instead of adding a second one (the
//!   service upserts per `external_task_id`).
//!
//! Two rows with the same person and start (trackers allow overlapping entries) would collide;
//! the second gets `:2` appended, the third `:3`, and so on, in file order, so a file read twice
//! still gives the same ids.
//!
//! **Tags.** The project goes first, as `project:<name>`, then the tracker's own tags in file
//! order. The prefix keeps a project and a tag of the same name apart, so a rule
//! `{"tag": "project:Website"}` means the project and nothing else. The contract allows at most
//! 20 tags of 1-100 characters: empty tags and repeats are dropped silently, a tag over 100
//! characters is cut to 100, and tags past the 20th are dropped; each cut or drop is reported as
//! a [`Warning`] with the row's line (the entry itself is kept). The project, being first, is
//! never dropped.
//!
//! **Label.** The description, trimmed and cut to 500 characters; `None` when empty. Control
//! characters the service refuses in text (below the space, but tab, line feed and carriage
//! return) become spaces, in labels silently and in tags with a [`Warning`].
//!
//! **Minutes.** The export's duration cell (`H:MM:SS`, hours may exceed 24), rounded to the
//! nearest minute, 30 seconds up ([`crate::entries::rounded_minutes`]). An entry over 1,440
//! minutes is kept whole: whoever sends it splits it with [`crate::entries::pieces_in`], at the
//! person's midnights.
//!
//! **The repeated hour.** A start or end inside the hour the clocks go back over is read as
//! the reading that the row's duration confirms against its end (`repeated`); where nothing
//! decides, as the first, with a [`Warning`].

pub mod activitywatch;
pub mod clockify;
mod date_order;
pub mod ics;
mod lines;
mod people;
mod repeated;
mod shape;
pub mod toggl;

use std::collections::HashMap;
use std::fmt;
use std::io::Read;

use sha2::{Digest, Sha256};
use time::macros::format_description;
use time::{Date, Month, OffsetDateTime, PrimitiveDateTime, Time, UtcOffset};

use crate::entries::{MAX_LABEL_CHARS, rounded_minutes};
use crate::tags::{fit_tags_with, without_refused};
use crate::zone::Zone;

pub use crate::tags::{MAX_TAG_CHARS, MAX_TAGS};
pub use people::People;

/// One entry read from a tracker's export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedEntry {
    /// Stable across imports of the same entry (see the module documentation).
    pub external_task_id: String,
    /// The description; `None` when empty.
    pub task_label: Option<String>,
    /// `project:<name>` first when there is a project, then the tracker's tags.
    pub tags: Vec<String>,
    pub project: Option<String>,
    pub minutes: u32,
    /// The entry's start, in UTC.
    pub occurred_at: OffsetDateTime,
}

/// A row left out, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedRow {
    /// Where the row starts in the file, 1-based, the header being line 1.
    pub line: usize,
    pub reason: String,
}

/// A row kept, but changed to fit the contract (tags cut or dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub line: usize,
    pub message: String,
}

/// What an import read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub entries: Vec<ImportedEntry>,
    /// The first and last local start dates of the entries read: the days the report covers.
    pub local_days: Option<(Date, Date)>,
    /// Rows of other people than `--user`, left out.
    pub other_people: usize,
    pub skipped: Vec<SkippedRow>,
    pub warnings: Vec<Warning>,
}

/// Why an import read nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportError {
    /// The header lacks a column the format needs, or there is no header.
    Header(String),
    /// Strict mode: the first malformed row.
    Row { line: usize, reason: String },
    /// Strict mode: the first malformed event of an ActivityWatch export, at `index` (0-based,
    /// as `jq '.buckets[BUCKET].events[INDEX]'` counts) of `bucket`; no index when the bucket
    /// itself is malformed.
    Event {
        bucket: String,
        index: Option<usize>,
        reason: String,
    },
    /// Strict mode: the first malformed item of a file whose items are not rows (a calendar's
    /// events), at `at` (`event <UID>`).
    Item { at: String, reason: String },
    /// The input could not be read at all.
    Read(String),
    /// The file's slash dates could be read day first or month first, and no flag said which
    /// (see `date_order`): nothing was read.
    DateOrder(String),
    /// A file of several people without `--user`, or a `--user` the file does not hold (see
    /// `people`).
    People(String),
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Header(m) | Self::Read(m) | Self::DateOrder(m) | Self::People(m) => {
                f.write_str(m)
            }
            Self::Row { line, reason } => write!(f, "line {line}: {reason}"),
            Self::Item { at, reason } => write!(f, "{at}: {reason}"),
            Self::Event {
                bucket,
                index,
                reason,
            } => write!(f, "{}: {reason}", event_locator(bucket, *index)),
        }
    }
}

impl std::error::Error for ImportError {}

/// Where an ActivityWatch event is: `<bucket> events[<index>]`, or `bucket <bucket>` for the
/// whole bucket.
#[must_use]
pub fn event_locator(bucket: &str, index: Option<usize>) -> String {
    match index {
        Some(i) => format!("{bucket} events[{i}]"),
        None => format!("bucket {bucket}"),
    }
}

/// How to read dates written with slashes, `03/04/2026`: the trackers write them in the
/// person's chosen format, and the text alone cannot tell April 3rd from March 4th.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SlashDates {
    /// From the file: the order that its dates with a day above 12 show (see `date_order`);
    /// a file that cannot tell is refused.
    Detect,
    /// `MM/DD/YYYY`, the US format (Clockify's default).
    #[default]
    MonthFirst,
    /// `DD/MM/YYYY`.
    DayFirst,
}

/// What the caller knows that the CSV file does not say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvOptions {
    /// The zone of the local times in the file. Toggl and Clockify write start times in the
    /// time zone of the exporting person's profile, without an offset: pass that zone (its
    /// rules apply on each date), or a fixed offset for a file already in one.
    pub zone: Zone,
    /// The first malformed row fails the import instead of being skipped.
    pub strict: bool,
    /// How to read `a/b/YYYY` dates. `YYYY-MM-DD` and `DD.MM.YYYY` are read as such always.
    pub slash_dates: SlashDates,
    /// Whose rows to read.
    pub people: People,
}

impl CsvOptions {
    /// Lenient, US slash dates, local times at `offset`.
    #[must_use]
    pub fn new(offset: UtcOffset) -> Self {
        Self {
            zone: Zone::Fixed(offset),
            strict: false,
            slash_dates: SlashDates::MonthFirst,
            people: People::All,
        }
    }

    /// The same, strict.
    #[must_use]
    pub fn strict(self) -> Self {
        Self {
            strict: true,
            ..self
        }
    }
}

/// The column names of a detailed-report CSV, matched case-insensitively after trimming.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CsvFormat {
    /// The id prefix: `toggl`, `clockify`.
    pub source: &'static str,
    // Required.
    pub start_date: &'static str,
    pub start_time: &'static str,
    pub duration: &'static str,
    // Optional: an absent column reads as empty cells.
    pub email: &'static str,
    pub user: &'static str,
    pub project: &'static str,
    pub description: &'static str,
    /// The end, used for an entry whose duration cell is rounded (decimal hours).
    pub end_date: &'static str,
    pub end_time: &'static str,
    pub tags: &'static str,
}

struct Columns {
    /// How many cells the header has: every row must have as many.
    width: usize,
    /// The delimiter the file uses.
    delimiter: u8,
    start_date: usize,
    start_time: usize,
    duration: usize,
    email: Option<usize>,
    user: Option<usize>,
    project: Option<usize>,
    description: Option<usize>,
    tags: Option<usize>,
    end_date: Option<usize>,
    end_time: Option<usize>,
}

impl Columns {
    fn find(
        headers: &csv::StringRecord,
        format: &CsvFormat,
        delimiter: u8,
    ) -> Result<Self, ImportError> {
        let names: Vec<String> = headers
            .iter()
            .map(|h| h.trim_start_matches('\u{feff}').trim().to_lowercase())
            .collect();
        let optional = |name: &str| names.iter().position(|h| *h == name.to_lowercase());
        let required = |name: &str| {
            optional(name).ok_or_else(|| {
                ImportError::Header(format!(
                    "not a {} detailed report: no {name:?} column (columns read, separated by \
                     {}: {})",
                    format.source,
                    shape::name(delimiter),
                    shape::quoted_columns(headers)
                ))
            })
        };
        Ok(Self {
            width: headers.len(),
            delimiter,
            start_date: required(format.start_date)?,
            start_time: required(format.start_time)?,
            duration: required(format.duration)?,
            email: optional(format.email),
            user: optional(format.user),
            project: optional(format.project),
            description: optional(format.description),
            end_date: optional(format.end_date),
            end_time: optional(format.end_time),
            tags: optional(format.tags),
        })
    }
}

/// Reads a detailed-report CSV of `format`, every entry into [`Parsed::entries`]. With
/// [`SlashDates::Detect`], the date order is taken from the file first (it is then read whole
/// into memory: a caller with a file resolves the order with [`slash_dates`] over a first pass
/// instead, and streams the entries with [`read_csv`]).
pub(crate) fn parse_csv<R: Read>(
    mut input: R,
    format: &CsvFormat,
    mut options: CsvOptions,
) -> Result<Parsed, ImportError> {
    let mut entries = Vec::new();
    let mut keep = |entry| {
        entries.push(entry);
        true
    };
    let mut parsed = if options.slash_dates == SlashDates::Detect {
        let mut bytes = Vec::new();
        input
            .read_to_end(&mut bytes)
            .map_err(|e| ImportError::Read(format!("cannot read the CSV: {e}")))?;
        options.slash_dates = date_order::detect(bytes.as_slice(), format)?;
        read_csv(bytes.as_slice(), format, &options, &mut keep)?
    } else {
        read_csv(input, format, &options, &mut keep)?
    };
    parsed.entries = entries;
    Ok(parsed)
}

/// Reads a detailed-report CSV of `format` in one pass as it streams in, handing each entry
/// to `entry` as soon as its row is read instead of keeping it ([`Parsed::entries`] stays
/// empty); `entry` answers `false` to stop the reading there. What is kept while reading is
/// the skipped rows, the warnings, the people seen and 8 bytes per row (to number the entries
/// of one person that start at one moment, see the module's **Ids**), never the rows. The
/// slash dates must be resolved ([`slash_dates`]): `Detect` reads them month first.
///
/// # Errors
/// As [`parse_csv`].
pub(crate) fn read_csv<R: Read>(
    input: R,
    format: &CsvFormat,
    options: &CsvOptions,
    entry: &mut dyn FnMut(ImportedEntry) -> bool,
) -> Result<Parsed, ImportError> {
    parse_rows(input, format, options, entry)
}

/// A detailed-report CSV format, to stream a report of it ([`Report::stream`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Report {
    Toggl,
    Clockify,
}

impl Report {
    /// Reads a report of this format as it streams in, handing each entry to `entry` (which
    /// answers `false` to stop) instead of keeping it (what is kept is in `read_csv`). The date order must
    /// be given, not [`SlashDates::Detect`] (found with a first pass of its own).
    ///
    /// # Errors
    /// As [`toggl::parse`].
    pub fn stream<R: Read>(
        self,
        input: R,
        options: &CsvOptions,
        entry: &mut dyn FnMut(ImportedEntry) -> bool,
    ) -> Result<Parsed, ImportError> {
        read_csv(input, self.format(), options, entry)
    }

    pub(crate) fn format(self) -> &'static CsvFormat {
        match self {
            Self::Toggl => &toggl::FORMAT,
            Self::Clockify => &clockify::FORMAT,
        }
    }
}

/// The order `input`'s slash dates are written in, read in one pass of its start-date column
/// (see `date_order`).
///
/// # Errors
/// [`ImportError::DateOrder`] when the file cannot tell; the header's errors as the parse
/// would give them.
pub(crate) fn slash_dates<R: Read>(
    input: R,
    format: &CsvFormat,
) -> Result<SlashDates, ImportError> {
    date_order::detect(input, format)
}

/// A reader of `input` past its header, the columns of `format` found in that header, and the
/// lines of the records it reads (see [`lines`]).
fn open_csv<R: Read>(input: R, format: &CsvFormat) -> Result<OpenCsv<R>, ImportError> {
    let (input, lines) = lines::Newlines::new(input);
    let mut input = std::io::BufReader::new(input);
    let head = std::io::BufRead::fill_buf(&mut input)
        .map_err(|e| ImportError::Read(format!("cannot read the CSV: {e}")))?;
    let delimiter = shape::delimiter(head);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .delimiter(delimiter)
        // A short or long row is reported as that row's problem, not as a reader error.
        .flexible(true)
        .from_reader(input);
    let headers = reader
        .headers()
        .map_err(|e| ImportError::Header(format!("cannot read the header: {e}")))?
        .clone();
    if headers.is_empty() {
        return Err(ImportError::Header("the file is empty".to_owned()));
    }
    let columns = Columns::find(&headers, format, delimiter)?;
    Ok((reader, columns, Lines(lines)))
}

/// What [`open_csv`] gives.
type OpenCsv<R> = (
    csv::Reader<std::io::BufReader<lines::Newlines<R>>>,
    Columns,
    Lines,
);

/// The line numbers of the records of one reader.
struct Lines(std::rc::Rc<std::cell::RefCell<lines::LineIndex>>);

impl Lines {
    /// The physical line where the record at `position` starts, 1-based.
    fn of(&self, position: &csv::Position) -> usize {
        self.0.borrow_mut().line_at(position.byte())
    }
}

fn parse_rows<R: Read>(
    input: R,
    format: &CsvFormat,
    options: &CsvOptions,
    sink: &mut dyn FnMut(ImportedEntry) -> bool,
) -> Result<Parsed, ImportError> {
    let (mut reader, columns, lines) = open_csv(input, format)?;
    let mut parsed = Parsed::default();
    // Keyed by the id's 64 bits, not its text: this is kept for every row of the file.
    let mut seen: HashMap<u64, usize> = HashMap::new();
    let mut record = csv::StringRecord::new();
    let mut roster = people::Roster::default();
    // The last record, when it was short: a file that ends with one was cut off.
    let mut short_at_end = None;
    loop {
        let line = match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => record.position().map_or(0, |p| lines.of(p)),
            Err(e) => {
                let (line, reason) = unreadable(&e, &lines)?;
                short_at_end = None;
                skip(&mut parsed, options.strict, line, reason)?;
                continue;
            }
        };
        short_at_end = (record.len() < columns.width).then_some((line, record.len()));
        if let Some(reason) = misshapen(&record, &columns, line) {
            skip(&mut parsed, options.strict, line, reason)?;
            continue;
        }
        if !roster.takes(&options.people, &record, &columns) {
            parsed.other_people += 1;
            continue;
        }
        match read_row(&record, &columns, options, line, &mut parsed.warnings) {
            Ok((who, local, mut entry)) => {
                let day = local.date();
                parsed.local_days = Some(match parsed.local_days {
                    None => (day, day),
                    Some((first, last)) => (first.min(day), last.max(day)),
                });
                let id = stable_id(format.source, &who, local);
                let key = u64::from_str_radix(id.rsplit(':').next().unwrap_or_default(), 16)
                    .unwrap_or_default();
                let n = seen.entry(key).or_insert(0);
                *n += 1;
                entry.external_task_id = if *n == 1 { id } else { format!("{id}:{n}") };
                if !sink(entry) {
                    return Ok(parsed);
                }
            }
            Err(reason) => skip(&mut parsed, options.strict, line, reason)?,
        }
    }
    if let Some((line, cells)) = short_at_end {
        return Err(ImportError::Read(format!(
            "the file ends mid-row: line {line} has {cells} of the header's {} cells (was it \
             cut short, or is a quote left open?)",
            columns.width
        )));
    }
    roster.check(&options.people)?;
    Ok(parsed)
}

/// The line and reason of a record the CSV reader could not read; an error when it cannot say
/// where (the file itself could not be read).
fn unreadable(e: &csv::Error, lines: &Lines) -> Result<(usize, String), ImportError> {
    let Some(line) = e.position().map(|p| lines.of(p)) else {
        return Err(ImportError::Read(format!("cannot read the CSV: {e}")));
    };
    let reason = match e.kind() {
        csv::ErrorKind::Utf8 { .. } => "not UTF-8 text".to_owned(),
        _ => format!("unreadable row ({e})"),
    };
    Ok((line, reason))
}

/// Why a record's cells do not line up with the header's, if they do not. `line` is where it
/// starts: the rows a quote left open swallowed are named by their lines, since they are
/// lost with it.
fn misshapen(record: &csv::StringRecord, columns: &Columns, line: usize) -> Option<String> {
    if shape::swallows_rows(record, columns.width, columns.delimiter) {
        let last = line + shape::line_breaks(record);
        let swallowed = if last == line + 1 {
            format!("line {last} was")
        } else {
            format!("lines {} to {last} were", line + 1)
        };
        return Some(format!(
            "a quote left open in this row swallows the rows after it, up to the next quote: \
             {swallowed} read into it and not imported (close it, and import again)"
        ));
    }
    (record.len() != columns.width).then(|| {
        format!(
            "the row has {} cells where the header has {}: a quote left open (which swallows the rows \
             after it), or a delimiter inside a cell without quotes",
            record.len(),
            columns.width
        )
    })
}

fn skip(parsed: &mut Parsed, strict: bool, line: usize, reason: String) -> Result<(), ImportError> {
    if strict {
        return Err(ImportError::Row { line, reason });
    }
    parsed.skipped.push(SkippedRow { line, reason });
    Ok(())
}

/// One row: who, the local start, and the entry (its id still empty).
fn read_row(
    record: &csv::StringRecord,
    columns: &Columns,
    options: &CsvOptions,
    line: usize,
    warnings: &mut Vec<Warning>,
) -> Result<(String, PrimitiveDateTime, ImportedEntry), String> {
    let cell = |i: usize, name: &str| {
        record
            .get(i)
            .map(str::trim)
            .ok_or_else(|| format!("no {name} cell (the row has {} cells)", record.len()))
    };
    let optional = |i: Option<usize>| i.and_then(|i| record.get(i)).map_or("", str::trim);

    let date = parse_date(cell(columns.start_date, "start date")?, options.slash_dates)?;
    let clock = parse_clock(cell(columns.start_time, "start time")?)?;
    let (seconds, exact) = parse_duration(cell(columns.duration, "duration")?)?;
    let local = PrimitiveDateTime::new(date, clock);
    let starts = options.zone.readings(local)?;
    let ends = end_readings(record, columns, options);
    let (occurred_at, seconds) = match repeated::decide(&starts, &ends, seconds, exact) {
        repeated::Decided::One(start, seconds) => (start, seconds),
        repeated::Decided::Undecided(start, seconds) => {
            warnings.push(Warning {
                line,
                message: repeated::UNDECIDED.to_owned(),
            });
            (start, seconds)
        }
    };
    let minutes = u32::try_from(rounded_minutes(i64::from(seconds))).unwrap_or(u32::MAX);

    let email = optional(columns.email);
    let who = if email.is_empty() {
        optional(columns.user)
    } else {
        email
    };
    let project = Some(optional(columns.project))
        .filter(|p| !p.is_empty())
        .map(str::to_owned);
    let description = without_refused(optional(columns.description));
    let task_label = Some(
        description
            .trim()
            .chars()
            .take(MAX_LABEL_CHARS)
            .collect::<String>(),
    )
    .filter(|d| !d.is_empty());
    let tracker_tags = optional(columns.tags).split(',').map(str::trim);
    let project_tag = project.as_ref().map(|p| format!("project:{p}"));
    let tags = fit_tags(
        project_tag.as_deref().into_iter().chain(tracker_tags),
        line,
        warnings,
    );
    Ok((
        who.to_owned(),
        local,
        ImportedEntry {
            external_task_id: String::new(),
            task_label,
            tags,
            project,
            minutes,
            occurred_at,
        },
    ))
}

/// Every instant the row's end can be (two in a repeated hour); none when it has no readable
/// end.
fn end_readings(
    record: &csv::StringRecord,
    columns: &Columns,
    options: &CsvOptions,
) -> Vec<OffsetDateTime> {
    let cell = |i: Option<usize>| i.and_then(|i| record.get(i)).map(str::trim);
    let end = || {
        let date = parse_date(cell(columns.end_date)?, options.slash_dates).ok()?;
        let clock = parse_clock(cell(columns.end_time)?).ok()?;
        options
            .zone
            .readings(PrimitiveDateTime::new(date, clock))
            .ok()
    };
    end().unwrap_or_default()
}

/// `<source>:<16 hex digits of SHA-256 over the JSON array [who, local start]>`.
#[must_use]
pub fn stable_id(source: &str, who: &str, local_start: PrimitiveDateTime) -> String {
    let format = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]");
    let start = local_start.format(format).unwrap_or_default();
    hashed_id(source, &[who, start.as_str()])
}

/// `<source>:<16 hex digits of SHA-256 over the JSON array of parts>`: every importer's ids.
pub(crate) fn hashed_id(source: &str, parts: &[&str]) -> String {
    // JSON keeps ("a,b", "c") and ("a", "b,c") apart, which joining would not.
    let canonical = serde_json::to_string(parts).unwrap_or_default();
    let digest = hex::encode(Sha256::digest(canonical.as_bytes()));
    format!("{source}:{}", &digest[..16])
}

/// At most [`MAX_TAGS`] distinct non-empty tags of at most [`MAX_TAG_CHARS`] characters, in
/// order; each cut or drop is a [`Warning`] on `line`.
fn fit_tags<'a>(
    tags: impl Iterator<Item = &'a str>,
    line: usize,
    warnings: &mut Vec<Warning>,
) -> Vec<String> {
    fit_tags_with(tags, |message| warnings.push(Warning { line, message }))
}

/// `YYYY-MM-DD`, `DD.MM.YYYY`, or `a/b/YYYY` read as `slash` says.
fn parse_date(text: &str, slash: SlashDates) -> Result<Date, String> {
    let bad = || format!("bad date {text:?}");
    let number = |s: &str| {
        if s.is_empty() || s.len() > 4 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        s.parse::<i32>().map_err(|_| bad())
    };
    let parts: Vec<&str> = text.split(['-', '.', '/']).collect();
    let [a, b, c] = parts.as_slice() else {
        return Err(bad());
    };
    let (year, month, day) = if text.contains('-') && a.len() == 4 {
        (number(a)?, number(b)?, number(c)?)
    } else if text.contains('.') && c.len() == 4 {
        (number(c)?, number(b)?, number(a)?)
    } else if text.contains('/') && c.len() == 4 {
        match slash {
            // `Detect` is resolved before any row is read.
            SlashDates::MonthFirst | SlashDates::Detect => (number(c)?, number(a)?, number(b)?),
            SlashDates::DayFirst => (number(c)?, number(b)?, number(a)?),
        }
    } else {
        return Err(bad());
    };
    let month = u8::try_from(month)
        .ok()
        .and_then(|m| Month::try_from(m).ok())
        .ok_or_else(bad)?;
    let day = u8::try_from(day).map_err(|_| bad())?;
    Date::from_calendar_date(year, month, day).map_err(|_| bad())
}

/// `HH:MM[:SS]`, 24-hour, or `hh:mm[:ss] AM|PM`.
fn parse_clock(text: &str) -> Result<Time, String> {
    let bad = || format!("bad time {text:?}");
    let upper = text.trim().to_ascii_uppercase();
    let (clock, meridiem) = if let Some(rest) = upper.strip_suffix("AM") {
        (rest.trim_end(), Some(false))
    } else if let Some(rest) = upper.strip_suffix("PM") {
        (rest.trim_end(), Some(true))
    } else {
        (upper.as_str(), None)
    };
    let parts = clock
        .split(':')
        .map(|p| {
            if p.is_empty() || p.len() > 2 || !p.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            p.parse::<u8>().map_err(|_| bad())
        })
        .collect::<Result<Vec<u8>, String>>()?;
    let (hour, minute, second) = match parts.as_slice() {
        [h, m] => (*h, *m, 0),
        [h, m, s] => (*h, *m, *s),
        _ => return Err(bad()),
    };
    let hour = match meridiem {
        None => hour,
        Some(_) if hour == 0 || hour > 12 => return Err(bad()),
        Some(false) => hour % 12,
        Some(true) => hour % 12 + 12,
    };
    Time::from_hms(hour, minute, second).map_err(|_| bad())
}

/// A duration cell in seconds, in any of the trackers' formats: `H:MM:SS` (Toggl; Clockify's
/// "full"), `H:MM` (Clockify's "compact") or decimal hours with a point or a comma (Clockify's
/// "decimal", `3.43` or `3,43`; hours any number of digits). `true` when the value is exact to
/// the second; decimal hours are rounded to 0.01 h (36 s) by the tracker.
fn parse_duration(text: &str) -> Result<(u32, bool), String> {
    let bad = || format!("bad duration {text:?} (expected H:MM:SS, H:MM or decimal hours)");
    let digits = |p: &str, max_len: usize| {
        if p.is_empty() || p.len() > max_len || !p.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        p.parse::<u32>().map_err(|_| bad())
    };
    let parts: Vec<&str> = text.split(':').collect();
    let (h, m, s) = match parts.as_slice() {
        [h, m, s] => (digits(h, 6)?, digits(m, 2)?, digits(s, 2)?),
        [h, m] => (digits(h, 6)?, digits(m, 2)?, 0),
        [decimal] => {
            let (whole, fraction) = decimal.split_once(['.', ',']).unwrap_or((decimal, ""));
            let whole = digits(whole, 6)?;
            let fraction = if fraction.is_empty() {
                0.0
            } else {
                f64::from(digits(fraction, 6)?)
                    / 10f64.powi(i32::try_from(fraction.len()).map_err(|_| bad())?)
            };
            let seconds = ((f64::from(whole) + fraction) * 3_600.0).round();
            if !(0.0..=f64::from(u32::MAX)).contains(&seconds) {
                return Err(bad());
            }
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            return Ok((seconds as u32, false));
        }
        _ => return Err(bad()),
    };
    if m > 59 || s > 59 {
        return Err(bad());
    }
    h.checked_mul(3_600)
        .and_then(|h| h.checked_add(m * 60 + s))
        .map(|seconds| (seconds, true))
        .ok_or_else(bad)
}
