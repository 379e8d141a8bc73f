//! Check-ins: the due rule, and the composition of a check-in that quotes the person's goals
//! verbatim, asks whether the direction still holds and observes (never judges) where time went.

use serde::{Deserialize, Serialize};
use time::{Date, Duration, OffsetDateTime};

use super::{CoachingFrequency, CoachingStyle};
use crate::account::TimeZone;
use crate::ids::{CheckInId, UserId};
use crate::integration::{COVERAGE_NOTED_BELOW, DailyMinutes, Window, WorkPattern, rollup};
use crate::profile::Profile;
use crate::text::Note;

/// Who asked for the check-in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckInOrigin {
    /// The person asked for one (`POST /coaching/checkins`).
    Manual,
    /// The scheduled run created it.
    Batch,
}

impl CheckInOrigin {
    pub const ALL: [Self; 2] = [Self::Manual, Self::Batch];

    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            Self::Manual => "manual",
            Self::Batch => "batch",
        }
    }
}

/// The person's answer to a check-in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckInResponse {
    pub responded_at: OffsetDateTime,
    pub still_valid: bool,
    pub note: Option<Note>,
}

/// A check-in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckIn {
    pub id: CheckInId,
    pub user_id: UserId,
    pub message: String,
    pub quoted_goals: Vec<String>,
    pub observation: Option<String>,
    pub origin: CheckInOrigin,
    pub created_at: OffsetDateTime,
    pub response: Option<CheckInResponse>,
}

/// A second response to the same check-in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("this check-in already has a response")]
pub struct AlreadyResponded;

impl CheckIn {
    /// Records the person's response, once.
    ///
    /// # Errors
    /// [`AlreadyResponded`] when a response exists.
    pub fn respond(
        &mut self,
        still_valid: bool,
        note: Option<Note>,
        now: OffsetDateTime,
    ) -> Result<(), AlreadyResponded> {
        if self.response.is_some() {
            return Err(AlreadyResponded);
        }
        self.response = Some(CheckInResponse {
            responded_at: now,
            still_valid,
            note,
        });
        Ok(())
    }

    /// Whether the answer invites the person to revisit their profile: they said the direction
    /// no longer holds (`still_valid: false`). Unanswered, or still valid: no.
    #[must_use]
    pub fn revisit(&self) -> bool {
        self.response.as_ref().is_some_and(|r| !r.still_valid)
    }
}

/// Whether a check-in is due: the profile is affirmed and no check-in exists within the cadence,
/// i.e. the latest one is at least a full cadence old.
#[must_use]
pub fn is_due(
    profile_locked: bool,
    frequency: CoachingFrequency,
    last_checkin_at: Option<OffsetDateTime>,
    now: OffsetDateTime,
) -> bool {
    profile_locked && last_checkin_at.is_none_or(|last| now - last >= frequency.cadence())
}

/// How many days of logged time a check-in looks back on.
pub const OBSERVATION_DAYS: u16 = 14;

/// What a check-in observes: the person's last [`OBSERVATION_DAYS`] calendar days in their time
/// zone, today included, from the first day's local midnight up to now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObservedDays {
    /// The first of those days (a local date).
    pub first: Date,
    /// The rollup's window: it starts at `first`'s local midnight, so its dates are exactly the
    /// observed days.
    pub window: Window,
    /// What storage sums: a day earlier than `window`, because a window excludes its start and
    /// an entry at the very midnight belongs to the first day. The rollup drops the sums dated
    /// before `first`.
    pub query: Window,
}

impl ObservedDays {
    #[must_use]
    pub fn ending_at(now: OffsetDateTime, zone: &TimeZone) -> Self {
        let first = zone.date_of(now) - Duration::days(i64::from(OBSERVATION_DAYS) - 1);
        let from = zone.start_of(first);
        Self {
            first,
            window: Window {
                days: OBSERVATION_DAYS,
                from,
                to: now,
            },
            query: Window {
                days: OBSERVATION_DAYS + 1,
                from: from - Duration::days(1),
                to: now,
            },
        }
    }

    /// The rollup of the observed days from storage's per-date sums of `query`.
    #[must_use]
    pub fn pattern(&self, zone: &TimeZone, daily: &[DailyMinutes]) -> WorkPattern {
        rollup(self.window, zone, daily)
    }
}

/// Writes a check-in for `profile`. `recent` is the work pattern of the last
/// [`OBSERVATION_DAYS`] days; it adds an observation only when time was logged, and the
/// observation says how much of that time has a foundation when that is below
/// [`COVERAGE_NOTED_BELOW`].
#[must_use]
pub fn compose_checkin(
    profile: &Profile,
    style: CoachingStyle,
    recent: Option<&WorkPattern>,
    origin: CheckInOrigin,
    now: OffsetDateTime,
) -> CheckIn {
    let goals: Vec<String> = [
        &profile.prose.near_term_goal_summary,
        &profile.prose.long_term_goal_summary,
    ]
    .into_iter()
    .flatten()
    .map(|g| g.as_str().to_owned())
    .filter(|g| !g.trim().is_empty())
    .collect();
    let (quoted_goals, lead) = if goals.is_empty() {
        let mission = profile.prose.mission_summary.as_str().to_owned();
        (
            vec![mission],
            "Your affirmed profile names no goal, so here is its mission, as it reads there:",
        )
    } else if goals.len() == 1 {
        (
            goals,
            "Here is the goal your affirmed profile names, as it reads there:",
        )
    } else {
        (
            goals,
            "Here are the goals your affirmed profile names, as they read there:",
        )
    };
    let (opening, question) = match style {
        CoachingStyle::Direct => (
            "Time for your check-in.",
            "Does this direction still hold for you?",
        ),
        CoachingStyle::Warm => (
            "It's good to check in with you again.",
            "Whatever the answer, it is yours to give: does this still feel like your direction?",
        ),
        CoachingStyle::Reflective => (
            "Let's pause for a moment and look back at what you wrote.",
            "Reading it again now, does the direction still feel valid to you?",
        ),
    };
    let quotes: Vec<String> = quoted_goals.iter().map(|g| format!("“{g}”")).collect();
    let message = format!("{opening} {lead}\n\n{}\n\n{question}", quotes.join("\n"));
    let observation = recent
        .filter(|p| p.total_minutes + p.unmapped_minutes > 0)
        .map(observe);
    CheckIn {
        id: CheckInId::new(),
        user_id: profile.user_id,
        message,
        quoted_goals,
        observation,
        origin,
        created_at: now,
        response: None,
    }
}

/// The pattern's summary, and, when much of the time has no foundation, how much has: shares
/// over a small part of the time would otherwise read as the whole picture.
fn observe(pattern: &WorkPattern) -> String {
    if pattern.coverage >= COVERAGE_NOTED_BELOW {
        return pattern.summary.clone();
    }
    // Rounded down, so 79.6% never reads as the 80% that needs no note.
    let percent = (pattern.coverage * 100.0).floor();
    format!(
        "{} {percent:.0}% of the logged time is classified so far, so these shares describe only \
         that part of it.",
        pattern.summary
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coaching::vocabulary::find_verdict;
    use crate::discovery::Extraction;
    use crate::foundation::Foundation;
    use crate::integration::{DailyMinutes, FoundationMinutes, Window, rollup};
    use crate::profile::{EnneagramType, ProseFields, Sources};
    use crate::text::Prose;
    use time::Duration;
    use time::macros::datetime;

    const NOW: OffsetDateTime = datetime!(2026-11-22 10:00 UTC);

    fn profile(near: Option<&str>, long: Option<&str>) -> Profile {
        let p = |s: &str| Prose::new(s).unwrap();
        Profile::extracted(
            UserId::new(),
            Extraction {
                enneagram_type: EnneagramType::new(3).unwrap(),
                prose: ProseFields {
                    love_summary: p("Making music with friends."),
                    strength_summary: p("Organising people."),
                    mission_summary: p("Helping kids find their voice."),
                    vocation_summary: p("Music teacher."),
                    overlap_narrative: p("Teaching music joins it all."),
                    near_term_goal_summary: near.map(p),
                    long_term_goal_summary: long.map(p),
                },
                sources: Sources::default(),
            },
            NOW,
        )
        .profile
    }

    fn pattern(minutes: [i64; 6]) -> WorkPattern {
        pattern_with_unmapped(minutes, 0)
    }

    fn pattern_with_unmapped(minutes: [i64; 6], unmapped: i64) -> WorkPattern {
        let window = Window::ending_at(NOW, 14).unwrap();
        rollup(
            window,
            &crate::account::TimeZone::utc(),
            &[DailyMinutes {
                date: NOW.date(),
                minutes: FoundationMinutes::from(minutes),
                unmapped,
            }],
        )
    }

    #[test]
    fn the_goals_are_quoted_verbatim() {
        let near = "Record an album with my students — 🎶 by June";
        let c = compose_checkin(
            &profile(Some(near), Some("Open a music school")),
            CoachingStyle::Warm,
            None,
            CheckInOrigin::Manual,
            NOW,
        );
        assert_eq!(c.quoted_goals, [near, "Open a music school"]);
        assert!(c.message.contains(near));
        assert!(c.message.contains("Open a music school"));
    }

    #[test]
    fn without_a_stated_goal_the_mission_is_quoted() {
        let c = compose_checkin(
            &profile(None, None),
            CoachingStyle::Direct,
            None,
            CheckInOrigin::Batch,
            NOW,
        );
        assert_eq!(c.quoted_goals, ["Helping kids find their voice."]);
        assert_eq!(c.origin, CheckInOrigin::Batch);
    }

    #[test]
    fn every_check_in_asks_whether_the_direction_still_holds() {
        for style in CoachingStyle::ALL {
            let c = compose_checkin(
                &profile(Some("Run a 10k"), None),
                *style,
                None,
                CheckInOrigin::Manual,
                NOW,
            );
            assert!(
                c.message.trim_end().ends_with('?'),
                "{style:?}: {}",
                c.message
            );
        }
    }

    #[test]
    fn the_observed_days_are_the_persons_calendar_days() {
        let berlin = crate::account::TimeZone::parse("Europe/Berlin").unwrap();
        // 00:30 on 4 November in Berlin (CET); the days reach back across the end of summer
        // time on 25 October, to the local midnight of 22 October (CEST, UTC+2).
        let days = ObservedDays::ending_at(datetime!(2026-11-03 23:30 UTC), &berlin);
        assert_eq!(days.first, time::macros::date!(2026 - 10 - 22));
        assert_eq!(days.window.from, datetime!(2026-10-21 22:00 UTC));
        assert_eq!(days.window.dates(&berlin).count(), 14);
        assert_eq!(days.window.dates(&berlin).next(), Some(days.first));
        // Storage is asked from before that midnight, so an entry at it counts.
        assert!(days.query.from < days.window.from && days.query.to == days.window.to);
        // The same instant in UTC: the days of 21 October to 3 November.
        let utc = ObservedDays::ending_at(datetime!(2026-11-03 23:30 UTC), &Default::default());
        assert_eq!(utc.first, time::macros::date!(2026 - 10 - 21));
    }

    #[test]
    fn an_observation_appears_only_when_time_was_logged() {
        let p = profile(Some("Run a 10k"), None);
        let none = compose_checkin(
            &p,
            CoachingStyle::Direct,
            Some(&pattern([0; 6])),
            CheckInOrigin::Manual,
            NOW,
        );
        assert_eq!(none.observation, None);
        let some = compose_checkin(
            &p,
            CoachingStyle::Direct,
            Some(&pattern([0, 0, 0, 600, 30, 0])),
            CheckInOrigin::Manual,
            NOW,
        );
        let text = some.observation.unwrap();
        assert!(text.contains(Foundation::Vocation.title()), "{text}");
    }

    #[test]
    fn the_observation_mentions_coverage_only_below_eighty_percent() {
        let p = profile(Some("Run a 10k"), None);
        let observe = |minutes, unmapped| {
            compose_checkin(
                &p,
                CoachingStyle::Warm,
                Some(&pattern_with_unmapped(minutes, unmapped)),
                CheckInOrigin::Batch,
                NOW,
            )
            .observation
            .unwrap()
        };
        // 80 of 100 minutes mapped: exactly the bar, no note.
        let at_bar = observe([80, 0, 0, 0, 0, 0], 20);
        assert!(!at_bar.contains("is classified so far"), "{at_bar}");
        // 796 of 1,000: 79.6% is written 79%, never 80%.
        let below = observe([796, 0, 0, 0, 0, 0], 204);
        assert!(
            below.ends_with(
                "79% of the logged time is classified so far, so these shares describe only that part of it."
            ),
            "{below}"
        );
        // Nothing mapped yet: still an observation, of the unmapped time.
        let none_mapped = observe([0; 6], 90);
        assert!(none_mapped.contains("you logged 1 h 30 min, none of it classified yet."));
        assert!(
            none_mapped.contains(" 0% of the logged time"),
            "{none_mapped}"
        );
        for text in [at_bar, below, none_mapped] {
            assert_eq!(find_verdict(&text), None, "{text}");
        }
    }

    #[test]
    fn check_in_texts_never_contain_a_verdict_word() {
        let shapes = [
            [0; 6],
            [600, 0, 0, 0, 0, 0],
            [1, 2, 3, 400, 5, 0],
            [0, 0, 0, 0, 0, 1440],
            [100; 6],
        ];
        for style in CoachingStyle::ALL {
            for goals in [
                (None, None),
                (Some("Run a 10k"), None),
                (Some("Run a 10k"), Some("Coach a team")),
            ] {
                for (minutes, unmapped) in shapes.into_iter().zip([0, 10, 900, 0, 5_000]) {
                    let c = compose_checkin(
                        &profile(goals.0, goals.1),
                        *style,
                        Some(&pattern_with_unmapped(minutes, unmapped)),
                        CheckInOrigin::Batch,
                        NOW,
                    );
                    assert_eq!(find_verdict(&c.message), None, "{}", c.message);
                    if let Some(o) = &c.observation {
                        assert_eq!(find_verdict(o), None, "{o}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_due_rule_holds_at_the_cadence_boundaries() {
        let second = Duration::seconds(1);
        for (frequency, days) in [
            (CoachingFrequency::Weekly, 7),
            (CoachingFrequency::Biweekly, 14),
            (CoachingFrequency::Monthly, 30),
        ] {
            let cadence = Duration::days(days);
            assert!(
                is_due(true, frequency, None, NOW),
                "{frequency:?}: never checked in"
            );
            assert!(
                !is_due(true, frequency, Some(NOW - cadence + second), NOW),
                "{frequency:?}: just inside"
            );
            assert!(
                is_due(true, frequency, Some(NOW - cadence), NOW),
                "{frequency:?}: exactly one cadence"
            );
            assert!(
                is_due(true, frequency, Some(NOW - cadence - second), NOW),
                "{frequency:?}: past"
            );
            assert!(
                !is_due(false, frequency, None, NOW),
                "{frequency:?}: unlocked profile"
            );
        }
    }

    #[test]
    fn a_check_in_takes_one_response() {
        let mut c = compose_checkin(
            &profile(Some("g"), None),
            CoachingStyle::Warm,
            None,
            CheckInOrigin::Manual,
            NOW,
        );
        c.respond(true, None, NOW).unwrap();
        assert_eq!(c.respond(false, None, NOW), Err(AlreadyResponded));
        assert!(c.response.unwrap().still_valid);
    }

    #[test]
    fn only_a_direction_that_no_longer_holds_invites_a_revisit() {
        let fresh = || {
            compose_checkin(
                &profile(Some("g"), None),
                CoachingStyle::Direct,
                None,
                CheckInOrigin::Batch,
                NOW,
            )
        };
        assert!(!fresh().revisit(), "unanswered");
        let mut still = fresh();
        still.respond(true, None, NOW).unwrap();
        assert!(!still.revisit());
        let mut changed = fresh();
        changed.respond(false, None, NOW).unwrap();
        assert!(changed.revisit());
    }
}
