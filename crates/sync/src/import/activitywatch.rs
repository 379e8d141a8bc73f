//! ActivityWatch's export (the JSON of `GET /api/0/export`, or Settings → Export all buckets as
//! JSON) read into one entry per host, app and hour of *active* time (the person's hours:
//! [`ExportOptions::zone`]).
//!
//! ```text
//! {"buckets": {"aw-watcher-window_laptop": {"id": "...", "type": "currentwindow", "client": "aw-watcher-window",
//!   "hostname": "laptop", "created": "...", "events": [{"timestamp": "2026-03-16T09:00:00.250000+00:00",
//!   "duration": 1529.5, "data": {"app": "Firefox", "title": "..."}}, ...]}, ...}}
//! ```
//!
//! **Which buckets.** Those of type `currentwindow` (aw-watcher-window: `data.app`, the title is
//! not used) and `afkstatus` (aw-watcher-afk: `data.status` `"afk"` or `"not-afk"`), grouped by
//! their `hostname`. Other buckets (browser tabs, editors, ...) are left out: their time is
//! already inside the window time of the browser or editor.
//!
//! **Active time.** A host's window time counts only where its AFK watcher said `not-afk`, as
//! ActivityWatch's own summaries count it: time the AFK watcher did not cover (it was not
//! running) does not count either. A host with **no** `afkstatus` bucket at all (the AFK
//! watcher never ran there) has its window time counted as it is, and that host is named in a
//! [`ExportWarning`]: it is all there is to go on, and leaving the host out would hide it.
//! Overlapping window events of one host (the watcher's heartbeats can overlap by a moment, or
//! two window buckets name one host) count once: the event that starts first keeps the overlap.
//!
//! **Entries.** Active time is cut at each hour and added up per (host, app, hour); each
//! becomes one [`ImportedEntry`]:
//! - `occurred_at`: the start of the hour. The hours are the person's zone's: the UTC hours
//!   where its offset is whole hours, hours from half past the UTC hour in Asia/Kolkata
//!   (+05:30), so that each hour, and so each day, is the person's own (18:00-19:00 UTC would
//!   be half on one local day in Kolkata and half on the next);
//! - `task_label`: the app, cut to 500 characters (window titles are never sent: they hold
//!   document names and e-mail subjects, and are too fine-grained to classify);
//! - `tags`: `app:<app>` then `host:<hostname>` (cut to 100 characters with a warning), so a
//!   rule `{"tag": "app:Code"}` classifies an app everywhere and `{"tag": "host:work-laptop"}`
//!   a whole machine;
//! - `minutes`: the active time rounded to the nearest minute, 30 seconds up (the same rule as
//!   [`crate::entries::rounded_minutes`], applied to the exact sum); an hour that rounds to 0
//!   minutes is not an entry;
//! - `external_task_id`: `activitywatch:` and 16 hex digits of SHA-256 over the JSON array
//!   `[hostname, app, hour start]` (the hour in UTC, `2026-03-16T09:00:00Z`): the same export, or a
//!   later export that has grown, gives the same ids, so importing again updates the hours
//!   already sent (an hour still under way when the first export was made gets its full
//!   minutes) instead of adding duplicates.
//!
//! **Malformed events** (no timestamp or not RFC 3339, a duration that is not a number of
//! seconds >= 0, an `app` or `status` missing or not a string) are [`SkippedEvent`]s located by
//! bucket id and 0-based event index (`jq '.buckets["aw-watcher-window_laptop"].events[3]'`);
//! a window or AFK bucket without a hostname or an events list is skipped whole. With
//! [`ExportOptions::strict`] the first of them is an [`ImportError::Event`] instead (the file
//! is still read to its end first). Whatever order the file keeps, they are reported in
//! bucket-id order, then event order, and ties between window events are broken the same way.
//!
//! **Memory.** The export is read in one pass as it streams in ([`stream`]): neither its text
//! nor a JSON tree of it is held, only a few dozen bytes per window or AFK event (titles are
//! never kept), so a 38 MB export is read within 64 MB (tests/cli/memory.rs measures it).

use std::collections::BTreeMap;
use std::io::Read;

use serde_json::Value;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;

use super::{ImportError, ImportedEntry, event_locator, hashed_id};
use crate::entries::MAX_LABEL_CHARS;
use crate::tags::{fit_tags_with, without_refused};
use crate::zone::Zone;
use stream::{Apps, RawBucket, RawEvent, Span, Status};

mod stream;

/// The id prefix.
pub const SOURCE: &str = "activitywatch";
/// The prefix of every id this importer makes.
pub const ID_PREFIX: &str = "activitywatch:";
/// The bucket type of aw-watcher-window.
pub const WINDOW_TYPE: &str = "currentwindow";
/// The bucket type of aw-watcher-afk.
pub const AFK_TYPE: &str = "afkstatus";

const NANOS_PER_SECOND: i128 = 1_000_000_000;
const NANOS_PER_MINUTE: i128 = 60 * NANOS_PER_SECOND;
const NANOS_PER_HOUR: i128 = 60 * NANOS_PER_MINUTE;

/// The longest event read, in seconds: a century is more than any watcher can have recorded;
/// beyond it the number is nonsense (`1e300`), and the event is skipped and counted.
pub const MAX_EVENT_SECONDS: f64 = 3.2e9;

/// How to read an export.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// The first malformed event fails the import instead of being skipped.
    pub strict: bool,
    /// The person's zone, whose hours the time is cut at; `None`: UTC's. The same as UTC's
    /// where its offset is whole hours, half past the UTC hour in Asia/Kolkata (+05:30).
    pub zone: Option<Zone>,
}

/// An event (or, without an index, a whole bucket) left out, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedEvent {
    pub bucket: String,
    /// 0-based, in the bucket's `events` list.
    pub index: Option<usize>,
    pub reason: String,
}

impl SkippedEvent {
    /// `aw-watcher-window_laptop events[3]`, or `bucket aw-watcher-window_laptop`.
    #[must_use]
    pub fn locator(&self) -> String {
        event_locator(&self.bucket, self.index)
    }
}

/// Something the person should know: a host without an AFK watcher, a tag cut to fit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportWarning {
    /// What it is about: `bucket <id>` or `host <hostname>`.
    pub at: String,
    pub message: String,
}

/// What an import of an export read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedExport {
    pub entries: Vec<ImportedEntry>,
    pub skipped: Vec<SkippedEvent>,
    pub warnings: Vec<ExportWarning>,
    /// Events read from window and AFK buckets, skipped ones included.
    pub events: usize,
}

/// `activitywatch:<16 hex digits of SHA-256 over the JSON array [host, app, hour start]>`.
#[must_use]
pub fn stable_id(host: &str, app: &str, hour: OffsetDateTime) -> String {
    hashed_id(SOURCE, &[host, app, hour_stamp(hour).as_str()])
}

/// `2026-03-16T09:00:00Z`.
fn hour_stamp(at: OffsetDateTime) -> String {
    let format = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]Z");
    at.to_offset(time::UtcOffset::UTC)
        .format(format)
        .unwrap_or_default()
}

/// One window event, read.
struct Window {
    span: Span,
    /// Its number in [`Apps`].
    app: u32,
    /// Where it came from, to break ties in a stable order: the bucket's id, and the event's
    /// index in it.
    bucket: u32,
    index: usize,
}

/// What one host's buckets hold.
#[derive(Default)]
struct Host {
    windows: Vec<Window>,
    /// `None` while the host has no AFK bucket at all.
    not_afk: Option<Vec<Span>>,
    /// The window buckets, by number, for warnings about the host.
    window_buckets: Vec<u32>,
}

/// What the buckets read so far hold.
#[derive(Default)]
struct Reading {
    hosts: BTreeMap<String, Host>,
    /// The bucket ids seen, in file order; windows name theirs by number.
    bucket_ids: Vec<String>,
    skipped: Vec<SkippedEvent>,
    events: usize,
}

/// Reads an ActivityWatch export in one pass (see [`stream`]): memory grows with the number of
/// window and AFK events (a few dozen bytes each), not with the size of the file.
///
/// # Errors
/// [`ImportError::Read`] when the input cannot be read; [`ImportError::Header`] when it is not
/// JSON or has no `buckets` object; [`ImportError::Event`] for the first malformed event in
/// strict mode.
pub fn parse<R: Read>(input: R, options: ExportOptions) -> Result<ParsedExport, ImportError> {
    let mut apps = Apps::default();
    let Reading {
        hosts,
        bucket_ids,
        mut skipped,
        events,
    } = read_export(input, &mut apps)?;
    // Reported in bucket-id order, then event order, whatever order the file keeps.
    skipped.sort_by(|a, b| a.bucket.cmp(&b.bucket));
    if options.strict
        && let Some(first) = skipped.first().cloned()
    {
        return Err(ImportError::Event {
            bucket: first.bucket,
            index: first.index,
            reason: first.reason,
        });
    }
    let mut parsed = ParsedExport {
        skipped,
        events,
        ..ParsedExport::default()
    };
    let active = active_by_hour(
        hosts,
        &bucket_ids,
        &apps,
        options.zone.as_ref(),
        &mut parsed.warnings,
    );
    for ((hour, host, app), nanos) in active {
        if let Some(entry) = hourly_entry(hour, &host, &app, nanos, &mut parsed.warnings) {
            parsed.entries.push(entry);
        }
    }
    Ok(parsed)
}

/// Streams the export's buckets into a [`Reading`].
fn read_export<R: Read>(input: R, apps: &mut Apps) -> Result<Reading, ImportError> {
    let mut reading = Reading::default();
    let no_buckets = || {
        ImportError::Header(
            "not an ActivityWatch export: no \"buckets\" object at the top".to_owned(),
        )
    };
    let found = stream::read(std::io::BufReader::new(input), apps, &mut |id, bucket| {
        read_bucket(id, bucket, &mut reading);
    })
    .map_err(|e| match e.classify() {
        serde_json::error::Category::Io => {
            ImportError::Read(format!("cannot read the export: {e}"))
        }
        serde_json::error::Category::Data => no_buckets(),
        _ => ImportError::Header(format!("not an ActivityWatch export: not JSON ({e})")),
    })?;
    if !found {
        return Err(no_buckets());
    }
    Ok(reading)
}

/// Active time per UTC hour, host and app, in nanoseconds; a warning for each host without an
/// AFK bucket, whose window time is then counted whole.
fn active_by_hour(
    hosts: BTreeMap<String, Host>,
    bucket_ids: &[String],
    apps: &Apps,
    zone: Option<&Zone>,
    warnings: &mut Vec<ExportWarning>,
) -> BTreeMap<(i128, String, String), i128> {
    let mut active = BTreeMap::new();
    for (name, host) in hosts {
        if host.not_afk.is_none()
            && let Some(bucket) = host
                .window_buckets
                .iter()
                .map(|b| &bucket_ids[*b as usize])
                .min()
        {
            warnings.push(ExportWarning {
                at: event_locator(bucket, None),
                message: format!(
                    "host {name:?} has no AFK bucket ({AFK_TYPE}): its window time is \
                         counted whole, idle time included"
                ),
            });
        }
        for ((hour, app), nanos) in active_time(host, bucket_ids, zone) {
            active.insert((hour, name.clone(), apps.name(app).to_owned()), nanos);
        }
    }
    active
}

/// One app's entry for one hour on one host: its active time rounded to the minute (none
/// under half a minute).
fn hourly_entry(
    hour: i128,
    host: &str,
    app: &str,
    nanos: i128,
    warnings: &mut Vec<ExportWarning>,
) -> Option<ImportedEntry> {
    let minutes = (nanos + 30 * NANOS_PER_SECOND) / NANOS_PER_MINUTE;
    if minutes == 0 {
        return None;
    }
    let occurred_at = OffsetDateTime::from_unix_timestamp_nanos(hour).ok()?;
    let tags = fit_tags_with(
        [format!("app:{app}"), format!("host:{host}")]
            .iter()
            .map(String::as_str),
        |message| {
            let warning = ExportWarning {
                at: format!("host {host}"),
                message,
            };
            // Once per host and app, not once per hour.
            if !warnings.contains(&warning) {
                warnings.push(warning);
            }
        },
    );
    Some(ImportedEntry {
        external_task_id: stable_id(host, app, occurred_at),
        task_label: Some(without_refused(app).chars().take(MAX_LABEL_CHARS).collect()),
        tags,
        project: None,
        minutes: u32::try_from(minutes).unwrap_or(u32::MAX),
        occurred_at,
    })
}

/// Adds one bucket to `reading`: window events, AFK spans, or nothing for other types.
fn read_bucket(id: String, bucket: RawBucket, reading: &mut Reading) {
    let skip = |reading: &mut Reading, index: Option<usize>, reason: String| {
        reading.skipped.push(SkippedEvent {
            bucket: id.clone(),
            index,
            reason,
        });
    };
    let RawBucket::Object {
        kind,
        hostname,
        events,
    } = bucket
    else {
        return skip(reading, None, "the bucket is not a JSON object".to_owned());
    };
    let kind = match kind.as_ref().and_then(Value::as_str) {
        Some(kind @ (WINDOW_TYPE | AFK_TYPE)) => kind,
        Some(_) => return,
        None => return skip(reading, None, "the bucket has no \"type\"".to_owned()),
    };
    let Some(host) = hostname
        .as_ref()
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|h| !h.is_empty())
    else {
        return skip(reading, None, "the bucket has no \"hostname\"".to_owned());
    };
    let Some(events) = events else {
        return skip(
            reading,
            None,
            "the bucket has no \"events\" list".to_owned(),
        );
    };
    reading.events += events.len();
    let number = u32::try_from(reading.bucket_ids.len()).unwrap_or(u32::MAX);
    let entry = reading.hosts.entry(host.to_owned()).or_default();
    if kind == AFK_TYPE {
        entry.not_afk.get_or_insert_with(Vec::new);
    } else {
        entry.window_buckets.push(number);
    }
    let skipped = read_events(kind, events, entry, number);
    for (index, reason) in skipped {
        skip(reading, Some(index), reason);
    }
    reading.bucket_ids.push(id);
}

/// Adds one bucket's events to its host: not-AFK spans, or windows with their app; returns
/// the events skipped, with why.
fn read_events(
    kind: &str,
    events: Vec<RawEvent>,
    entry: &mut Host,
    number: u32,
) -> Vec<(usize, String)> {
    let mut skipped = Vec::new();
    for (index, event) in events.into_iter().enumerate() {
        let (span, app, status) = match event {
            RawEvent::Read { span, app, status } => (span, app, status),
            RawEvent::Bad(reason) => {
                skipped.push((index, reason));
                continue;
            }
        };
        if kind == AFK_TYPE {
            match status {
                Status::NotAfk => entry.not_afk.get_or_insert_with(Vec::new).push(span),
                Status::Afk => {}
                Status::Other(other) => skipped.push((
                    index,
                    format!("unknown AFK status {other:?} (expected \"afk\" or \"not-afk\")"),
                )),
                Status::Missing => {
                    skipped.push((index, "no \"status\" string in data".to_owned()));
                }
            }
        } else {
            match app {
                Some(app) => entry.windows.push(Window {
                    span,
                    app,
                    bucket: number,
                    index,
                }),
                None => skipped.push((index, "no \"app\" string in data".to_owned())),
            }
        }
    }
    skipped
}

/// The event's `[timestamp, timestamp + duration)` in nanoseconds.
fn span_of(timestamp: Option<&Value>, duration: Option<&Value>) -> Result<Span, String> {
    let stamp = timestamp
        .and_then(Value::as_str)
        .ok_or_else(|| "no \"timestamp\" string".to_owned())?;
    let start = OffsetDateTime::parse(stamp, &Rfc3339)
        .map_err(|_| format!("bad timestamp {stamp:?} (expected RFC 3339)"))?
        .unix_timestamp_nanos();
    let seconds = match duration {
        Some(Value::Number(n)) => n.as_f64(),
        _ => None,
    }
    .ok_or_else(|| "no \"duration\" number".to_owned())?;
    if seconds.is_nan() || seconds < 0.0 {
        return Err(format!("bad duration {seconds} (expected seconds >= 0)"));
    }
    if seconds > MAX_EVENT_SECONDS {
        // 1e300 as written, not as its 301 digits.
        return Err(format!(
            "bad duration {seconds:e} (over a century: more than {MAX_EVENT_SECONDS:e} seconds)"
        ));
    }
    // Rounded to the nanosecond, as ActivityWatch reads it (515.968 s is not exact in binary).
    #[allow(clippy::cast_possible_truncation)]
    let nanos = (seconds * 1e9).round() as i128;
    Ok((start, start + nanos))
}

/// `host`'s active time per (hour, app number), in nanoseconds.
fn active_time(
    mut host: Host,
    bucket_ids: &[String],
    zone: Option<&Zone>,
) -> BTreeMap<(i128, u32), i128> {
    host.windows.sort_by(|a, b| {
        (a.span.0, &bucket_ids[a.bucket as usize], a.index).cmp(&(
            b.span.0,
            &bucket_ids[b.bucket as usize],
            b.index,
        ))
    });
    let not_afk = host.not_afk.map(union);
    let mut active = BTreeMap::new();
    let mut covered_until = i128::MIN;
    for window in &host.windows {
        let (start, end) = (window.span.0.max(covered_until), window.span.1);
        covered_until = covered_until.max(end);
        if start >= end {
            continue;
        }
        let parts = match &not_afk {
            None => vec![(start, end)],
            Some(spans) => intersect((start, end), spans),
        };
        for (mut from, to) in parts {
            while from < to {
                let hour = hour_start(from, zone);
                let cut = to.min(hour + NANOS_PER_HOUR);
                *active.entry((hour, window.app)).or_insert(0) += cut - from;
                from = cut;
            }
        }
    }
    active
}

/// The start of the hour (of `zone`, else UTC's) holding the instant `at`, in nanoseconds.
fn hour_start(at: i128, zone: Option<&Zone>) -> i128 {
    let utc = at.div_euclid(NANOS_PER_HOUR) * NANOS_PER_HOUR;
    let Some(zone) = zone else {
        return utc;
    };
    let Ok(instant) = OffsetDateTime::from_unix_timestamp_nanos(at) else {
        return utc;
    };
    let start = zone.hour_of(instant);
    let start = i128::from(start.unix_timestamp()) * NANOS_PER_SECOND;
    // The zone's hour holding `at` began at most an hour before it.
    if start <= at && at - start < NANOS_PER_HOUR {
        start
    } else {
        utc
    }
}

/// The spans merged where they overlap or touch, sorted.
fn union(mut spans: Vec<Span>) -> Vec<Span> {
    spans.sort_unstable();
    let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
    for (start, end) in spans {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

/// The parts of `span` inside the sorted, disjoint `spans`.
fn intersect(span: Span, spans: &[Span]) -> Vec<Span> {
    let first = spans.partition_point(|s| s.1 <= span.0);
    spans[first..]
        .iter()
        .take_while(|s| s.0 < span.1)
        .map(|s| (s.0.max(span.0), s.1.min(span.1)))
        .filter(|(a, b)| a < b)
        .collect()
}
