//! An `RRULE` expanded into the local start times of its occurrences, with the rrule crate.
//!
//! RFC 5545 repeats an event in its own local time: a weekly 09:00 meeting in Europe/Berlin is
//! at 09:00 in summer and in winter, an hour apart in UTC. So the rule is expanded on the
//! local times as written (given to rrule as if they were UTC, which has no offset changes),
//! and each start is turned into an instant afterwards, in the event's zone, by the caller.
//! An `UNTIL` in UTC is first moved to the event's local time, so the last occurrence is the
//! one RFC 5545 means.

use chrono::{Datelike, NaiveDate, NaiveDateTime, TimeZone, Timelike};
use rrule::{RRule, Tz, Unvalidated};
use time::{Date, Month, PrimitiveDateTime, Time};

use crate::zone::Zone;

/// The most occurrences one event may have in the range: a rule every minute for a year is
/// not a meeting.
const MAX_OCCURRENCES: u16 = u16::MAX;

/// The local starts of `rule` from `first`, those in `window` (local times, both ends
/// included), in order.
///
/// # Errors
/// A message for a rule rrule cannot read or expand, or with more than 65,535 occurrences in
/// the window.
pub(super) fn starts(
    first: PrimitiveDateTime,
    rule: &str,
    zone: &Zone,
    window: (PrimitiveDateTime, PrimitiveDateTime),
) -> Result<Vec<PrimitiveDateTime>, String> {
    let mut parsed: RRule<Unvalidated> = rule
        .parse()
        .map_err(|e| format!("bad RRULE {rule:?}: {e}"))?;
    if let Some(until) = parsed.get_until() {
        let local = if until.timezone() == Tz::UTC {
            let instant = time::OffsetDateTime::from_unix_timestamp(until.timestamp())
                .map_err(|_| format!("bad UNTIL in RRULE {rule:?}"))?;
            zone.to_local(instant)?
        } else {
            from_chrono(until.naive_local()).ok_or_else(|| format!("bad UNTIL in {rule:?}"))?
        };
        parsed = parsed.until(as_utc(local)?);
    }
    let first = advanced(first, rule, window.0);
    let set = parsed
        .build(as_utc(first)?)
        .map_err(|e| format!("bad RRULE {rule:?}: {e}"))?
        .after(as_utc(window.0)?)
        .before(as_utc(window.1)?);
    let result = set.all(MAX_OCCURRENCES);
    if result.limited && result.dates.len() >= usize::from(MAX_OCCURRENCES) {
        return Err(format!(
            "RRULE {rule:?} repeats more than {MAX_OCCURRENCES} times in the range"
        ));
    }
    result
        .dates
        .iter()
        .map(|d| from_chrono(d.naive_utc()).ok_or_else(|| format!("bad occurrence of {rule:?}")))
        .collect()
}

/// `first` moved forward by whole periods of `rule` to at most one period before `from`, for a
/// rule of seconds, minutes or hours without a `COUNT` or `BYSETPOS` (which count from the
/// first): its occurrences in the window are the same, and rrule no longer walks every second
/// since 1990 to reach them. Other rules, and a `first` already near, are left as they are.
fn advanced(first: PrimitiveDateTime, rule: &str, from: PrimitiveDateTime) -> PrimitiveDateTime {
    let parts: Vec<(String, String)> = rule
        .split(';')
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (k.trim().to_ascii_uppercase(), v.trim().to_ascii_uppercase()))
        .collect();
    let get = |key: &str| {
        parts
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    if get("COUNT").is_some() || get("BYSETPOS").is_some() {
        return first;
    }
    let unit: i64 = match get("FREQ") {
        Some("SECONDLY") => 1,
        Some("MINUTELY") => 60,
        Some("HOURLY") => 3_600,
        _ => return first,
    };
    let interval: i64 = get("INTERVAL")
        .map_or(Some(1), |i| i.parse().ok())
        .unwrap_or(1);
    let period = unit * interval.max(1);
    let behind = (from - first).whole_seconds();
    let periods = behind / period - 1;
    if periods <= 0 {
        return first;
    }
    first + time::Duration::seconds(periods * period)
}

/// A local time handed to rrule as the same wall-clock time in UTC.
fn as_utc(local: PrimitiveDateTime) -> Result<chrono::DateTime<Tz>, String> {
    let bad = || format!("{} is out of range", crate::zone::local_text(local));
    let naive = NaiveDate::from_ymd_opt(
        local.year(),
        u32::from(u8::from(local.month())),
        u32::from(local.day()),
    )
    .and_then(|d| {
        d.and_hms_opt(
            u32::from(local.hour()),
            u32::from(local.minute()),
            u32::from(local.second()),
        )
    })
    .ok_or_else(bad)?;
    Ok(Tz::UTC.from_utc_datetime(&naive))
}

fn from_chrono(naive: NaiveDateTime) -> Option<PrimitiveDateTime> {
    let month = Month::try_from(u8::try_from(naive.month()).ok()?).ok()?;
    let date =
        Date::from_calendar_date(naive.year(), month, u8::try_from(naive.day()).ok()?).ok()?;
    let clock = Time::from_hms(
        u8::try_from(naive.hour()).ok()?,
        u8::try_from(naive.minute()).ok()?,
        u8::try_from(naive.second()).ok()?,
    )
    .ok()?;
    Some(PrimitiveDateTime::new(date, clock))
}
