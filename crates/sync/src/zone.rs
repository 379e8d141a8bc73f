//! The time zone of an export's local times: a fixed UTC offset (`--utc-offset`), or an IANA
//! zone (`--timezone`, by default the account's: [`crate::account`]) whose rules apply on each
//! date, daylight-saving time included (jiff's copy of the tz database).
//!
//! **At a change of offset.** A local time that a zone skips (02:30 on the night clocks go
//! forward) is read as if the clock had not been put forward yet, i.e. moved forward by the gap
//! (03:30), and a local time that a zone repeats (02:30 on the night clocks go back) as its
//! first occurrence, at the earlier offset: RFC 5545's and JavaScript's rule (jiff's
//! "compatible" disambiguation). The trackers keep UTC and write the export from it, so a
//! skipped time never comes from them; a repeated hour cannot be told apart by its text, so a
//! CSV row whose duration and end say which reading it means is read so ([`Zone::readings`]
//! gives both; `import::repeated` picks), and one where nothing says is read as the first
//! occurrence and counted as a warning.

use std::fmt;

use jiff::tz::TimeZone;
use time::{OffsetDateTime, PrimitiveDateTime, UtcOffset};

/// Where the local times of a file are.
#[derive(Clone, PartialEq)]
pub enum Zone {
    /// One offset for every date.
    Fixed(UtcOffset),
    /// An IANA zone, with its name as given.
    Named { name: String, zone: TimeZone },
}

impl fmt::Debug for Zone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Fixed(offset) => write!(f, "Fixed({offset})"),
            Self::Named { name, .. } => write!(f, "Named({name})"),
        }
    }
}

impl Eq for Zone {}

impl Zone {
    /// The zone named `name` (`Europe/Berlin`, `America/New_York`, `UTC`).
    ///
    /// # Errors
    /// A message naming the zone when the database has no such zone.
    pub fn named(name: &str) -> Result<Self, String> {
        let name = name.trim();
        TimeZone::get(name)
            .map(|zone| Self::Named {
                name: name.to_owned(),
                zone,
            })
            .map_err(|_| {
                format!("unknown time zone {name:?} (expected an IANA name such as Europe/Berlin)")
            })
    }

    /// The machine's zone (the `TZ` variable, else `/etc/localtime`); UTC when neither says.
    /// Not a default of discovery-sync's (the account's zone is): for callers of the library.
    #[must_use]
    pub fn system() -> Self {
        let zone = TimeZone::system();
        let name = zone.iana_name().unwrap_or("UTC").to_owned();
        Self::Named { name, zone }
    }

    /// The instant of `local` in this zone, in UTC (see the module for skipped and repeated
    /// local times).
    ///
    /// # Errors
    /// A message when the instant is out of range (a date near year 9999 or 1).
    pub fn to_utc(&self, local: PrimitiveDateTime) -> Result<OffsetDateTime, String> {
        match self {
            Self::Fixed(offset) => local
                .assume_offset(*offset)
                .checked_to_offset(UtcOffset::UTC)
                .ok_or_else(|| format!("{} is out of range", local_text(local))),
            Self::Named { .. } => self.readings(local).map(|all| all[0]),
        }
    }

    /// Every instant `local` can be in this zone, earliest first: two for a local time the
    /// zone repeats (the first and the second occurrence of the hour the clocks went back),
    /// else one (a skipped time read as [`Zone::to_utc`] reads it). What the file says
    /// besides (a duration, an end) may pick one.
    ///
    /// # Errors
    /// As [`Zone::to_utc`].
    pub fn readings(&self, local: PrimitiveDateTime) -> Result<Vec<OffsetDateTime>, String> {
        let Self::Named { zone, .. } = self else {
            return self.to_utc(local).map(|at| vec![at]);
        };
        let bad = || format!("{} is out of range in {}", local_text(local), self.name());
        let civil = jiff::civil::DateTime::new(
            i16::try_from(local.year()).map_err(|_| bad())?,
            i8::try_from(u8::from(local.month())).map_err(|_| bad())?,
            i8::try_from(local.day()).map_err(|_| bad())?,
            i8::try_from(local.hour()).map_err(|_| bad())?,
            i8::try_from(local.minute()).map_err(|_| bad())?,
            i8::try_from(local.second()).map_err(|_| bad())?,
            0,
        )
        .map_err(|_| bad())?;
        let ambiguous = zone.to_ambiguous_timestamp(civil);
        let instants = match ambiguous.offset() {
            jiff::tz::AmbiguousOffset::Fold { before, after } => vec![
                before.to_timestamp(civil).map_err(|_| bad())?,
                after.to_timestamp(civil).map_err(|_| bad())?,
            ],
            _ => vec![ambiguous.compatible().map_err(|_| bad())?],
        };
        instants
            .into_iter()
            .map(|t| OffsetDateTime::from_unix_timestamp(t.as_second()).map_err(|_| bad()))
            .collect()
    }

    /// The local time of the instant `at` in this zone (to the second): the inverse of
    /// [`Zone::to_utc`] where a local time is not skipped or repeated.
    ///
    /// # Errors
    /// A message when the instant is out of range.
    pub fn to_local(&self, at: OffsetDateTime) -> Result<PrimitiveDateTime, String> {
        let bad = || format!("{} is out of range in {}", rfc3339(at), self.name());
        match self {
            Self::Fixed(offset) => at
                .checked_to_offset(*offset)
                .map(|local| PrimitiveDateTime::new(local.date(), local.time()))
                .ok_or_else(bad),
            Self::Named { zone, .. } => {
                let civil = jiff::Timestamp::from_second(at.unix_timestamp())
                    .map_err(|_| bad())?
                    .to_zoned(zone.clone())
                    .datetime();
                let month = time::Month::try_from(u8::try_from(civil.month()).map_err(|_| bad())?)
                    .map_err(|_| bad())?;
                let date = time::Date::from_calendar_date(
                    i32::from(civil.year()),
                    month,
                    u8::try_from(civil.day()).map_err(|_| bad())?,
                )
                .map_err(|_| bad())?;
                let clock = time::Time::from_hms(
                    u8::try_from(civil.hour()).map_err(|_| bad())?,
                    u8::try_from(civil.minute()).map_err(|_| bad())?,
                    u8::try_from(civil.second()).map_err(|_| bad())?,
                )
                .map_err(|_| bad())?;
                Ok(PrimitiveDateTime::new(date, clock))
            }
        }
    }

    /// `at` as RFC 3339 in this zone, with its offset there (`2026-12-06T02:00:00+01:00`):
    /// how a time is shown in a message.
    #[must_use]
    pub fn rfc3339(&self, at: OffsetDateTime) -> String {
        rfc3339(at.to_offset(self.offset_at(at)))
    }

    /// This zone's offset from UTC at the instant `at` (UTC's when out of range).
    #[must_use]
    pub fn offset_at(&self, at: OffsetDateTime) -> UtcOffset {
        match self {
            Self::Fixed(offset) => *offset,
            Self::Named { zone, .. } => jiff::Timestamp::from_second(at.unix_timestamp())
                .ok()
                .and_then(|t| UtcOffset::from_whole_seconds(zone.to_offset(t).seconds()).ok())
                .unwrap_or(UtcOffset::UTC),
        }
    }

    /// The start of the local hour holding `at`: the UTC hour's in a zone whose offset is
    /// whole hours, half past in Asia/Kolkata (+05:30), a quarter to in Asia/Kathmandu.
    #[must_use]
    pub fn hour_of(&self, at: OffsetDateTime) -> OffsetDateTime {
        let shift = i64::from(self.offset_at(at).whole_seconds()).rem_euclid(3_600);
        let seconds = at.unix_timestamp() - shift;
        let start = seconds - seconds.rem_euclid(3_600) + shift;
        OffsetDateTime::from_unix_timestamp(start).unwrap_or(at)
    }

    /// The zone's name, or the offset as `+01:00`.
    #[must_use]
    pub fn name(&self) -> String {
        match self {
            Self::Fixed(offset) => {
                let (h, m, _) = offset.as_hms();
                let sign = if offset.is_negative() { '-' } else { '+' };
                format!("{sign}{:02}:{:02}", h.unsigned_abs(), m.unsigned_abs())
            }
            Self::Named { name, .. } => name.clone(),
        }
    }
}

/// `at` as RFC 3339 in its own offset (`2026-12-06T01:00:00Z`), for messages.
#[must_use]
pub fn rfc3339(at: OffsetDateTime) -> String {
    at.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| at.to_string())
}

/// A local time as `2026-12-06T01:00:00`, for messages.
pub(crate) fn local_text(local: PrimitiveDateTime) -> String {
    local
        .format(time::macros::format_description!(
            "[year]-[month]-[day]T[hour]:[minute]:[second]"
        ))
        .unwrap_or_else(|_| local.to_string())
}
