//! A calendar (`.ics`, iCalendar, RFC 5545), for the time spent in meetings: each occurrence of
//! an event that starts in the range (`--from`/`--to`, by default the last two years) becomes
//! one [`ImportedEntry`]:
//! - `task_label`: the `SUMMARY`, trimmed and cut to 500 characters; `None` when empty;
//! - `tags`: the `CATEGORIES`, in order, fitted to the contract's limits as the CSV importers
//!   fit theirs (a cut or dropped tag is a warning);
//! - `minutes`: `DTEND` minus `DTSTART` (or the `DURATION`), as instants, rounded to the
//!   nearest minute, 30 seconds up: a meeting across a change of clocks lasts what it lasted;
//! - `occurred_at`: the occurrence's start;
//! - `external_task_id`: `ics:` and 16 hex digits of SHA-256 over the JSON array
//!   `[UID, occurrence start]` (the start in UTC, `2026-03-16T08:00:00Z`). For an occurrence
//!   moved by a `RECURRENCE-ID` override, the start is the one it was moved *from*: the id stays
//!   when a meeting is moved, so importing again updates it.
//!
//! **Recurrence.** `RRULE` is expanded in the event's local time ([`expand`]), `RDATE`s are
//! added, `EXDATE`s removed, and an event with the same `UID` and a `RECURRENCE-ID` replaces the
//! occurrence it names (with its own start, end, summary, categories, status and attendees).
//!
//! **Zones** ([`when`]): `...Z` is UTC; `TZID=` names an IANA zone, else the file's own
//! `VTIMEZONE` of that name ([`vtimezone`]), else a Windows zone name by CLDR's table
//! ([`tzid`]), with its rules on each date; a floating time (neither) is in the caller's zone
//! (`--timezone`), as are all-day dates.
//!
//! **Left out, and counted** ([`LeftOut`]): all-day events (a `DATE` start: holidays, trips,
//! not meetings), cancelled ones (`STATUS:CANCELLED`) and those the owner declined (an
//! `ATTENDEE` that is the owner with `PARTSTAT=DECLINED`). The owner is `--user` (an e-mail),
//! or else the calendar's `X-WR-CALNAME` when it is an e-mail address (as Google Calendar names
//! a person's own calendar); without either, no event counts as declined.
//!
//! **Malformed events** (no `UID` or `DTSTART`, a value that is not a date-time, an unknown
//! `TZID` (one that names no zone in the three ways above, named), an `RRULE` rrule cannot read, an end before the start, no length) are skipped whole
//! and named by `UID` (`event <UID>`; `event #3` for the third without one); with
//! [`IcsOptions::strict`] the first is an [`ImportError::Item`]. Other components (to-dos,
//! alarms) are not read; time-zone definitions only for the `TZID`s they define.
//!
//! **Memory.** The file is read twice as it streams in ([`blocks`]), never whole: the first
//! pass keeps the overrides' lines (an override may come anywhere in the file) and the
//! calendar's name, the second reads one event at a time. An event whose lines the parser
//! cannot read is skipped like any malformed event.

mod blocks;
mod expand;
mod tzid;
mod vtimezone;
mod when;

use std::collections::{HashMap, HashSet};

use icalendar::{Component, Event};
use time::format_description::well_known::Rfc3339;
use time::{Duration, OffsetDateTime, PrimitiveDateTime};

use super::{ImportError, ImportedEntry, hashed_id};
use crate::entries::{MAX_LABEL_CHARS, rounded_minutes};
use crate::tags::{fit_tags_with, without_refused};
use crate::zone::Zone;
use tzid::Zones;
use when::When;

/// The id prefix.
pub const SOURCE: &str = "ics";
/// The prefix of every id this importer makes.
pub const ID_PREFIX: &str = "ics:";

/// What the caller knows that the file does not say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IcsOptions {
    /// The zone of floating times and all-day dates.
    pub zone: Zone,
    /// The first malformed event fails the import instead of being skipped.
    pub strict: bool,
    /// Occurrences that start at or after this instant...
    pub from: OffsetDateTime,
    /// ...and before this one are read.
    pub to: OffsetDateTime,
    /// The calendar's owner, by e-mail: whose declined invitations are left out.
    pub owner: Option<String>,
}

/// Occurrences in the range left out, by why.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LeftOut {
    pub all_day: usize,
    pub cancelled: usize,
    pub declined: usize,
}

/// An event left out, or kept with a change, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// `event <UID>`, or `event #<n>` for the n-th event (1-based) when it has no UID.
    pub at: String,
    pub message: String,
}

/// What an import of a calendar read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedCalendar {
    pub entries: Vec<ImportedEntry>,
    pub skipped: Vec<Notice>,
    pub warnings: Vec<Notice>,
    pub left_out: LeftOut,
    /// The owner the declined events were judged by, when known.
    pub owner: Option<String>,
}

/// `ics:<16 hex digits of SHA-256 over the JSON array [uid, start in UTC]>`.
#[must_use]
pub fn stable_id(uid: &str, start: OffsetDateTime) -> String {
    let start = start
        .to_offset(time::UtcOffset::UTC)
        .format(&Rfc3339)
        .unwrap_or_default();
    hashed_id(SOURCE, &[uid, start.as_str()])
}

/// One occurrence, before it is judged.
struct Occurrence<'a> {
    /// The start that names it: the `RECURRENCE-ID` of an override, else its own start.
    named: OffsetDateTime,
    start: OffsetDateTime,
    seconds: i64,
    all_day: bool,
    /// The event that says what it is: the override, or the master.
    event: &'a Event,
}

/// Reads a calendar, every entry into [`ParsedCalendar::entries`] in start order.
///
/// # Errors
/// [`ImportError::Header`] when the text is not an iCalendar file; [`ImportError::Item`] for
/// the first malformed event in strict mode.
pub fn parse(text: &str, options: &IcsOptions) -> Result<ParsedCalendar, ImportError> {
    let mut entries = Vec::new();
    let mut parsed = stream(std::io::Cursor::new(text.as_bytes()), options, &mut |e| {
        entries.push(e);
        true
    })?;
    entries.sort_by_key(|e| e.occurred_at);
    parsed.entries = entries;
    Ok(parsed)
}

/// Reads a calendar as it streams in, handing each entry to `entry` (which answers `false`
/// to stop) instead of keeping it ([`ParsedCalendar::entries`] stays empty), in file order.
/// Two passes: the first keeps only the overrides (`RECURRENCE-ID`: they may come anywhere,
/// before or after their event) and the calendar's name; the second reads one event at a
/// time with its overrides.
///
/// # Errors
/// As [`parse`]; [`ImportError::Read`] when the input cannot be read or rewound.
pub fn stream<R: std::io::Read + std::io::Seek>(
    mut input: R,
    options: &IcsOptions,
    entry: &mut dyn FnMut(ImportedEntry) -> bool,
) -> Result<ParsedCalendar, ImportError> {
    let mut overrides: HashMap<String, Vec<String>> = HashMap::new();
    let top = blocks::scan(std::io::BufReader::new(&mut input), &mut |block| {
        // An override too deep to read is skipped (and told) in the second pass.
        if block.too_deep {
            return Ok(true);
        }
        if let (true, Some(uid)) = (block.is_override, block.uid) {
            overrides.entry(uid).or_default().push(block.text);
        }
        Ok(true)
    })?;
    input
        .rewind()
        .map_err(|e| ImportError::Read(format!("cannot read the calendar again: {e}")))?;
    let owner = options.owner.clone().or_else(|| {
        top.calname
            .as_deref()
            .map(str::trim)
            .filter(|name| name.contains('@') && !name.contains(' '))
            .map(str::to_owned)
    });
    let mut reading = Reading {
        parsed: ParsedCalendar {
            owner: owner.clone(),
            ..ParsedCalendar::default()
        },
        seen: HashMap::new(),
        options,
        zones: Zones {
            floating: options.zone.clone(),
            defined: std::rc::Rc::new(vtimezone::table(&top.timezones)),
        },
        entry,
    };
    // The UIDs of the overrides whose event was found.
    let mut mastered: HashSet<String> = HashSet::new();
    let mut n = 0;
    blocks::scan(std::io::BufReader::new(&mut input), &mut |block| {
        n += 1;
        let at = block
            .uid
            .as_ref()
            .map_or_else(|| format!("event #{n}"), |uid| format!("event {uid}"));
        if block.too_deep {
            reading.skip(
                at,
                &format!(
                    "components (alarms) nested deeper than {} inside it: not read",
                    blocks::MAX_NESTING
                ),
            )?;
            return Ok(true);
        }
        let Some(uid) = block.uid else {
            reading.skip(at, "no UID")?;
            return Ok(true);
        };
        if block.is_override {
            return Ok(true);
        }
        let moved = overrides.get(&uid).map_or(&[][..], Vec::as_slice);
        if !moved.is_empty() {
            mastered.insert(uid.clone());
        }
        reading.event(&uid, &block.text, moved)
    })?;
    // An override without its event (an invitation to one occurrence) stands alone.
    let mut orphans: Vec<(&String, &Vec<String>)> = overrides
        .iter()
        .filter(|(uid, _)| !mastered.contains(*uid))
        .collect();
    orphans.sort();
    for (uid, texts) in orphans {
        for text in texts {
            if !reading.event(uid, text, &[])? {
                return Ok(reading.parsed);
            }
        }
    }
    Ok(reading.parsed)
}

/// What the second pass keeps while it reads.
struct Reading<'a> {
    parsed: ParsedCalendar,
    /// Entries per id so far, keyed by the id's 64 bits (a repeated one gets `:2`, ...).
    seen: HashMap<u64, usize>,
    options: &'a IcsOptions,
    /// The floating zone and the file's `VTIMEZONE`s.
    zones: Zones,
    entry: &'a mut dyn FnMut(ImportedEntry) -> bool,
}

impl Reading<'_> {
    fn skip(&mut self, at: String, reason: &str) -> Result<(), ImportError> {
        skip(&mut self.parsed, self.options.strict, at, reason)
    }

    /// One event (the lines of a [`blocks::Block`]) and its overrides' lines: its entries
    /// handed on; `false` once the receiver said stop.
    fn event(&mut self, uid: &str, text: &str, moved: &[String]) -> Result<bool, ImportError> {
        let mut calendar = String::from("BEGIN:VCALENDAR\r\n");
        for lines in std::iter::once(text).chain(moved.iter().map(String::as_str)) {
            calendar.push_str("BEGIN:VEVENT\r\n");
            calendar.push_str(lines);
        }
        calendar.push_str("END:VCALENDAR\r\n");
        let unfolded = icalendar::parser::unfold(&calendar);
        // The parser's own message quotes the text around the fault: someone's meetings.
        let Ok(read) = icalendar::parser::read_calendar(&unfolded) else {
            self.skip(
                format!("event {uid}"),
                "its lines are not iCalendar lines of NAME:VALUE",
            )?;
            return Ok(true);
        };
        let calendar: icalendar::Calendar = read.into();
        let mut events = calendar.events();
        let Some(event) = events.next() else {
            return Ok(true);
        };
        let moved: Vec<&Event> = events.collect();
        let occurrences = match occurrences(event, &moved, self.options, &self.zones) {
            Ok(occurrences) => occurrences,
            Err(reason) => {
                self.skip(format!("event {uid}"), &reason)?;
                return Ok(true);
            }
        };
        let owner = self.parsed.owner.clone();
        for occurrence in occurrences {
            if occurrence.start < self.options.from || occurrence.start >= self.options.to {
                continue;
            }
            let Some(mut entry) = judge(uid, &occurrence, owner.as_deref(), &mut self.parsed)
            else {
                continue;
            };
            let key = entry
                .external_task_id
                .rsplit(':')
                .next()
                .and_then(|hex| u64::from_str_radix(hex, 16).ok())
                .unwrap_or_default();
            let n = self.seen.entry(key).or_insert(0);
            *n += 1;
            if *n > 1 {
                entry.external_task_id = format!("{}:{n}", entry.external_task_id);
            }
            if !(self.entry)(entry) {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

fn skip(
    parsed: &mut ParsedCalendar,
    strict: bool,
    at: String,
    reason: &str,
) -> Result<(), ImportError> {
    if strict {
        return Err(ImportError::Item {
            at,
            reason: reason.to_owned(),
        });
    }
    parsed.skipped.push(Notice {
        at,
        message: reason.to_owned(),
    });
    Ok(())
}

/// The occurrence as an entry, or `None` when it is left out (counted in `parsed`).
fn judge(
    uid: &str,
    occurrence: &Occurrence<'_>,
    owner: Option<&str>,
    parsed: &mut ParsedCalendar,
) -> Option<ImportedEntry> {
    let event = occurrence.event;
    if occurrence.all_day {
        parsed.left_out.all_day += 1;
        return None;
    }
    if event
        .property_value("STATUS")
        .is_some_and(|s| s.trim().eq_ignore_ascii_case("CANCELLED"))
    {
        parsed.left_out.cancelled += 1;
        return None;
    }
    if owner.is_some_and(|owner| declined(event, owner)) {
        parsed.left_out.declined += 1;
        return None;
    }
    let minutes = rounded_minutes(occurrence.seconds);
    let at = format!("event {uid}");
    if minutes == 0 {
        parsed.skipped.push(Notice {
            at,
            message: format!(
                "the occurrence at {} lasts under half a minute (no DTEND or DURATION?)",
                occurrence.start.format(&Rfc3339).unwrap_or_default()
            ),
        });
        return None;
    }
    let categories = property_list(event, "CATEGORIES");
    let tags = categories
        .iter()
        .flat_map(|p| p.value().split(','))
        .map(str::trim);
    let tags = fit_tags_with(tags, |message| {
        let warning = Notice {
            at: at.clone(),
            message,
        };
        // Once per event, not once per occurrence.
        if !parsed.warnings.contains(&warning) {
            parsed.warnings.push(warning);
        }
    });
    let label: String = without_refused(event.get_summary().unwrap_or_default())
        .trim()
        .chars()
        .take(MAX_LABEL_CHARS)
        .collect();
    Some(ImportedEntry {
        external_task_id: stable_id(uid, occurrence.named),
        task_label: Some(label).filter(|l| !l.is_empty()),
        tags,
        project: None,
        minutes: u32::try_from(minutes).unwrap_or(u32::MAX),
        occurred_at: occurrence.start,
    })
}

/// Whether `owner` is an attendee of `event` who declined it.
fn declined(event: &Event, owner: &str) -> bool {
    let attendees = event.multi_properties().get("ATTENDEE");
    attendees.into_iter().flatten().any(|attendee| {
        let address = attendee.value().trim();
        let address = address
            .get(..7)
            .filter(|p| p.eq_ignore_ascii_case("mailto:"))
            .map_or(address, |_| &address[7..]);
        address.eq_ignore_ascii_case(owner)
            && attendee
                .params()
                .get("PARTSTAT")
                .is_some_and(|p| p.value().eq_ignore_ascii_case("DECLINED"))
    })
}

/// The event's start, the zone of its local times, its length in seconds, and whether it is
/// all-day.
fn timing(event: &Event, zones: &Zones) -> Result<(When, Zone, i64), String> {
    let start = when::value(event.properties().get("DTSTART").ok_or("no DTSTART")?)?;
    let zone = start.zone(zones)?;
    let begins = start.instant(zones)?;
    let seconds = if let Some(end) = event.properties().get("DTEND") {
        let end = when::value(end)?;
        let seconds = match (&start, &end) {
            // Days are counted on the calendar: a day is a day, whatever the clocks do.
            (When::Day(a), When::Day(b)) => (*b - *a).whole_seconds(),
            _ => (end.instant(&zones.floating_in(zone.clone()))? - begins).whole_seconds(),
        };
        if seconds < 0 {
            return Err("DTEND is before DTSTART".to_owned());
        }
        seconds
    } else if let Some(duration) = event.properties().get("DURATION") {
        when::duration(duration.value())?
    } else if matches!(start, When::Day(_)) {
        86_400
    } else {
        0
    };
    Ok((start, zone, seconds))
}

/// Every occurrence of `event` near the range, its overrides (`moved`) applied.
fn occurrences<'a>(
    event: &'a Event,
    moved: &[&'a Event],
    options: &IcsOptions,
    zones: &Zones,
) -> Result<Vec<Occurrence<'a>>, String> {
    let (start, zone, seconds) = timing(event, zones)?;
    let local = zones.floating_in(zone.clone());
    let all_day = matches!(start, When::Day(_));
    // Local times within two days of the range hold every local time of an instant in it.
    let margin = Duration::days(2);
    let as_local = |at: OffsetDateTime| PrimitiveDateTime::new(at.date(), at.time());
    let window = (
        as_local(options.from - margin),
        as_local(options.to + margin),
    );
    let mut starts: Vec<OffsetDateTime> = match event.properties().get("RRULE") {
        Some(rule) => expand::starts(start.local(), rule.value(), &zone, window)?
            .into_iter()
            .map(|local| zone.to_utc(local))
            .collect::<Result<_, _>>()?,
        None => vec![start.instant(zones)?],
    };
    for rdate in property_list(event, "RDATE") {
        for value in when::values(rdate)? {
            starts.push(value.instant(&local)?);
        }
    }
    // A set: a calendar may hold 100,000 EXDATEs against as many RDATEs (a loop over a list
    // for each start would take minutes).
    let mut excluded = HashSet::new();
    for exdate in property_list(event, "EXDATE") {
        for value in when::values(exdate)? {
            excluded.insert(value.instant(&local)?);
        }
    }
    starts.retain(|s| !excluded.contains(s));
    starts.sort();
    starts.dedup();
    let mut replaced: HashMap<OffsetDateTime, &Event> = HashMap::new();
    for o in moved {
        let named = o
            .properties()
            .get("RECURRENCE-ID")
            .ok_or_else(|| "an override without RECURRENCE-ID".to_owned())
            .and_then(|p| when::value(p).map_err(|e| format!("RECURRENCE-ID: {e}")))?
            .instant(&local)?;
        replaced.insert(named, o);
    }
    let mut all: Vec<Occurrence<'a>> = Vec::with_capacity(starts.len());
    for named in starts {
        if let Some(o) = replaced.remove(&named) {
            all.push(overridden(o, named, seconds, zones)?);
        } else {
            all.push(Occurrence {
                named,
                start: named,
                seconds,
                all_day,
                event,
            });
        }
    }
    // An override of an occurrence the rule does not give (moved from outside the range, or
    // from a start the rule was later changed to skip) still took place where it says.
    let mut rest: Vec<(OffsetDateTime, &Event)> = replaced
        .into_iter()
        .filter(|(named, _)| !excluded.contains(named))
        .collect();
    rest.sort_by_key(|(named, _)| *named);
    for (named, o) in rest {
        all.push(overridden(o, named, seconds, zones)?);
    }
    Ok(all)
}

/// An override's occurrence: its own start and length (the master's length when it has no
/// end of its own).
fn overridden<'a>(
    event: &'a Event,
    named: OffsetDateTime,
    master_seconds: i64,
    zones: &Zones,
) -> Result<Occurrence<'a>, String> {
    let (start, _, seconds) = match timing(event, zones) {
        Ok(timing) => timing,
        // An override may change only the summary or status: then it keeps its slot.
        Err(_) if !event.properties().contains_key("DTSTART") => {
            return Ok(Occurrence {
                named,
                start: named,
                seconds: master_seconds,
                all_day: false,
                event,
            });
        }
        Err(e) => {
            return Err(format!(
                "the override of {}: {e}",
                crate::zone::rfc3339(named)
            ));
        }
    };
    let has_length = ["DTEND", "DURATION"]
        .iter()
        .any(|k| event.properties().contains_key(*k));
    Ok(Occurrence {
        named,
        start: start.instant(zones)?,
        seconds: if has_length { seconds } else { master_seconds },
        all_day: matches!(start, When::Day(_)),
        event,
    })
}

/// Every `key` property of `event`, single or repeated.
fn property_list<'e>(event: &'e Event, key: &str) -> Vec<&'e icalendar::Property> {
    event
        .properties()
        .get(key)
        .into_iter()
        .chain(event.multi_properties().get(key).into_iter().flatten())
        .collect()
}
