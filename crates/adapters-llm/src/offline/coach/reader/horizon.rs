//! The horizon of a time expression in everyday words: "by christmas", "this summer", "in the
//! next six months" are near; "in a few years", "someday", "when the kids are older" are long.
//! Read from the words' kinds (a unit of time, how many, a season or holiday, a deadline word),
//! not from a list of whole phrases.

use domain::profile::EditableField;

use crate::offline::text::{normalize, words};

/// A horizon found: the goal it points to and where its expression starts (a byte offset).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Horizon {
    pub field: EditableField,
    pub at: usize,
}

const NEAR: EditableField = EditableField::NearTermGoalSummary;
const LONG: EditableField = EditableField::LongTermGoalSummary;

const NUMBER_WORDS: &[&str] = &[
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve", "fifteen",
    "twenty", "few", "several", "couple", "many",
];
const ONE: &[&str] = &["a", "one", "1", "this", "next", "the", "that"];
const YEARS: &[&str] = &["year", "years", "year's", "yr", "yrs"];
const SHORT_UNITS: &[&str] = &[
    "month", "months", "week", "weeks", "mo", "quarter", "semester", "term",
];
/// Moments of the year a deadline can name.
const MOMENTS: &[&str] = &[
    "christmas",
    "xmas",
    "easter",
    "thanksgiving",
    "summer",
    "spring",
    "fall",
    "autumn",
    "winter",
    "birthday",
    "eoy",
    "eom",
    "q1",
    "q2",
    "q3",
    "q4",
    "january",
    "february",
    "march",
    "april",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "weekend",
    "holidays",
    "new",
];
/// Words that set a deadline or a near window before a moment.
const DEADLINES: &[&str] = &[
    "by", "until", "till", "before", "this", "next", "for", "in", "around",
];
/// Words before a span of years that make it time already spent.
const PAST: &[&str] = &["for", "after", "last", "past", "over", "spent", "been"];
/// Words that alone point far ahead.
const FAR: &[&str] = &["someday", "eventually", "longterm"];
/// Later stages of life that a "when ..." clause names.
const LIFE_STAGES: &[&str] = &[
    "older",
    "grown",
    "retire",
    "retired",
    "retirement",
    "graduate",
    "graduates",
    "graduated",
    "school",
    "college",
    "leave",
    "leaves",
    "moved",
];

/// The earliest horizon in `text`.
#[must_use]
pub fn find(text: &str) -> Option<Horizon> {
    let all: Vec<(usize, String)> = words(text)
        .into_iter()
        .map(|(at, w)| (at, normalize(w)))
        .collect();
    (0..all.len()).find_map(|i| at(&all, i))
}

fn at(all: &[(usize, String)], i: usize) -> Option<Horizon> {
    let word = all[i].1.as_str();
    let before = |back: usize| {
        i.checked_sub(back)
            .and_then(|j| all.get(j))
            .map(|(_, w)| w.as_str())
    };
    let after = |ahead: usize| all.get(i + ahead).map(|(_, w)| w.as_str());
    let start = |back: usize| all[i.saturating_sub(back)].0;
    let many = |w: Option<&str>| {
        w.is_some_and(|w| {
            NUMBER_WORDS.contains(&w) || w.parse::<u32>().is_ok_and(|n| (2..100).contains(&n))
        })
    };
    if YEARS.contains(&word) {
        // "for thirty years", "two years ago": time spent, not a horizon.
        let counted = if many(before(1)) { 2 } else { 3 };
        let past = (1..=counted).any(|k| before(k).is_some_and(|w| PAST.contains(&w)))
            && (many(before(1)) || many(before(2)) || before(1) == Some("last"))
            || after(1) == Some("ago");
        if past {
            return None;
        }
        // "in 3 or 4 years", "3-5 yr", "the next few years": more than one year is far.
        if many(before(1)) || many(before(2)) && before(1) != Some("a") {
            return Some(Horizon {
                field: LONG,
                at: start(2),
            });
        }
        if before(1).is_some_and(|w| ONE.contains(&w)) {
            return Some(Horizon {
                field: NEAR,
                at: start(1),
            });
        }
        return None;
    }
    // "two evenings a week" is how often, not when.
    let frequency = before(1).is_some_and(|w| matches!(w, "a" | "per" | "every" | "each"))
        && !before(2).is_some_and(|w| matches!(w, "in" | "within"));
    if SHORT_UNITS.contains(&word)
        && !frequency
        && (many(before(1)) || before(1).is_some_and(|w| ONE.contains(&w) || w == "coming"))
    {
        return Some(Horizon {
            field: NEAR,
            at: start(1),
        });
    }
    if FAR.contains(&word)
        || matches!((word, after(1)), ("some" | "one", Some("day")) if after(2) != Some("a"))
        || (word == "long" && after(1) == Some("run"))
        || (word == "future" && matches!(before(1), Some("the" | "in")))
    {
        return Some(Horizon {
            field: LONG,
            at: all[i].0,
        });
    }
    if word == "when" && (1..=7).any(|k| after(k).is_some_and(|w| LIFE_STAGES.contains(&w))) {
        return Some(Horizon {
            field: LONG,
            at: all[i].0,
        });
    }
    if MOMENTS.contains(&word) && word != "new" {
        let deadline = (1..=3).any(|k| before(k).is_some_and(|w| DEADLINES.contains(&w)));
        if deadline {
            return Some(Horizon {
                field: NEAR,
                at: start(2),
            });
        }
    }
    if matches!(word, "soon" | "asap") {
        return Some(Horizon {
            field: NEAR,
            at: all[i].0,
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(text: &str) -> Option<EditableField> {
        find(text).map(|h| h.field)
    }

    #[test]
    fn everyday_horizons_are_read_by_their_kind() {
        for near in [
            "by easter I want a new bike",
            "this summer we move",
            "in the next two months",
            "goal for this year: a boat",
            "before my birthday in May",
            "within the next year",
            "until October I save",
            "next 3-6 months",
            "by Q2 ship it",
        ] {
            assert_eq!(field(near), Some(NEAR), "{near}");
        }
        for long in [
            "in a couple of years a farm",
            "someday a house by a lake",
            "one day I'd like to sail",
            "in 10 yrs",
            "7-10 year plan",
            "when my son is grown I will travel",
            "in the next few years",
        ] {
            assert_eq!(field(long), Some(LONG), "{long}");
        }
        for none in [
            "I fish on sundays",
            "one day a week",
            "I have been at it for years",
            "after 34 years in class",
            "two years ago",
        ] {
            assert_eq!(field(none), None, "{none}");
        }
    }

    #[test]
    fn the_earliest_horizon_decides() {
        assert_eq!(field("by autumn, then in five years more"), Some(NEAR));
    }
}
