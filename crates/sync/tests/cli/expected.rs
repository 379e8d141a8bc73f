//! What an import should store, worked out from the fixture files by the tests themselves and
//! independently of the importers' code: the CSV reports read with the csv crate and the time
//! crate's format descriptions, ActivityWatch's active time counted millisecond by millisecond.

use std::collections::BTreeMap;

use serde_json::Value;
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{Date, Duration, OffsetDateTime, PrimitiveDateTime, Time, UtcOffset};

/// The contract's six foundations (docs/api.md, "Foundations").
pub const FOUNDATIONS: [&str; 6] = [
    "love",
    "strength",
    "mission",
    "vocation",
    "short_term",
    "long_term",
];

/// One entry the service should hold.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    pub occurred_at: OffsetDateTime,
    pub minutes: i64,
    pub tags: Vec<String>,
}

/// Everything an import of one fixture should give.
#[derive(Debug)]
pub struct Expected {
    pub entries: Vec<Entry>,
    /// Where the malformed rows are, as the importer names them, in file order.
    pub bad: Vec<String>,
    /// Data rows in the file (ActivityWatch: events of window and AFK buckets).
    pub rows: usize,
}

impl Expected {
    /// The first rule (in order) whose tag the entry carries, matched case-insensitively.
    pub fn foundation<'r>(entry: &Entry, rules: &[(&str, &'r str)]) -> Option<&'r str> {
        rules
            .iter()
            .find(|(tag, _)| {
                entry
                    .tags
                    .iter()
                    .any(|t| t.to_lowercase() == tag.to_lowercase())
            })
            .map(|(_, foundation)| *foundation)
    }

    /// Minutes per foundation (all six, zeros included) and the unmapped minutes.
    pub fn totals(&self, rules: &[(&str, &str)]) -> (BTreeMap<String, i64>, i64) {
        let mut per: BTreeMap<String, i64> =
            FOUNDATIONS.iter().map(|f| ((*f).to_owned(), 0)).collect();
        let mut unmapped = 0;
        for entry in &self.entries {
            match Self::foundation(entry, rules) {
                Some(f) => *per.get_mut(f).expect("a foundation") += entry.minutes,
                None => unmapped += entry.minutes,
            }
        }
        (per, unmapped)
    }

    /// From a day before the first entry to a day after the last.
    pub fn window(&self) -> (OffsetDateTime, OffsetDateTime) {
        let first = self
            .entries
            .iter()
            .map(|e| e.occurred_at)
            .min()
            .expect("entries");
        let last = self
            .entries
            .iter()
            .map(|e| e.occurred_at)
            .max()
            .expect("entries");
        (first - Duration::DAY, last + Duration::DAY)
    }
}

/// The tags of a CSV row: `project:<name>` first, then the tracker's tags.
fn csv_tags(project: &str, tags: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if !project.trim().is_empty() {
        out.push(format!("project:{}", project.trim()));
    }
    for tag in tags.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        if !out.iter().any(|t| t == tag) {
            out.push(tag.to_owned());
        }
    }
    out
}

/// `H:MM:SS` in seconds.
fn hms(text: &str) -> Option<i64> {
    let parts: Vec<i64> = text
        .split(':')
        .map(|p| {
            let digits = !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
            p.parse::<i64>().ok().filter(|_| digits)
        })
        .collect::<Option<_>>()?;
    match parts.as_slice() {
        [h, m, s] if *m < 60 && *s < 60 => Some(h * 3600 + m * 60 + s),
        _ => None,
    }
}

/// A detailed-report CSV whose dates, clock times and durations are read with the given
/// format descriptions.
fn csv_report(
    text: &str,
    offset: UtcOffset,
    only_email: Option<&str>,
    columns: [&str; 5],
    date: &[time::format_description::BorrowedFormatItem<'_>],
    clock: &[time::format_description::BorrowedFormatItem<'_>],
) -> Expected {
    let [date_col, time_col, duration_col, project_col, tags_col] = columns;
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let headers = reader.headers().expect("a header").clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no {name} column"))
    };
    let email = headers.iter().position(|h| h == "Email");
    let (d, t, dur, p, tg) = (
        col(date_col),
        col(time_col),
        col(duration_col),
        col(project_col),
        col(tags_col),
    );
    let mut expected = Expected {
        entries: Vec::new(),
        bad: Vec::new(),
        rows: 0,
    };
    for record in reader.records() {
        let record = record.expect("a readable row");
        expected.rows += 1;
        if only_email.is_some_and(|only| email.and_then(|e| record.get(e)) != Some(only)) {
            continue;
        }
        let line = record.position().expect("a position").line();
        let parsed = (|| {
            let day = Date::parse(record.get(d)?, date).ok()?;
            let at = Time::parse(record.get(t)?, clock).ok()?;
            let seconds = hms(record.get(dur)?)?;
            Some((PrimitiveDateTime::new(day, at), seconds))
        })();
        let Some((local, seconds)) = parsed else {
            expected.bad.push(format!("line {line}"));
            continue;
        };
        expected.entries.push(Entry {
            occurred_at: local.assume_offset(offset).to_offset(UtcOffset::UTC),
            minutes: (seconds + 30) / 60,
            tags: csv_tags(record.get(p).unwrap_or(""), record.get(tg).unwrap_or("")),
        });
    }
    expected
}

/// A Toggl detailed report with local times at `offset`, only the rows of `email` (every row
/// still counts in `rows`).
pub fn toggl(text: &str, offset: UtcOffset, email: &str) -> Expected {
    csv_report(
        text,
        offset,
        Some(email),
        ["Start date", "Start time", "Duration", "Project", "Tags"],
        format_description!("[year]-[month]-[day]"),
        format_description!("[hour]:[minute]:[second]"),
    )
}

/// A Clockify detailed report (US dates, 12-hour clock) with local times at `offset`.
pub fn clockify(text: &str, offset: UtcOffset) -> Expected {
    csv_report(
        text,
        offset,
        None,
        [
            "Start Date",
            "Start Time",
            "Duration (h)",
            "Project",
            "Tags",
        ],
        format_description!("[month]/[day]/[year]"),
        format_description!("[hour repr:12]:[minute]:[second] [period]"),
    )
}

/// One event of an ActivityWatch export, read; `None` when malformed.
fn aw_event(event: &Value, key: &str) -> Option<(i128, i128, String)> {
    let start = OffsetDateTime::parse(event["timestamp"].as_str()?, &Rfc3339).ok()?;
    let seconds = event["duration"].as_f64().filter(|s| *s >= 0.0)?;
    let value = event["data"][key].as_str()?.to_owned();
    let start_ms = start.unix_timestamp_nanos() / 1_000_000;
    assert_eq!(
        start.unix_timestamp_nanos() % 1_000_000,
        0,
        "the fixture keeps to milliseconds"
    );
    let ms = (seconds * 1000.0).round();
    assert!(
        (seconds * 1000.0 - ms).abs() < 1e-6,
        "milliseconds only: {seconds}"
    );
    #[allow(clippy::cast_possible_truncation)]
    Some((start_ms, start_ms + ms as i128, value))
}

/// ActivityWatch: per host, each millisecond belongs to the earliest-starting window event
/// covering it, and counts when an AFK event says `not-afk` there (or always, for a host with
/// no AFK bucket); the milliseconds are added up per (UTC hour, host, app) and rounded.
pub fn activitywatch(text: &str) -> Expected {
    let json: Value = serde_json::from_str(text).expect("JSON");
    let buckets = json["buckets"].as_object().expect("buckets");
    let mut ids: Vec<&String> = buckets.keys().collect();
    ids.sort();
    let mut bad = Vec::new();
    let mut rows = 0;
    // host -> (windows (start, end, app, order), not-afk spans or None)
    type Host = (Vec<(i128, i128, String)>, Option<Vec<(i128, i128)>>);
    let mut hosts: BTreeMap<String, Host> = BTreeMap::new();
    for id in ids {
        let bucket = &buckets[id.as_str()];
        let kind = bucket["type"].as_str().expect("a type");
        let key = match kind {
            "currentwindow" => "app",
            "afkstatus" => "status",
            _ => continue,
        };
        let host = hosts
            .entry(bucket["hostname"].as_str().expect("a hostname").to_owned())
            .or_default();
        if kind == "afkstatus" {
            host.1.get_or_insert_with(Vec::new);
        }
        let events = bucket["events"].as_array().expect("events");
        rows += events.len();
        for (i, event) in events.iter().enumerate() {
            match aw_event(event, key) {
                None => bad.push(format!("{id} events[{i}]")),
                Some((s, e, app)) if kind == "currentwindow" => host.0.push((s, e, app)),
                Some((s, e, status)) => match status.as_str() {
                    "not-afk" => host.1.get_or_insert_with(Vec::new).push((s, e)),
                    "afk" => {}
                    _ => bad.push(format!("{id} events[{i}]")),
                },
            }
        }
    }
    let mut per_hour: BTreeMap<(i128, String, String), i64> = BTreeMap::new();
    for (name, (mut windows, not_afk)) in hosts {
        if windows.is_empty() {
            continue;
        }
        // A stable sort keeps bucket and file order among equal starts.
        windows.sort_by_key(|w| w.0);
        let lo = windows.iter().map(|w| w.0).min().expect("windows");
        let hi = windows.iter().map(|w| w.1).max().expect("windows");
        let len = usize::try_from(hi - lo).expect("a span");
        let mut owner: Vec<Option<usize>> = vec![None; len];
        for (n, (s, e, _)) in windows.iter().enumerate() {
            for ms in *s..*e {
                let slot = &mut owner[usize::try_from(ms - lo).expect("inside")];
                slot.get_or_insert(n);
            }
        }
        let mut active = vec![not_afk.is_none(); len];
        for (s, e) in not_afk.unwrap_or_default() {
            for ms in s.max(lo)..e.min(hi) {
                active[usize::try_from(ms - lo).expect("inside")] = true;
            }
        }
        for (i, slot) in owner.iter().enumerate() {
            if let (Some(n), true) = (slot, active[i]) {
                let ms = lo + i128::try_from(i).expect("small");
                let hour = ms.div_euclid(3_600_000) * 3_600_000;
                *per_hour
                    .entry((hour, name.clone(), windows[*n].2.clone()))
                    .or_insert(0) += 1;
            }
        }
    }
    let entries = per_hour
        .into_iter()
        .map(|((hour, host, app), ms)| Entry {
            occurred_at: OffsetDateTime::from_unix_timestamp_nanos(hour * 1_000_000)
                .expect("a time"),
            minutes: (ms + 30_000) / 60_000,
            tags: vec![format!("app:{app}"), format!("host:{host}")],
        })
        .filter(|e| e.minutes > 0)
        .collect();
    Expected { entries, bad, rows }
}
