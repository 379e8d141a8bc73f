//! The command line: the subcommands and their flags (clap). What they do is in [`crate::run`].

use std::path::PathBuf;

use clap::{ArgGroup, Args, Parser, Subcommand};
use time::{Date, OffsetDateTime, UtcOffset};

use crate::import::ics::IcsOptions;
use crate::import::{CsvOptions, People, SlashDates};
use crate::skipped::MaxSkipped;
use crate::summary::EXIT_CODES;
use crate::zone::Zone;

/// The service's address when neither `--url` nor DISCOVERY_URL says otherwise.
pub const DEFAULT_URL: &str = "http://127.0.0.1:8011";

/// Sends time-tracker entries to the Discovery Service as task mappings.
#[derive(Debug, Parser)]
#[command(name = "discovery-sync", version, about, after_help = EXIT_CODES)]
pub struct Cli {
    #[command(subcommand)]
    pub tracker: Tracker,
}

#[derive(Debug, Subcommand)]
pub enum Tracker {
    /// Timewarrior: `timew export [RANGE...]` (or a saved export) to the service, idempotently.
    ///
    /// The API key is read from DISCOVERY_API_KEY.
    #[command(group(ArgGroup::new("classify").required(true).args(["mapping", "server_rules"])))]
    #[command(after_help = EXIT_CODES)]
    Timewarrior {
        /// The TOML file mapping tags to foundations (ordered rules, first match wins).
        #[arg(long, value_name = "FILE")]
        mapping: Option<PathBuf>,
        /// Leave the mapping to the server: send every closed interval without a foundation
        /// and with its tags, for the rules of `/integration/rules` to classify.
        #[arg(long)]
        server_rules: bool,
        /// Read a saved `timew export` from FILE (`-` = stdin) instead of running timew.
        #[arg(long, value_name = "FILE|-")]
        input: Option<PathBuf>,
        /// The service's base URL.
        #[arg(long, env = "DISCOVERY_URL", default_value = DEFAULT_URL)]
        url: String,
        /// The timew program to run.
        #[arg(long, value_name = "PROGRAM", default_value = "timew")]
        timew: String,
        /// Print the exact request bodies, one per line, and send nothing.
        #[arg(long)]
        dry_run: bool,
        /// The person's zone, by IANA name, whose midnights cut an interval longer than a day.
        /// Default: the account's zone in the service (read only when an interval is that
        /// long), else UTC with a warning.
        #[arg(long, value_name = "ZONE", value_parser = Zone::named)]
        timezone: Option<Zone>,
        /// The range given to `timew export` (e.g. `:week`, or `from 2026-11-01 to today`);
        /// none = everything. Not allowed with --input.
        #[arg(value_name = "RANGE", conflicts_with = "input")]
        range: Vec<String>,
    },
    /// Toggl Track: a detailed report CSV (Reports → Detailed → Export → CSV) to the service.
    ///
    /// Entries go without a foundation, tagged `project:<name>` and with their Toggl tags: the
    /// server's rules classify them. The API key is read from DISCOVERY_API_KEY.
    #[command(after_help = EXIT_CODES)]
    Toggl(CsvImport),
    /// Clockify: a detailed report CSV (Reports → Detailed → Export → Save as CSV) to the service.
    ///
    /// Entries go without a foundation, tagged `project:<name>` and with their Clockify tags:
    /// the server's rules classify them. The API key is read from DISCOVERY_API_KEY.
    #[command(after_help = EXIT_CODES)]
    Clockify(CsvImport),
    /// ActivityWatch: an export (`/api/0/export`) to the service as active time per host, app
    /// and hour.
    ///
    /// Entries go without a foundation, tagged `app:<app>` and `host:<hostname>`: the
    /// server's rules classify them. The API key is read from DISCOVERY_API_KEY.
    #[command(name = "activitywatch", after_help = EXIT_CODES)]
    ActivityWatch(ExportImport),
    /// A calendar (.ics): the meetings of a range to the service, one entry per occurrence.
    ///
    /// Entries go without a foundation, labelled with the summary and tagged with the
    /// categories: the server's rules classify them. All-day, cancelled and declined events
    /// are left out and counted. The API key is read from DISCOVERY_API_KEY.
    #[command(after_help = EXIT_CODES)]
    Ics(IcsImport),
}

/// The flags of a CSV import.
#[derive(Debug, Args)]
pub struct CsvImport {
    /// The exported CSV file.
    #[arg(long, value_name = "FILE")]
    pub csv: PathBuf,
    /// The time zone of the times in the file, by IANA name (`Europe/Berlin`): the exporting
    /// person's profile zone, its rules applied on each date (daylight-saving time included).
    /// Default: the account's zone in the service, else UTC with a warning. The file does not
    /// say it.
    #[arg(long, value_name = "ZONE", value_parser = Zone::named, conflicts_with = "utc_offset")]
    pub timezone: Option<Zone>,
    /// Instead of --timezone, one UTC offset for every date, for a file already in a fixed
    /// offset: `+01:00`, `-05:00`, `+05:30` or `Z`.
    #[arg(long, value_name = "±HH:MM", allow_hyphen_values = true, value_parser = parse_offset)]
    pub utc_offset: Option<UtcOffset>,
    /// Read `03/04/2026` as 3 April (day first). Without it or --month-first, the order is
    /// taken from the file's dates with a day above 12, and a file that has none is refused.
    #[arg(long, conflicts_with = "month_first")]
    pub day_first: bool,
    /// Read `03/04/2026` as 4 March (month first, the US form).
    #[arg(long)]
    pub month_first: bool,
    /// Only this person's rows of a team export, by e-mail or user name (case-insensitive).
    /// Without it, a file of several people is refused, naming them.
    #[arg(long, value_name = "NAME|E-MAIL")]
    pub user: Option<String>,
    #[command(flatten)]
    pub upload: Upload,
}

/// --timezone, else --utc-offset; `None` when neither is given (the account's zone is the
/// default: [`crate::account::zone_in_use`]).
fn zone_of(timezone: Option<&Zone>, utc_offset: Option<UtcOffset>) -> Option<Zone> {
    timezone.cloned().or(utc_offset.map(Zone::Fixed))
}

impl CsvImport {
    /// The zone the command line gives, if it gives one.
    #[must_use]
    pub fn given_zone(&self) -> Option<Zone> {
        zone_of(self.timezone.as_ref(), self.utc_offset)
    }

    /// The parser's options, the file read in `zone`.
    #[must_use]
    pub fn options(&self, zone: Zone) -> CsvOptions {
        CsvOptions {
            people: self.user.clone().map_or(People::One, People::Only),
            zone,
            strict: self.upload.strict,
            slash_dates: match (self.day_first, self.month_first) {
                (true, _) => SlashDates::DayFirst,
                (_, true) => SlashDates::MonthFirst,
                _ => SlashDates::Detect,
            },
        }
    }
}

/// How far back a calendar is read when no `--from` is given: two years. A recurring rule is
/// expanded only inside the range, so this also bounds the work a hostile rule can ask for.
pub const DEFAULT_RANGE_DAYS: i64 = 730;

/// The flags of a calendar import.
#[derive(Debug, Args)]
pub struct IcsImport {
    /// The calendar file (iCalendar, .ics).
    #[arg(long, value_name = "FILE")]
    pub file: PathBuf,
    /// The zone of the calendar's floating times and all-day dates (times with a TZID or in
    /// UTC say their own), by IANA name, and of --from and --to. Default: the account's zone
    /// in the service, else UTC with a warning.
    #[arg(long, value_name = "ZONE", value_parser = Zone::named, conflicts_with = "utc_offset")]
    pub timezone: Option<Zone>,
    /// Instead of --timezone, one UTC offset for every date: `+01:00`, `Z`.
    #[arg(long, value_name = "±HH:MM", allow_hyphen_values = true, value_parser = parse_offset)]
    pub utc_offset: Option<UtcOffset>,
    /// The first day whose meetings are read (YYYY-MM-DD). Default: two years (730 days)
    /// before now.
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_day)]
    pub from: Option<Date>,
    /// The last day whose meetings are read (YYYY-MM-DD), included. Default: up to now.
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_day)]
    pub to: Option<Date>,
    /// The calendar's owner, by e-mail: the events they declined are left out. Default: the
    /// calendar's name (X-WR-CALNAME) when it is an e-mail address.
    #[arg(long, value_name = "E-MAIL")]
    pub user: Option<String>,
    #[command(flatten)]
    pub upload: Upload,
}

impl IcsImport {
    /// The zone the command line gives, if it gives one.
    #[must_use]
    pub fn given_zone(&self) -> Option<Zone> {
        zone_of(self.timezone.as_ref(), self.utc_offset)
    }

    /// The parser's options in `zone`, the range resolved there as of `now`.
    ///
    /// # Errors
    /// A message when --from is after --to, or a day is out of range.
    pub fn options(&self, now: OffsetDateTime, zone: Zone) -> Result<IcsOptions, String> {
        let midnight = |day: Date| zone.to_utc(day.midnight());
        let from = match self.from {
            Some(day) => midnight(day)?,
            None => now - time::Duration::days(DEFAULT_RANGE_DAYS),
        };
        let to = match self.to {
            Some(day) => midnight(day.next_day().ok_or("--to is out of range")?)?,
            None => now,
        };
        if from >= to {
            return Err(format!(
                "--from must come before --to (the range read is {} to {})",
                zone.rfc3339(from),
                zone.rfc3339(to)
            ));
        }
        Ok(IcsOptions {
            zone,
            strict: self.upload.strict,
            from,
            to,
            owner: self.user.clone(),
        })
    }
}

/// `YYYY-MM-DD`.
fn parse_day(text: &str) -> Result<Date, String> {
    Date::parse(
        text.trim(),
        time::macros::format_description!("[year]-[month]-[day]"),
    )
    .map_err(|_| format!("bad day {text:?} (expected YYYY-MM-DD)"))
}

/// The flags of an ActivityWatch import: an export file, or a running aw-server.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("source").required(true).args(["export", "server"])))]
pub struct ExportImport {
    /// The export: ActivityWatch's JSON of all buckets.
    #[arg(long, value_name = "FILE")]
    pub export: Option<PathBuf>,
    /// Instead of a file, a running aw-server (`http://127.0.0.1:5600`): every complete hour
    /// since the last run (and the hours of --reread-hours before it again), read over its
    /// REST API. For a timer every few minutes.
    #[arg(long, value_name = "URL", conflicts_with_all = ["no_sweep", "max_skipped", "skipped_file"])]
    pub server: Option<String>,
    /// With --server: the file keeping where the last run stopped. Default:
    /// $XDG_STATE_HOME/discovery-sync/activitywatch-<host>-<port>.json (~/.local/state/...).
    #[arg(long, value_name = "FILE", requires = "server")]
    pub state: Option<PathBuf>,
    /// With --server, for the first run only (no state file yet): the day to start from, at
    /// its midnight in the zone in use (--timezone, else the account's). Default: 7 days back.
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_day, requires = "server")]
    pub since: Option<Date>,
    /// With --server: each run also reads again the complete hours of this many hours before
    /// where the last run stopped, so that events reaching aw-server late (a watcher that was
    /// offline) are imported; an hour read again is updated, never counted twice. 0: none.
    #[arg(long, value_name = "HOURS", default_value_t = 24, requires = "server")]
    pub reread_hours: u32,
    /// The person's zone, by IANA name: the time is cut at its hours, which are UTC's
    /// wherever its offset is whole hours and half past them in Asia/Kolkata (+05:30), so
    /// that each hour lands on the person's own day. Default: the account's zone in the
    /// service, else UTC with a warning.
    #[arg(long, value_name = "ZONE", value_parser = Zone::named)]
    pub timezone: Option<Zone>,
    #[command(flatten)]
    pub upload: Upload,
}

/// The flags every import shares.
#[derive(Debug, Args)]
pub struct Upload {
    /// The service's base URL.
    #[arg(long, env = "DISCOVERY_URL", default_value = DEFAULT_URL)]
    pub url: String,
    /// Print the exact request bodies, one per line, and send nothing (no API key needed).
    #[arg(long)]
    pub dry_run: bool,
    /// Stop at the first malformed row (exit 1, nothing sent) instead of skipping it.
    #[arg(long)]
    pub strict: bool,
    /// Do not delete, after the upload, this source's entries in the file's range that the
    /// file no longer has (deleted or moved in the tracker).
    #[arg(long)]
    pub no_sweep: bool,
    /// Fail (exit 1, nothing sent) when more rows than this are skipped: a number of rows, or
    /// a share of the rows read (`5%`). Default: 0 with --strict, else 5%.
    #[arg(long, value_name = "N|P%", value_parser = MaxSkipped::parse)]
    pub max_skipped: Option<MaxSkipped>,
    /// Write the skipped rows, where each is and why, to FILE as CSV (`where,reason`).
    #[arg(long, value_name = "FILE")]
    pub skipped_file: Option<PathBuf>,
}

impl Upload {
    /// The limit on skipped rows in force.
    #[must_use]
    pub fn max_skipped(&self) -> MaxSkipped {
        self.max_skipped
            .unwrap_or_else(|| MaxSkipped::default_for(self.strict))
    }
}

/// `+02:00`, `-05:00`, `+0530`, `+2`, `Z` or `UTC`.
///
/// # Errors
/// A message naming the forms accepted.
pub fn parse_offset(text: &str) -> Result<UtcOffset, String> {
    let bad = || format!("bad UTC offset {text:?} (expected e.g. +02:00, -05:00, +05:30 or Z)");
    let text = text.trim();
    if text.eq_ignore_ascii_case("z") || text.eq_ignore_ascii_case("utc") {
        return Ok(UtcOffset::UTC);
    }
    let (sign, rest) = match text.split_at_checked(1) {
        Some(("+", rest)) => (1, rest),
        Some(("-", rest)) => (-1, rest),
        _ => return Err(bad()),
    };
    let (hours, minutes) = match rest.split_once(':') {
        Some((h, m)) => (h, m),
        None if rest.len() == 4 => rest.split_at(2),
        None => (rest, "0"),
    };
    let number = |s: &str| {
        if s.is_empty() || s.len() > 2 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        s.parse::<i8>().map_err(|_| bad())
    };
    let (hours, minutes) = (number(hours)?, number(minutes)?);
    if hours > 18 || minutes > 59 {
        return Err(bad());
    }
    UtcOffset::from_hms(sign * hours, sign * minutes, 0).map_err(|_| bad())
}
