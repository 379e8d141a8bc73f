//! A calendar's date and date-time values (`DTSTART`, `DTEND`, `RECURRENCE-ID`, `EXDATE`,
//! `RDATE`) and durations (`DURATION`), read from the property's text and parameters, and the
//! instants they stand for (RFC 5545, 3.3.4, 3.3.5 and 3.3.6):
//! - `20260316T090000Z`: UTC;
//! - `TZID=Europe/Berlin:20260316T090000`: local time in the zone the `TZID` names (an IANA
//!   zone, the file's `VTIMEZONE` or a Windows zone name: [`super::tzid`]), with its rules on
//!   that date (the zone's gaps and repeats resolved as [`Zone::to_utc`] says: RFC 5545's rule);
//! - `20260316T090000`: floating, local time wherever the person is: read in the caller's
//!   zone (`--timezone`);
//! - `20260316` (or `VALUE=DATE`): a day, for all-day events.

use icalendar::Property;
use time::{Date, Month, OffsetDateTime, PrimitiveDateTime, Time};

use super::tzid::Zones;
use crate::zone::Zone;

/// One value, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum When {
    Day(Date),
    Utc(PrimitiveDateTime),
    /// Local time in the zone named by `TZID`, or floating when `None`.
    Local(PrimitiveDateTime, Option<String>),
}

impl When {
    /// The zone this value's local time is in: its `TZID`'s, else the floating zone; UTC for
    /// a UTC value.
    ///
    /// # Errors
    /// A message naming a `TZID` that names no zone.
    pub(super) fn zone(&self, zones: &Zones) -> Result<Zone, String> {
        match self {
            Self::Utc(_) => Ok(Zone::Fixed(time::UtcOffset::UTC)),
            Self::Local(_, Some(tzid)) => zones.named(tzid),
            Self::Day(_) | Self::Local(_, None) => Ok(zones.floating.clone()),
        }
    }

    /// The local time as written (a day: its midnight).
    pub(super) fn local(&self) -> PrimitiveDateTime {
        match self {
            Self::Day(day) => day.midnight(),
            Self::Utc(at) | Self::Local(at, _) => *at,
        }
    }

    /// The instant (see the module).
    ///
    /// # Errors
    /// A message for an unknown `TZID` or an instant out of range.
    pub(super) fn instant(&self, zones: &Zones) -> Result<OffsetDateTime, String> {
        self.zone(zones)?.to_utc(self.local())
    }
}

/// The values of `property` (`EXDATE` and `RDATE` may hold several, separated by commas).
///
/// # Errors
/// A message quoting the first value that is not a date or date-time.
pub(super) fn values(property: &Property) -> Result<Vec<When>, String> {
    let tzid = property.params().get("TZID").map(|p| p.value().to_owned());
    let date_only = property
        .params()
        .get("VALUE")
        .is_some_and(|v| v.value().eq_ignore_ascii_case("DATE"));
    property
        .value()
        .split(',')
        .map(|text| parse(text.trim(), tzid.as_deref(), date_only))
        .collect()
}

/// The one value of `property`.
///
/// # Errors
/// As [`values`], and for a property holding several.
pub(super) fn value(property: &Property) -> Result<When, String> {
    let mut all = values(property)?;
    match all.len() {
        1 => Ok(all.remove(0)),
        _ => Err(format!("{} holds several values", property.key())),
    }
}

fn parse(text: &str, tzid: Option<&str>, date_only: bool) -> Result<When, String> {
    let bad = || format!("bad date-time {text:?} (expected e.g. 20260316T090000Z)");
    let digits = |s: &str| -> Result<u32, String> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        s.parse().map_err(|_| bad())
    };
    let (day, clock) = match text.split_once('T') {
        Some((day, clock)) if !date_only => (day, Some(clock)),
        None => (text, None),
        Some(_) => return Err(bad()),
    };
    if day.len() != 8 {
        return Err(bad());
    }
    let month = Month::try_from(u8::try_from(digits(&day[4..6])?).map_err(|_| bad())?)
        .map_err(|_| bad())?;
    let date = Date::from_calendar_date(
        i32::try_from(digits(&day[..4])?).map_err(|_| bad())?,
        month,
        u8::try_from(digits(&day[6..])?).map_err(|_| bad())?,
    )
    .map_err(|_| bad())?;
    let Some(clock) = clock else {
        return Ok(When::Day(date));
    };
    let (clock, utc) = match clock.strip_suffix(['Z', 'z']) {
        Some(clock) => (clock, true),
        None => (clock, false),
    };
    if clock.len() != 6 {
        return Err(bad());
    }
    let part =
        |range: std::ops::Range<usize>| u8::try_from(digits(&clock[range])?).map_err(|_| bad());
    // A leap second (60) is read as the last second of its minute.
    let time = Time::from_hms(part(0..2)?, part(2..4)?, part(4..6)?.min(59)).map_err(|_| bad())?;
    let at = PrimitiveDateTime::new(date, time);
    Ok(match (utc, tzid) {
        (true, _) => When::Utc(at),
        (false, tzid) => When::Local(at, tzid.map(str::to_owned)),
    })
}

/// A `DURATION` in seconds: `PT1H30M`, `P1D`, `P2W`, `-PT5M` (negative durations are refused).
///
/// # Errors
/// A message quoting the text.
pub(super) fn duration(text: &str) -> Result<i64, String> {
    let bad = || format!("bad DURATION {text:?} (expected e.g. PT1H30M)");
    let rest = text.trim().strip_prefix('+').unwrap_or(text.trim());
    let rest = rest.strip_prefix(['P', 'p']).ok_or_else(bad)?;
    let mut seconds: i64 = 0;
    let mut number = String::new();
    let mut in_time = false;
    let mut any = false;
    for c in rest.chars() {
        match c.to_ascii_uppercase() {
            'T' if !in_time && number.is_empty() => in_time = true,
            d if d.is_ascii_digit() => number.push(d),
            unit => {
                let n: i64 = number.parse().map_err(|_| bad())?;
                number.clear();
                let scale = match (unit, in_time) {
                    ('W', false) => 7 * 86_400,
                    ('D', false) => 86_400,
                    ('H', true) => 3_600,
                    ('M', true) => 60,
                    ('S', true) => 1,
                    _ => return Err(bad()),
                };
                seconds = n
                    .checked_mul(scale)
                    .and_then(|s| s.checked_add(seconds))
                    .ok_or_else(bad)?;
                any = true;
            }
        }
    }
    if !number.is_empty() || !any {
        return Err(bad());
    }
    Ok(seconds)
}
