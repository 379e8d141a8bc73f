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

/// A local time handed to rrule as the same wall-clock time in UTC.
fn as_utc(local: PrimitiveDateTime) -> Result<chrono::DateTime<Tz>, String> {
    let bad = || format!("{local} is out of range");
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
