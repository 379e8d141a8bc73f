//! The work-pattern rollup: per-foundation minutes over a window, their shares, the neglected
//! foundations, the unmapped minutes and the coverage they leave, a series per local day of the
//! person's time zone and a plain-language summary that observes and never judges.

use serde::Serialize;
use time::{Date, Duration, OffsetDateTime};

use crate::account::TimeZone;
use crate::foundation::Foundation;

/// A foundation is neglected when its share of the logged time is below this.
pub const NEGLECT_BELOW: f64 = 0.05;

/// Minutes per foundation, indexed in [`Foundation::ALL`] order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FoundationMinutes([i64; 6]);

impl From<[i64; 6]> for FoundationMinutes {
    fn from(minutes: [i64; 6]) -> Self {
        Self(minutes)
    }
}

impl FoundationMinutes {
    #[must_use]
    pub const fn get(&self, foundation: Foundation) -> i64 {
        self.0[foundation.index()]
    }

    pub fn add(&mut self, foundation: Foundation, minutes: i64) {
        self.0[foundation.index()] += minutes;
    }

    /// The element-wise sum.
    #[must_use]
    pub fn plus(mut self, other: &Self) -> Self {
        for (f, m) in other.iter() {
            self.add(f, m);
        }
        self
    }

    #[must_use]
    pub fn total(&self) -> i64 {
        self.0.iter().sum()
    }

    /// `(foundation, minutes)` in contract order.
    pub fn iter(&self) -> impl Iterator<Item = (Foundation, i64)> + '_ {
        Foundation::ALL.into_iter().map(|f| (f, self.get(f)))
    }
}

impl Serialize for FoundationMinutes {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(6))?;
        for (f, m) in self.iter() {
            map.serialize_entry(f.key(), &m)?;
        }
        map.end()
    }
}

/// Minutes per foundation on one local calendar date (or in the local week starting on it), and
/// the minutes no foundation was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DailyMinutes {
    pub date: Date,
    pub minutes: FoundationMinutes,
    pub unmapped: i64,
}

/// A number of days outside 1-365.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("days must be between 1 and 365")]
pub struct InvalidDays;

/// The window `(to - days, to]` over `occurred_at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub days: u16,
    pub from: OffsetDateTime,
    pub to: OffsetDateTime,
}

impl Window {
    pub const DEFAULT_DAYS: u16 = 14;
    pub const MAX_DAYS: u16 = 365;

    /// # Errors
    /// [`InvalidDays`] outside 1-365.
    pub fn ending_at(to: OffsetDateTime, days: i64) -> Result<Self, InvalidDays> {
        let days = u16::try_from(days)
            .ok()
            .filter(|d| (1..=Self::MAX_DAYS).contains(d))
            .ok_or(InvalidDays)?;
        Ok(Self {
            days,
            from: to - Duration::days(i64::from(days)),
            to,
        })
    }

    /// Every local calendar date of `zone` the window touches, oldest first.
    pub fn dates(&self, zone: &TimeZone) -> impl Iterator<Item = Date> + use<> {
        let (first, last) = (zone.date_of(self.from), zone.date_of(self.to));
        std::iter::successors(Some(first), move |d| d.next_day().filter(|n| *n <= last))
    }
}

/// One foundation's line of the rollup.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FoundationShare {
    pub foundation: Foundation,
    pub minutes: i64,
    pub share: f64,
    pub neglected: bool,
}

/// The rollup, in the contract's shape.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkPattern {
    pub window: Window,
    /// The IANA name of the zone whose calendar dates `daily` lists.
    pub time_zone: String,
    /// Mapped minutes: the shares are over these.
    pub total_minutes: i64,
    /// Minutes logged without a foundation.
    pub unmapped_minutes: i64,
    /// Mapped minutes over all minutes; 1.0 when nothing was logged.
    pub coverage: f64,
    pub foundations: Vec<FoundationShare>,
    pub neglected: Vec<Foundation>,
    pub summary: String,
    pub daily: Vec<DailyMinutes>,
    /// A re-classification of the person's entries is under way: some may still carry the
    /// foundation of rules that have since changed.
    pub reclassifying: bool,
}

/// Below this coverage, observations say that the shares describe only part of the time.
pub const COVERAGE_NOTED_BELOW: f64 = 0.8;

/// Builds the rollup from the (sparse) per-day sums of a window, dated in `zone`: the totals
/// are their sum. Days without entries are filled with zeros; days outside the window are
/// ignored.
#[must_use]
pub fn rollup(window: Window, zone: &TimeZone, daily: &[DailyMinutes]) -> WorkPattern {
    let daily = fill(window.dates(zone), daily);
    let totals = daily
        .iter()
        .fold(FoundationMinutes::default(), |acc, d| acc.plus(&d.minutes));
    let total_minutes = totals.total();
    let unmapped_minutes: i64 = daily.iter().map(|d| d.unmapped).sum();
    let coverage = coverage(total_minutes, unmapped_minutes);
    let foundations: Vec<FoundationShare> = totals
        .iter()
        .map(|(foundation, minutes)| {
            #[allow(clippy::cast_precision_loss)] // minutes stay far below 2^52
            let share = if total_minutes == 0 {
                0.0
            } else {
                minutes as f64 / total_minutes as f64
            };
            FoundationShare {
                foundation,
                minutes,
                share,
                neglected: share < NEGLECT_BELOW,
            }
        })
        .collect();
    let neglected = foundations
        .iter()
        .filter(|f| f.neglected)
        .map(|f| f.foundation)
        .collect();
    let summary = summarise(window.days, total_minutes, unmapped_minutes, &foundations);
    WorkPattern {
        window,
        time_zone: zone.name().to_owned(),
        total_minutes,
        unmapped_minutes,
        coverage,
        foundations,
        neglected,
        summary,
        daily,
        reclassifying: false,
    }
}

/// One entry per date of `dates` (a day, or a week's Monday), each the sum of the (sparse) sums
/// keyed by that date, zeros where there are none; sums keyed by another date are ignored.
pub(crate) fn fill(dates: impl Iterator<Item = Date>, sums: &[DailyMinutes]) -> Vec<DailyMinutes> {
    dates
        .map(|date| {
            let same_date = || sums.iter().filter(move |d| d.date == date);
            DailyMinutes {
                date,
                minutes: same_date()
                    .fold(FoundationMinutes::default(), |acc, d| acc.plus(&d.minutes)),
                unmapped: same_date().map(|d| d.unmapped).sum(),
            }
        })
        .collect()
}

/// Mapped minutes over all minutes; 1.0 when nothing was logged (nothing is missing).
#[must_use]
pub fn coverage(mapped: i64, unmapped: i64) -> f64 {
    let all = mapped + unmapped;
    #[allow(clippy::cast_precision_loss)] // minutes stay far below 2^52
    if all == 0 {
        1.0
    } else {
        mapped as f64 / all as f64
    }
}

/// Plain language, in the dashboard's words: how much was logged, how much of it is classified
/// and how much not yet, where most of the classified time went and what got little or none.
fn summarise(days: u16, total: i64, unmapped: i64, foundations: &[FoundationShare]) -> String {
    let span = if days == 1 {
        "the last day".to_owned()
    } else {
        format!("the last {days} days")
    };
    let mut text = match (total, unmapped) {
        (0, 0) => return format!("No time was logged in {span}."),
        (0, _) => {
            return format!(
                "In {span} you logged {}, none of it classified yet.",
                duration_words(unmapped)
            );
        }
        (_, 0) => format!(
            "In {span} you logged {}, all of it classified.",
            duration_words(total)
        ),
        _ => format!(
            "In {span} you logged {}: {} classified, {} not yet.",
            duration_words(total + unmapped),
            duration_words(total),
            duration_words(unmapped)
        ),
    };
    let mut ranked: Vec<&FoundationShare> = foundations.iter().filter(|f| f.minutes > 0).collect();
    ranked.sort_by_key(|f| std::cmp::Reverse(f.minutes));
    let percent =
        |f: &FoundationShare| format!("{} ({:.0}%)", f.foundation.title(), f.share * 100.0);
    match ranked.as_slice() {
        [only] => text.push_str(&format!(
            " All the classified time went to {}.",
            only.foundation.title()
        )),
        [first, second, ..] => text.push_str(&format!(
            " Of the classified time, the largest share went to {}, then {}.",
            percent(first),
            percent(second)
        )),
        [] => {}
    }
    let quiet: Vec<&str> = foundations
        .iter()
        .filter(|f| f.neglected)
        .map(|f| f.foundation.title())
        .collect();
    if !quiet.is_empty() {
        text.push_str(&format!(
            " {} received less than 5% of the classified time.",
            join_words(&quiet)
        ));
    }
    text
}

fn duration_words(minutes: i64) -> String {
    match (minutes / 60, minutes % 60) {
        (0, m) => format!("{m} min"),
        (h, 0) => format!("{h} h"),
        (h, m) => format!("{h} h {m} min"),
    }
}

fn join_words(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coaching::vocabulary::find_verdict;
    use time::macros::{date, datetime};

    const NOW: OffsetDateTime = datetime!(2026-11-22 10:00 UTC);

    fn window(days: i64) -> Window {
        Window::ending_at(NOW, days).unwrap()
    }

    fn rollup_utc(window: Window, daily: &[DailyMinutes]) -> WorkPattern {
        rollup(window, &TimeZone::utc(), daily)
    }

    /// A rollup whose minutes were all logged today.
    fn today(days: i64, minutes: [i64; 6]) -> WorkPattern {
        let daily = [DailyMinutes {
            date: NOW.date(),
            minutes: FoundationMinutes::from(minutes),
            unmapped: 0,
        }];
        rollup_utc(window(days), &daily)
    }

    #[test]
    fn a_zero_total_gives_zero_shares_and_every_foundation_neglected() {
        let p = rollup_utc(window(14), &[]);
        assert_eq!(p.total_minutes, 0);
        assert_eq!(p.foundations.len(), 6);
        assert!(p.foundations.iter().all(|f| f.share == 0.0 && f.neglected));
        assert_eq!(p.neglected, Foundation::ALL);
        assert_eq!(p.summary, "No time was logged in the last 14 days.");
    }

    #[test]
    fn one_foundation_only_takes_the_whole_share() {
        let p = today(7, [0, 0, 90, 0, 0, 0]);
        let mission = p.foundations[Foundation::Mission.index()];
        assert_eq!(mission.share, 1.0);
        assert!(!mission.neglected);
        assert_eq!(p.neglected.len(), 5);
        assert!(
            p.summary
                .contains("All the classified time went to Mission"),
            "{}",
            p.summary
        );
    }

    #[test]
    fn shares_sum_to_one_and_keep_the_contract_order() {
        for minutes in [
            [1, 2, 3, 4, 5, 6],
            [7, 0, 13, 1_000_003, 1, 1],
            [1; 6],
            [0, 0, 0, 0, 1, 2],
        ] {
            let p = today(30, minutes);
            let sum: f64 = p.foundations.iter().map(|f| f.share).sum();
            assert!((sum - 1.0).abs() < 1e-9, "{minutes:?}: {sum}");
            let order: Vec<_> = p.foundations.iter().map(|f| f.foundation).collect();
            assert_eq!(order, Foundation::ALL);
        }
    }

    #[test]
    fn neglect_starts_just_below_five_percent() {
        // 5 of 100 minutes is exactly 5%: not neglected; 4 of 100 is.
        let p = today(14, [5, 4, 91, 0, 0, 0]);
        assert!(!p.foundations[0].neglected);
        assert!(p.foundations[1].neglected);
        assert_eq!(
            p.neglected,
            [
                Foundation::Strength,
                Foundation::Vocation,
                Foundation::ShortTerm,
                Foundation::LongTerm
            ]
        );
    }

    #[test]
    fn the_daily_series_covers_every_date_the_window_touches() {
        let sparse = vec![
            DailyMinutes {
                date: date!(2026 - 11 - 20),
                minutes: FoundationMinutes::from([0, 30, 0, 0, 0, 0]),
                unmapped: 15,
            },
            DailyMinutes {
                date: date!(2026 - 11 - 01),
                minutes: FoundationMinutes::from([99, 0, 0, 0, 0, 0]),
                unmapped: 7,
            },
        ];
        let p = rollup_utc(window(3), &sparse);
        assert_eq!(
            p.total_minutes, 30,
            "the entry outside the window is ignored"
        );
        let dates: Vec<_> = p.daily.iter().map(|d| d.date).collect();
        assert_eq!(
            dates,
            [
                date!(2026 - 11 - 19),
                date!(2026 - 11 - 20),
                date!(2026 - 11 - 21),
                date!(2026 - 11 - 22)
            ]
        );
        assert_eq!(p.daily[1].minutes.get(Foundation::Strength), 30);
        assert_eq!(p.daily[0].minutes.total(), 0);
        assert_eq!(
            p.unmapped_minutes, 15,
            "only the unmapped time inside the window"
        );
        assert!((p.coverage - 30.0 / 45.0).abs() < 1e-12);
    }

    #[test]
    fn the_daily_series_lists_the_local_dates_of_the_persons_zone() {
        // 16:00 UTC on the 22nd is 01:00 on the 23rd in Tokyo (UTC+9).
        let tokyo = TimeZone::parse("Asia/Tokyo").unwrap();
        let late = Window::ending_at(datetime!(2026-11-22 16:00 UTC), 1).unwrap();
        let p = rollup(late, &tokyo, &[]);
        let dates: Vec<_> = p.daily.iter().map(|d| d.date).collect();
        assert_eq!(dates, [date!(2026 - 11 - 22), date!(2026 - 11 - 23)]);
        assert_eq!(p.time_zone, "Asia/Tokyo");

        // 10:00 UTC on the 22nd is midnight starting the 22nd in Honolulu (UTC-10).
        let honolulu = TimeZone::parse("Pacific/Honolulu").unwrap();
        let p = rollup(window(1), &honolulu, &[]);
        let dates: Vec<_> = p.daily.iter().map(|d| d.date).collect();
        assert_eq!(dates, [date!(2026 - 11 - 21), date!(2026 - 11 - 22)]);
    }

    #[test]
    fn coverage_is_whole_when_nothing_was_logged_and_shares_stay_over_mapped_time() {
        let p = rollup_utc(window(14), &[]);
        assert_eq!((p.unmapped_minutes, p.coverage), (0, 1.0));

        let daily = [DailyMinutes {
            date: NOW.date(),
            minutes: FoundationMinutes::from([60, 0, 0, 60, 0, 0]),
            unmapped: 120,
        }];
        let p = rollup_utc(window(14), &daily);
        assert_eq!((p.total_minutes, p.unmapped_minutes), (120, 120));
        assert_eq!(p.coverage, 0.5);
        assert_eq!(
            p.foundations[0].share, 0.5,
            "love is half of the mapped time"
        );
        assert_eq!(
            p.summary,
            "In the last 14 days you logged 4 h: 2 h classified, 2 h not yet. Of the classified time, the largest share went to Love (50%), then Vocation (50%). Strength, Mission, Near-term goal and Long-term goal received less than 5% of the classified time."
        );

        let only_unmapped = [DailyMinutes {
            date: NOW.date(),
            minutes: FoundationMinutes::default(),
            unmapped: 45,
        }];
        let p = rollup_utc(window(7), &only_unmapped);
        assert_eq!(p.coverage, 0.0);
        assert_eq!(
            p.summary,
            "In the last 7 days you logged 45 min, none of it classified yet."
        );
        assert_eq!(find_verdict(&p.summary), None);
    }

    #[test]
    fn days_outside_one_to_365_are_refused() {
        assert_eq!(Window::ending_at(NOW, 0), Err(InvalidDays));
        assert_eq!(Window::ending_at(NOW, 366), Err(InvalidDays));
        assert_eq!(window(365).days, 365);
        assert_eq!(window(1).from, NOW - Duration::days(1));
    }

    #[test]
    fn the_summary_observes_and_never_judges() {
        for minutes in [
            [0; 6],
            [600, 0, 0, 0, 0, 0],
            [1, 2, 3, 400, 5, 0],
            [61, 59, 0, 0, 0, 120],
        ] {
            let p = today(14, minutes);
            assert_eq!(find_verdict(&p.summary), None, "{}", p.summary);
        }
        let p = today(14, [0, 30, 0, 600, 0, 120]);
        assert_eq!(
            p.summary,
            "In the last 14 days you logged 12 h 30 min, all of it classified. Of the classified time, the largest share went to Vocation (80%), then Long-term goal (16%). Love, Strength, Mission and Near-term goal received less than 5% of the classified time."
        );
    }
}
