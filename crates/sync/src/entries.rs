//! From intervals to task mappings: which intervals are sent, under which id, label, foundation
//! and number of minutes.
//!
//! - **Id.** `timew:<start>:<16 hex digits of SHA-256 over the sorted tags>`, at most 39
//!   characters (the contract allows 200). The same interval always gets the same id, so a
//!   re-run updates the rows it created instead of adding new ones.
//! - **Minutes.** The duration rounded to the nearest minute (30 seconds round up).
//! - **Long intervals.** The contract caps one entry at 1,440 minutes. An interval longer than
//!   that is split at each midnight of the person's zone ([`plan_in`]; UTC's for [`plan`]);
//!   every piece is its own entry (its own start, hence its own id), and the pieces' minutes
//!   add up to the whole interval's rounded minutes. Shorter intervals are never split, even
//!   across midnight: one interval, one entry.
//! - **Open intervals** (still being tracked, no `end`) are left out; the next run after
//!   `timew stop` sends them.
//! - **Foundation.** With a mapping file ([`plan`]), the file decides and no tags are sent.
//!   Without one ([`plan_for_rules`]), every closed interval is sent without a foundation and
//!   with its tags (at most 20 of at most 100 characters, as the contract allows), so the
//!   server's rules decide (docs/api.md, "Mapping rules and unmapped time"). Ids, labels and
//!   minutes are the same either way.

use serde::Serialize;
use sha2::{Digest, Sha256};
use time::macros::format_description;
use time::{Duration, OffsetDateTime, Time};

use crate::mapping::{Mapping, Target};
use crate::timew::Interval;
use crate::zone::Zone;

/// The contract's cap on one entry's minutes, as the domain defines it.
pub const MAX_MINUTES: i64 = domain::integration::Minutes::MAX as i64;
/// The contract's cap on a label's length, in characters, as the domain defines it.
pub const MAX_LABEL_CHARS: usize = domain::integration::TaskLabel::MAX;

/// One task mapping as the service takes it (`POST /integration/task-mappings`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    pub external_task_id: String,
    pub task_label: Option<String>,
    /// Left out of the body when empty (the service's default).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Left out of the body when `None`: the server's rules decide.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub foundation: Option<String>,
    pub minutes: i64,
    #[serde(with = "time::serde::rfc3339")]
    pub occurred_at: OffsetDateTime,
}

/// What a run sends, and how many intervals it left out and why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    pub items: Vec<Item>,
    /// Intervals read.
    pub intervals: usize,
    /// Left out: still open.
    pub open: usize,
    /// Left out: mapped to "skip".
    pub skipped: usize,
    /// Intervals over 1,440 minutes, sent as several entries.
    pub split: usize,
    /// Tags cut or dropped to fit the contract (sending tags only), `interval <n>: <what>`.
    pub warnings: Vec<String>,
}

/// The stable id of the entry starting at `start` with these tags (in any order).
#[must_use]
pub fn external_id(start: OffsetDateTime, tags: &[String]) -> String {
    let mut sorted: Vec<&str> = tags.iter().map(String::as_str).collect();
    sorted.sort_unstable();
    // Hashing the JSON array keeps ["a b"] and ["a", "b"] apart, which joining would not.
    let canonical = serde_json::to_string(&sorted).unwrap_or_default();
    let digest = hex::encode(Sha256::digest(canonical.as_bytes()));
    let format = format_description!("[year][month][day]T[hour][minute][second]Z");
    let stamp = start
        .to_offset(time::UtcOffset::UTC)
        .format(format)
        .unwrap_or_default();
    format!("timew:{stamp}:{}", &digest[..16])
}

/// The tags joined with `", "`, cut to 500 characters; `None` for an untagged interval.
#[must_use]
pub fn label(tags: &[String]) -> Option<String> {
    if tags.is_empty() {
        return None;
    }
    Some(tags.join(", ").chars().take(MAX_LABEL_CHARS).collect())
}

/// Whole minutes in `seconds`, rounded half up; never negative.
#[must_use]
pub fn rounded_minutes(seconds: i64) -> i64 {
    (seconds.max(0) + 30) / 60
}

/// The pieces `(start, minutes)` of the interval `[start, end)`: one piece when it rounds to at
/// most 1,440 minutes, else one per UTC day it touches.
#[must_use]
pub fn pieces(start: OffsetDateTime, end: OffsetDateTime) -> Vec<(OffsetDateTime, i64)> {
    pieces_in(start, end, &utc())
}

/// Whether any closed interval is long enough to be cut at midnights (over 1,440 minutes):
/// only then does the person's zone change what is sent.
#[must_use]
pub fn any_cut(intervals: &[Interval]) -> bool {
    intervals.iter().any(|interval| {
        interval.end.is_some_and(|end| {
            rounded_minutes((end - interval.start).whole_seconds()) > MAX_MINUTES
        })
    })
}

fn utc() -> Zone {
    Zone::Fixed(time::UtcOffset::UTC)
}

/// [`pieces`], one per day of `zone` it touches, cut at that zone's midnights: each of the
/// person's days holds the time spent on it (a day of 23 or 25 hours included).
#[must_use]
pub fn pieces_in(
    start: OffsetDateTime,
    end: OffsetDateTime,
    zone: &Zone,
) -> Vec<(OffsetDateTime, i64)> {
    let total = (end - start).whole_seconds();
    if rounded_minutes(total) <= MAX_MINUTES {
        return vec![(start, rounded_minutes(total))];
    }
    let mut cuts = vec![start];
    // Near the years 1 and 9999 a zone's midnight may be out of range: UTC's is as good.
    let midnight_after = |at: OffsetDateTime| {
        let day = zone.to_local(at).map_or(at.date(), |local| local.date());
        day.next_day()
            .and_then(|next| zone.to_utc(next.midnight()).ok())
            .filter(|m| *m > at)
            .unwrap_or_else(|| at.replace_time(Time::MIDNIGHT) + Duration::DAY)
    };
    let mut midnight = midnight_after(start);
    while midnight < end {
        cuts.push(midnight);
        midnight = midnight_after(midnight);
    }
    cuts.push(end);
    // Each piece's minutes are the difference of the rounded offsets from the start, so the
    // pieces add up to exactly the rounded total (rounding each piece could drift by one).
    let offset = |at: OffsetDateTime| rounded_minutes((at - start).whole_seconds());
    cuts.windows(2)
        .map(|w| (w[0], offset(w[1]) - offset(w[0])))
        .collect()
}

/// Every entry to send for `intervals` under `mapping`, long intervals cut at UTC midnights.
#[must_use]
pub fn plan(intervals: &[Interval], mapping: &Mapping) -> Plan {
    plan_in(intervals, mapping, &utc())
}

/// [`plan`], long intervals cut at the midnights of `zone`.
#[must_use]
pub fn plan_in(intervals: &[Interval], mapping: &Mapping, zone: &Zone) -> Plan {
    plan_with(intervals, zone, |interval, _| {
        match mapping.target_of(&interval.tags) {
            Target::Skip => None,
            Target::Foundation(f) => Some((Some(f.clone()), Vec::new())),
        }
    })
}

/// Every closed interval, to send without a foundation and with its tags: the server's rules
/// decide. Long intervals are cut at UTC midnights.
#[must_use]
pub fn plan_for_rules(intervals: &[Interval]) -> Plan {
    plan_for_rules_in(intervals, &utc())
}

/// [`plan_for_rules`], long intervals cut at the midnights of `zone`.
#[must_use]
pub fn plan_for_rules_in(intervals: &[Interval], zone: &Zone) -> Plan {
    plan_with(intervals, zone, |interval, warnings| {
        let tags =
            crate::tags::fit_tags_with(interval.tags.iter().map(String::as_str), |message| {
                warnings.push(message)
            });
        Some((None, tags))
    })
}

/// The plan with `decide` giving each closed interval's foundation and tags, or `None` to leave
/// it out; `decide` may add warnings.
fn plan_with(
    intervals: &[Interval],
    zone: &Zone,
    mut decide: impl FnMut(&Interval, &mut Vec<String>) -> Option<(Option<String>, Vec<String>)>,
) -> Plan {
    let mut plan = Plan {
        intervals: intervals.len(),
        ..Plan::default()
    };
    for (number, interval) in intervals.iter().enumerate() {
        let Some(end) = interval.end else {
            plan.open += 1;
            continue;
        };
        let mut warnings = Vec::new();
        let decided = decide(interval, &mut warnings);
        plan.warnings.extend(
            warnings
                .into_iter()
                .map(|w| format!("interval {}: {w}", number + 1)),
        );
        let Some((foundation, tags)) = decided else {
            plan.skipped += 1;
            continue;
        };
        let start = interval.start.to_offset(time::UtcOffset::UTC);
        let parts = pieces_in(start, end.to_offset(time::UtcOffset::UTC), zone);
        if parts.len() > 1 {
            plan.split += 1;
        }
        plan.items
            .extend(parts.into_iter().map(|(at, minutes)| Item {
                external_task_id: external_id(at, &interval.tags),
                task_label: label(&interval.tags),
                tags: tags.clone(),
                foundation: foundation.clone(),
                minutes,
                occurred_at: at,
            }));
    }
    plan
}
