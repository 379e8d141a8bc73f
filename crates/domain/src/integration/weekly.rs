//! The weekly series: minutes per foundation for each of the person's last N local weeks
//! (Monday to Sunday in their time zone), empty weeks included, oldest first.

use time::{Date, Duration, OffsetDateTime};

use crate::account::TimeZone;
use crate::integration::DailyMinutes;
use crate::integration::work_pattern::fill;

/// A number of weeks outside 1-104.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("weeks must be between 1 and 104")]
pub struct InvalidWeeks;

/// The last `count` local weeks up to `to`: entries with `occurred_at` in `[from, to]`, where
/// `from` is the start of the first week's Monday in the person's zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Weeks {
    pub count: u8,
    /// The first week's Monday (a local date).
    pub first: Date,
    pub from: OffsetDateTime,
    pub to: OffsetDateTime,
}

impl Weeks {
    pub const DEFAULT: u8 = 12;
    pub const MAX: u8 = 104;

    /// The `count` weeks ending with the one `now` is in.
    ///
    /// # Errors
    /// [`InvalidWeeks`] outside 1-104.
    pub fn ending_at(
        now: OffsetDateTime,
        zone: &TimeZone,
        count: i64,
    ) -> Result<Self, InvalidWeeks> {
        let count = u8::try_from(count)
            .ok()
            .filter(|c| (1..=Self::MAX).contains(c))
            .ok_or(InvalidWeeks)?;
        let first = monday_of(zone.date_of(now)) - Duration::weeks(i64::from(count) - 1);
        Ok(Self {
            count,
            first,
            from: zone.start_of(first),
            to: now,
        })
    }

    /// Each week's Monday, oldest first.
    pub fn starts(&self) -> impl Iterator<Item = Date> {
        let first = self.first;
        (0..i64::from(self.count)).map(move |i| first + Duration::weeks(i))
    }
}

/// The Monday of the week a date is in.
#[must_use]
pub fn monday_of(date: Date) -> Date {
    date - Duration::days(i64::from(date.weekday().number_days_from_monday()))
}

/// The weekly series in the contract's shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WeeklyPattern {
    pub time_zone: String,
    /// One per week, oldest first; `date` is the week's Monday.
    pub weeks: Vec<DailyMinutes>,
}

/// Fills the (sparse) per-week sums into every week of `weeks`; sums keyed by another date are
/// ignored.
#[must_use]
pub fn weekly(weeks: &Weeks, zone: &TimeZone, sums: &[DailyMinutes]) -> WeeklyPattern {
    WeeklyPattern {
        time_zone: zone.name().to_owned(),
        weeks: fill(weeks.starts(), sums),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::integration::FoundationMinutes;
    use time::macros::{date, datetime};

    #[test]
    fn the_weeks_end_with_the_local_week_of_now() {
        let tokyo = TimeZone::parse("Asia/Tokyo").unwrap();
        // Sunday 16:00 UTC is already Monday 01:00 in Tokyo: a new week there.
        let now = datetime!(2026-11-22 16:00 UTC);
        let weeks = Weeks::ending_at(now, &tokyo, 2).unwrap();
        assert_eq!(weeks.first, date!(2026 - 11 - 16));
        assert_eq!(weeks.from, datetime!(2026-11-15 15:00 UTC));
        let starts: Vec<Date> = weeks.starts().collect();
        assert_eq!(starts, [date!(2026 - 11 - 16), date!(2026 - 11 - 23)]);

        let utc = Weeks::ending_at(now, &TimeZone::utc(), 1).unwrap();
        assert_eq!(utc.first, date!(2026 - 11 - 16));
        assert_eq!(utc.from, datetime!(2026-11-16 00:00 UTC));
    }

    #[test]
    fn weeks_outside_one_to_104_are_refused() {
        let now = datetime!(2026-11-22 16:00 UTC);
        let utc = TimeZone::utc();
        assert_eq!(Weeks::ending_at(now, &utc, 0), Err(InvalidWeeks));
        assert_eq!(Weeks::ending_at(now, &utc, 105), Err(InvalidWeeks));
        assert_eq!(Weeks::ending_at(now, &utc, 104).unwrap().count, 104);
    }

    #[test]
    fn every_week_is_listed_and_sums_land_on_their_monday() {
        let zone = TimeZone::parse("Europe/Berlin").unwrap();
        let weeks = Weeks::ending_at(datetime!(2026-11-27 12:00 UTC), &zone, 3).unwrap();
        let sums = [
            DailyMinutes {
                date: date!(2026 - 11 - 16),
                minutes: FoundationMinutes::from([10, 0, 0, 0, 0, 5]),
                unmapped: 7,
            },
            DailyMinutes {
                date: date!(2026 - 10 - 05),
                minutes: FoundationMinutes::from([99, 0, 0, 0, 0, 0]),
                unmapped: 0,
            },
        ];
        let p = weekly(&weeks, &zone, &sums);
        assert_eq!(p.time_zone, "Europe/Berlin");
        let starts: Vec<Date> = p.weeks.iter().map(|w| w.date).collect();
        assert_eq!(
            starts,
            [
                date!(2026 - 11 - 09),
                date!(2026 - 11 - 16),
                date!(2026 - 11 - 23)
            ]
        );
        assert_eq!(p.weeks[1].minutes.total(), 15);
        assert_eq!(p.weeks[1].unmapped, 7);
        assert_eq!(p.weeks[0].minutes.total() + p.weeks[2].minutes.total(), 0);
    }
}
