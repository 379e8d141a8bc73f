//! The person's time zone: an IANA name checked against the tz database bundled in the binary,
//! and the local calendar it gives — the date of an instant, the instant a local day starts,
//! and the spans of one UTC offset that storage groups entries by.

use time::{Date, Duration, OffsetDateTime};

/// The longest name accepted (the longest IANA name has 32 characters).
pub const MAX_NAME_CHARS: usize = 64;

/// A name the tz database does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown time zone: use an IANA name such as \"Europe/Berlin\"")]
pub struct UnknownTimeZone;

/// A time zone of the IANA database, with the name the person chose.
#[derive(Debug, Clone)]
pub struct TimeZone {
    name: String,
    tz: jiff::tz::TimeZone,
}

impl PartialEq for TimeZone {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for TimeZone {}

/// A stretch of time during which the zone keeps one UTC offset: `[from, until)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffsetSpan {
    pub from: OffsetDateTime,
    /// `None`: the offset holds past the end of the range asked for.
    pub until: Option<OffsetDateTime>,
    /// Local time minus UTC, in seconds.
    pub offset_seconds: i32,
}

impl Default for TimeZone {
    fn default() -> Self {
        Self::utc()
    }
}

impl TimeZone {
    /// The default of every account.
    pub const DEFAULT_NAME: &'static str = "UTC";

    #[must_use]
    pub fn utc() -> Self {
        Self {
            name: Self::DEFAULT_NAME.to_owned(),
            tz: jiff::tz::TimeZone::UTC,
        }
    }

    /// Looks the name up in the tz database; the stored name is the database's spelling.
    ///
    /// # Errors
    /// [`UnknownTimeZone`] for an empty, over-long or unknown name.
    pub fn parse(name: &str) -> Result<Self, UnknownTimeZone> {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > MAX_NAME_CHARS {
            return Err(UnknownTimeZone);
        }
        let tz = jiff::tz::TimeZone::get(name).map_err(|_| UnknownTimeZone)?;
        let name = tz.iana_name().unwrap_or(name).to_owned();
        Ok(Self { name, tz })
    }

    /// A stored name; one the database no longer knows reads as UTC rather than failing every
    /// page of the person's.
    #[must_use]
    pub fn stored(name: &str) -> Self {
        Self::parse(name).unwrap_or_else(|_| Self::utc())
    }

    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Local time minus UTC at `at`, in seconds.
    #[must_use]
    pub fn offset_seconds(&self, at: OffsetDateTime) -> i32 {
        jiff::Timestamp::from_second(at.unix_timestamp())
            .map_or(0, |ts| self.tz.to_offset(ts).seconds())
    }

    /// The local calendar date of an instant.
    #[must_use]
    pub fn date_of(&self, at: OffsetDateTime) -> Date {
        let local =
            at.to_offset(time::UtcOffset::UTC) + Duration::seconds(self.offset_seconds(at).into());
        local.date()
    }

    /// The first instant of a local date (after a gap at midnight, the first that exists).
    #[must_use]
    pub fn start_of(&self, date: Date) -> OffsetDateTime {
        let midnight_utc = date.midnight().assume_utc();
        let civil = jiff::civil::Date::new(
            i16::try_from(date.year()).unwrap_or(i16::MAX),
            i8::try_from(u8::from(date.month())).unwrap_or(1),
            i8::try_from(date.day()).unwrap_or(1),
        );
        civil
            .and_then(|d| d.to_zoned(self.tz.clone()))
            .ok()
            .and_then(|z| OffsetDateTime::from_unix_timestamp(z.timestamp().as_second()).ok())
            // Out of jiff's range (years beyond ±9999): the offset of the UTC midnight.
            .unwrap_or_else(|| {
                midnight_utc - Duration::seconds(self.offset_seconds(midnight_utc).into())
            })
    }

    /// The spans of one offset that cover `[from, to]`, in order: the first starts at `from`,
    /// each next one at a transition, the last is open.
    #[must_use]
    pub fn offset_spans(&self, from: OffsetDateTime, to: OffsetDateTime) -> Vec<OffsetSpan> {
        let mut spans = vec![OffsetSpan {
            from,
            until: None,
            offset_seconds: self.offset_seconds(from),
        }];
        let Ok(start) = jiff::Timestamp::from_second(from.unix_timestamp()) else {
            return spans;
        };
        for transition in self.tz.following(start) {
            let Ok(at) = OffsetDateTime::from_unix_timestamp(transition.timestamp().as_second())
            else {
                break;
            };
            if at > to {
                break;
            }
            let offset_seconds = transition.offset().seconds();
            if let Some(last) = spans.last_mut() {
                if last.offset_seconds == offset_seconds {
                    // A change of name or DST flag only: the same local calendar.
                    continue;
                }
                last.until = Some(at);
            }
            spans.push(OffsetSpan {
                from: at,
                until: None,
                offset_seconds,
            });
        }
        spans
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::{date, datetime};

    fn berlin() -> TimeZone {
        TimeZone::parse("Europe/Berlin").unwrap()
    }

    #[test]
    fn known_names_parse_and_unknown_ones_are_refused() {
        assert_eq!(berlin().name(), "Europe/Berlin");
        assert_eq!(TimeZone::parse("UTC").unwrap().name(), "UTC");
        assert_eq!(
            TimeZone::parse(" Asia/Tokyo ").unwrap().name(),
            "Asia/Tokyo"
        );
        for bad in [
            "",
            "Mars/Olympus_Mons",
            "Europe/Berlin/x",
            "../../etc/passwd",
            "+01:00",
        ] {
            assert_eq!(TimeZone::parse(bad), Err(UnknownTimeZone), "{bad:?}");
        }
        assert_eq!(TimeZone::parse(&"A".repeat(65)), Err(UnknownTimeZone));
        assert_eq!(TimeZone::stored("Nowhere/Gone").name(), "UTC");
    }

    #[test]
    fn a_tokyo_day_ends_at_midnight_tokyo_time_not_at_nine_utc() {
        let tokyo = TimeZone::parse("Asia/Tokyo").unwrap();
        assert_eq!(
            tokyo.date_of(datetime!(2026-11-20 14:59 UTC)),
            date!(2026 - 11 - 20)
        );
        assert_eq!(
            tokyo.date_of(datetime!(2026-11-20 15:00 UTC)),
            date!(2026 - 11 - 21)
        );
        assert_eq!(
            tokyo.start_of(date!(2026 - 11 - 21)),
            datetime!(2026-11-20 15:00 UTC)
        );
    }

    #[test]
    fn local_days_follow_daylight_saving_time() {
        let berlin = berlin();
        // Summer time ended on 2026-10-25 at 01:00 UTC (03:00 CEST became 02:00 CET).
        assert_eq!(
            berlin.start_of(date!(2026 - 10 - 25)),
            datetime!(2026-10-24 22:00 UTC)
        );
        assert_eq!(
            berlin.start_of(date!(2026 - 10 - 26)),
            datetime!(2026-10-25 23:00 UTC)
        );
        assert_eq!(
            berlin.date_of(datetime!(2026-10-25 22:59 UTC)),
            date!(2026 - 10 - 25)
        );
        assert_eq!(
            berlin.date_of(datetime!(2026-10-25 23:00 UTC)),
            date!(2026 - 10 - 26)
        );
    }

    #[test]
    fn offset_spans_split_the_range_at_each_change_of_offset() {
        let spans = berlin().offset_spans(
            datetime!(2026-10-01 00:00 UTC),
            datetime!(2027-04-01 00:00 UTC),
        );
        assert_eq!(
            spans,
            [
                OffsetSpan {
                    from: datetime!(2026-10-01 00:00 UTC),
                    until: Some(datetime!(2026-10-25 01:00 UTC)),
                    offset_seconds: 7200
                },
                OffsetSpan {
                    from: datetime!(2026-10-25 01:00 UTC),
                    until: Some(datetime!(2027-03-28 01:00 UTC)),
                    offset_seconds: 3600
                },
                OffsetSpan {
                    from: datetime!(2027-03-28 01:00 UTC),
                    until: None,
                    offset_seconds: 7200
                },
            ]
        );
        let utc = TimeZone::utc().offset_spans(
            datetime!(2020-01-01 0:00 UTC),
            datetime!(2026-01-01 0:00 UTC),
        );
        assert_eq!(utc.len(), 1);
        assert_eq!(utc[0].offset_seconds, 0);
    }
}
