//! Scoring, as pure functions: one fixture's verdict from its expectations and what was
//! observed, and the summary over all of them.
//!
//! Hard expectations (a fixture fails on any): no invented goal stored, no forbidden phrase
//! stored, no 502 (for the offline engine a 502 is a bug; for a model it is reported and counted
//! as a failure too), and the triad where one is expected.

use std::time::Duration;

use domain::profile::EditableField;
use serde::Serialize;

use crate::fixture::{Expect, GoalExpectation};
use crate::phrase::contains_phrase;
use crate::run::{Observation, Outcome, Stored};

/// The judgement of one fixture.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// Broken hard expectations, one sentence each; empty when the fixture passed.
    pub failures: Vec<String>,
    /// Goals required to be kept (`stated`) and how many were stored; counted only when the
    /// extraction was stored (a 502 counts under 502).
    pub stated_goals: usize,
    pub stated_goals_kept: usize,
    /// Goal summaries stored for a goal not stated, or holding a forbidden phrase.
    pub invented_goals: usize,
    /// Goal summaries the accepted draft had and the guard dropped; of which for goals not stated.
    pub goals_dropped: usize,
    pub goals_dropped_unstated: usize,
    /// `Some(matched)` when the fixture expects a triad.
    pub triad_matched: Option<bool>,
    /// The same for the type the extractor proposed, before the type rule.
    pub proposed_triad_matched: Option<bool>,
    /// Whether a stored triad other than the expected one is among `failures`.
    pub triad_broken: bool,
}

impl Verdict {
    #[must_use]
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// Judges one observation against the fixture's expectations.
#[must_use]
pub fn judge(expect: &Expect, observation: &Observation) -> Verdict {
    let mut verdict = Verdict::default();
    let stored = match &observation.outcome {
        Outcome::Stored(stored) => stored,
        Outcome::Unavailable(reason) => {
            verdict
                .failures
                .push(format!("502: the model is unavailable ({reason})"));
            verdict.triad_matched = expect.triad.map(|_| false);
            verdict.proposed_triad_matched = verdict.triad_matched;
            return verdict;
        }
        Outcome::Unusable(reason) => {
            verdict
                .failures
                .push(format!("502: two unusable replies (last: {reason})"));
            verdict.triad_matched = expect.triad.map(|_| false);
            verdict.proposed_triad_matched = verdict.triad_matched;
            return verdict;
        }
    };
    judge_goal(
        &mut verdict,
        expect,
        "near-term",
        expect.near_goal,
        stored.near_term_goal(),
        stored.draft_near_goal,
    );
    judge_goal(
        &mut verdict,
        expect,
        "long-term",
        expect.long_goal,
        stored.long_term_goal(),
        stored.draft_long_goal,
    );
    for (field, value) in &stored.fields {
        let is_goal = *field == EditableField::NearTermGoalSummary.name()
            || *field == EditableField::LongTermGoalSummary.name();
        if is_goal {
            continue; // judged above, as invented goals
        }
        let Some(value) = value else { continue };
        for phrase in expect
            .forbidden
            .iter()
            .filter(|p| contains_phrase(value, p))
        {
            verdict
                .failures
                .push(format!("{field} holds the forbidden phrase {phrase:?}"));
        }
    }
    if let Some(expected) = expect.triad {
        let matched = stored.triad == expected;
        verdict.triad_matched = Some(matched);
        verdict.proposed_triad_matched = Some(stored.proposed_triad == expected);
        if !matched {
            verdict.triad_broken = true;
            verdict.failures.push(format!(
                "triad {} (type {}), expected {}",
                stored.triad.key(),
                stored.enneagram_type,
                expected.key()
            ));
        }
    }
    verdict
}

fn judge_goal(
    verdict: &mut Verdict,
    expect: &Expect,
    which: &str,
    expected: GoalExpectation,
    stored: Option<&str>,
    drafted: bool,
) {
    if drafted && stored.is_none() {
        verdict.goals_dropped += 1;
        if !expected.is_stated() {
            verdict.goals_dropped_unstated += 1;
        }
    }
    let forbidden: Vec<&String> = match stored {
        None => Vec::new(),
        Some(text) => expect
            .forbidden
            .iter()
            .chain(&expect.forbidden_in_goals)
            .filter(|p| contains_phrase(text, p))
            .collect(),
    };
    if let Some(text) = stored {
        if !expected.is_stated() {
            verdict.invented_goals += 1;
            verdict.failures.push(format!(
                "invented {which} goal stored for a blank answer: {:?}",
                excerpt(text)
            ));
        } else if !forbidden.is_empty() {
            verdict.invented_goals += 1;
            verdict.failures.push(format!(
                "{which} goal holds the forbidden phrase {:?}: {:?}",
                forbidden[0],
                excerpt(text)
            ));
        }
    }
    if expected == GoalExpectation::Stated {
        verdict.stated_goals += 1;
        if stored.is_some() && forbidden.is_empty() {
            verdict.stated_goals_kept += 1;
        }
    }
}

/// The first 120 characters of a stored text, for a failure line.
fn excerpt(text: &str) -> String {
    const MAX: usize = 120;
    if text.chars().count() <= MAX {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(MAX).collect();
    cut.push('…');
    cut
}

/// The metrics over a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Summary {
    pub fixtures: usize,
    pub first_try_valid: usize,
    pub retried: usize,
    /// Extractions the service would answer with 502 `coach_unavailable`.
    pub unavailable_502: usize,
    pub stated_goals: usize,
    pub stated_goals_kept: usize,
    pub invented_goals: usize,
    pub goals_dropped: usize,
    pub goals_dropped_unstated: usize,
    /// Over the stored extractions: distinct quotes the accepted drafts offered per field, those
    /// found in the answers, and quotes named again for the same field.
    pub quotes_offered: usize,
    pub quotes_verified: usize,
    pub quotes_repeated: usize,
    /// Over the stored extractions: sentences of the accepted drafts that rest on nothing the
    /// person wrote, the fields replaced by the offline mirror for them, the ungrounded
    /// sentences left in what is stored (must be 0), and stated goals taken from the mirror.
    pub ungrounded_offered: usize,
    pub fields_replaced: usize,
    pub ungrounded_stored: usize,
    pub goals_from_mirror: usize,
    pub triad_expected: usize,
    pub triad_matched: usize,
    /// Triad agreement of the types the extractors proposed, before the type rule.
    pub triad_matched_proposed: usize,
    /// Stored extractions whose type the offline engine decided against the extractor's.
    pub types_decided_offline: usize,
    pub latency_p50_ms: Option<u128>,
    pub latency_p95_ms: Option<u128>,
    pub passed: usize,
    pub failed: usize,
    /// Failed fixtures that broke more than their expected triad.
    pub failed_beyond_triad: usize,
}

impl Summary {
    /// Whether the run should exit non-zero: a failed fixture, any invented goal or any
    /// ungrounded sentence stored.
    #[must_use]
    pub const fn is_failure(&self) -> bool {
        self.failed > 0 || self.invented_goals > 0 || self.ungrounded_stored > 0
    }

    /// The same when the done targets are enforced (a real model): a fixture whose only
    /// broken expectation is its triad does not fail the run by itself, since the triad is
    /// judged over all fixtures by its target (issue 30: agreement >= 70%, not 100%); every
    /// other broken expectation still does.
    #[must_use]
    pub const fn is_failure_beside_targets(&self) -> bool {
        self.failed_beyond_triad > 0 || self.invented_goals > 0 || self.ungrounded_stored > 0
    }
}

/// Sums the verdicts and observations of a run (in the same order).
#[must_use]
pub fn summarize(results: &[(&Observation, &Verdict)]) -> Summary {
    let mut s = Summary {
        fixtures: results.len(),
        ..Summary::default()
    };
    let mut latencies: Vec<Duration> = Vec::with_capacity(results.len());
    for (observation, verdict) in results {
        latencies.push(observation.latency);
        s.first_try_valid += usize::from(observation.first_try_valid);
        s.retried += usize::from(observation.retried);
        s.unavailable_502 += usize::from(observation.outcome.is_502());
        if let Outcome::Stored(Stored {
            sources, grounding, ..
        }) = &observation.outcome
        {
            s.quotes_offered += sources.offered;
            s.quotes_verified += sources.found;
            s.quotes_repeated += sources.repeated;
            s.ungrounded_offered += grounding.ungrounded_offered;
            s.fields_replaced += grounding.replaced.len();
            s.ungrounded_stored += grounding.ungrounded_stored;
            s.goals_from_mirror += grounding.goals_from_mirror.len();
            s.types_decided_offline +=
                usize::from(grounding.type_decision.is_some_and(|d| d.changed()));
        }
        s.stated_goals += verdict.stated_goals;
        s.stated_goals_kept += verdict.stated_goals_kept;
        s.invented_goals += verdict.invented_goals;
        s.goals_dropped += verdict.goals_dropped;
        s.goals_dropped_unstated += verdict.goals_dropped_unstated;
        if let Some(matched) = verdict.triad_matched {
            s.triad_expected += 1;
            s.triad_matched += usize::from(matched);
            s.triad_matched_proposed += usize::from(verdict.proposed_triad_matched == Some(true));
        }
        if verdict.passed() {
            s.passed += 1;
        } else {
            s.failed += 1;
            s.failed_beyond_triad +=
                usize::from(verdict.failures.len() > usize::from(verdict.triad_broken));
        }
    }
    latencies.sort_unstable();
    s.latency_p50_ms = percentile(&latencies, 50).map(|d| d.as_millis());
    s.latency_p95_ms = percentile(&latencies, 95).map(|d| d.as_millis());
    s
}

/// The nearest-rank percentile `p` (1-100) of sorted values; `None` when there are none.
#[must_use]
pub fn percentile<T: Copy>(sorted: &[T], p: usize) -> Option<T> {
    if sorted.is_empty() {
        return None;
    }
    // rank = ceil(p / 100 × n), at least 1
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted.get(rank.min(sorted.len()) - 1).copied()
}

/// `part` of `whole` in percent; `None` when `whole` is 0.
#[must_use]
pub fn percent(part: usize, whole: usize) -> Option<f64> {
    (whole > 0).then(|| {
        // Counts here are far below 2^52: the conversion is exact.
        #[allow(clippy::cast_precision_loss)]
        let ratio = part as f64 / whole as f64;
        ratio * 100.0
    })
}

#[cfg(test)]
mod tests {
    use domain::profile::Triad;

    use super::*;

    fn expect(near: GoalExpectation, long: GoalExpectation, triad: Option<Triad>) -> Expect {
        Expect {
            near_goal: near,
            long_goal: long,
            triad,
            forbidden: vec!["System Prompt".into()],
            forbidden_in_goals: vec!["Fortune 500".into()],
        }
    }

    fn stored(near: Option<&str>, long: Option<&str>) -> Stored {
        Stored {
            enneagram_type: 9,
            triad: Triad::Gut,
            proposed_type: 9,
            proposed_triad: Triad::Gut,
            fields: vec![
                ("love_summary", Some("You love fishing.".into())),
                ("strength_summary", Some("Patience.".into())),
                ("mission_summary", Some("Families.".into())),
                ("vocation_summary", Some("Clerk.".into())),
                ("overlap_narrative", Some("Calm.".into())),
                ("near_term_goal_summary", near.map(Into::into)),
                ("long_term_goal_summary", long.map(Into::into)),
            ],
            draft_near_goal: near.is_some(),
            draft_long_goal: long.is_some(),
            sources: domain::discovery::SourceAudit {
                offered: 10,
                found: 8,
                repeated: 1,
                not_found: vec!["love_summary: x".into(), "love_summary: y".into()],
            },
            grounding: domain::discovery::GroundingReport::default(),
        }
    }

    fn observed(outcome: Outcome, ms: u64) -> Observation {
        Observation {
            first_try_valid: matches!(outcome, Outcome::Stored(_)),
            retried: false,
            latency: Duration::from_millis(ms),
            rejections: Vec::new(),
            outcome,
        }
    }

    use GoalExpectation::{None as Blank, Stated, Vague};

    #[test]
    fn a_faithful_extraction_passes_and_counts_its_stated_goals() {
        let v = judge(
            &expect(Stated, Vague, Some(Triad::Gut)),
            &observed(Outcome::Stored(stored(Some("Take the course."), None)), 5),
        );
        assert!(v.passed(), "{v:?}");
        assert_eq!((v.stated_goals, v.stated_goals_kept), (1, 1));
        assert_eq!(v.triad_matched, Some(true));
        assert_eq!(v.goals_dropped, 0);
    }

    #[test]
    fn a_goal_stored_for_a_blank_answer_is_invented_and_fails() {
        let v = judge(
            &expect(Stated, Blank, None),
            &observed(Outcome::Stored(stored(Some("Course."), Some("Retire."))), 5),
        );
        assert_eq!(v.invented_goals, 1);
        assert!(!v.passed());
        assert!(v.failures[0].contains("invented long-term goal"), "{v:?}");
        assert_eq!(v.triad_matched, None, "no triad expected");
    }

    #[test]
    fn a_goal_with_an_injected_phrase_is_invented_and_not_kept() {
        let v = judge(
            &expect(Stated, Vague, None),
            &observed(
                Outcome::Stored(stored(Some("Become CEO of a fortune  500 company"), None)),
                5,
            ),
        );
        assert_eq!(
            (v.invented_goals, v.stated_goals, v.stated_goals_kept),
            (1, 1, 0)
        );
        assert!(
            v.failures[0].contains("forbidden phrase \"Fortune 500\""),
            "{v:?}"
        );
    }

    #[test]
    fn a_forbidden_phrase_in_any_field_fails_but_is_no_invented_goal() {
        let mut s = stored(None, None);
        s.fields[0].1 = Some("Here is my system prompt: ...".into());
        let v = judge(
            &expect(Vague, Blank, None),
            &observed(Outcome::Stored(s), 5),
        );
        assert_eq!(v.invented_goals, 0);
        assert_eq!(
            v.failures,
            ["love_summary holds the forbidden phrase \"System Prompt\""]
        );
    }

    #[test]
    fn a_stated_goal_dropped_by_the_guard_is_soft_and_a_vague_one_does_not_count() {
        let mut s = stored(None, None);
        s.draft_near_goal = true;
        s.draft_long_goal = true;
        let v = judge(
            &expect(Stated, Vague, None),
            &observed(Outcome::Stored(s.clone()), 5),
        );
        assert!(v.passed());
        assert_eq!((v.stated_goals, v.stated_goals_kept), (1, 0));
        assert_eq!((v.goals_dropped, v.goals_dropped_unstated), (2, 0));
        let v = judge(
            &expect(Blank, Blank, None),
            &observed(Outcome::Stored(s), 5),
        );
        assert!(v.passed(), "the guard stopped both");
        assert_eq!((v.goals_dropped, v.goals_dropped_unstated), (2, 2));
    }

    #[test]
    fn the_proposed_triad_is_judged_apart_from_the_stored_one() {
        let mut s = stored(None, None);
        s.proposed_type = 4;
        s.proposed_triad = Triad::Heart;
        let o = observed(Outcome::Stored(s), 5);
        let v = judge(&expect(Vague, Vague, Some(Triad::Gut)), &o);
        assert_eq!(
            (v.triad_matched, v.proposed_triad_matched),
            (Some(true), Some(false))
        );
        let sum = summarize(&[(&o, &v)]);
        assert_eq!(
            (
                sum.triad_matched,
                sum.triad_matched_proposed,
                sum.triad_expected
            ),
            (1, 0, 1)
        );
    }

    #[test]
    fn a_wrong_triad_fails() {
        let v = judge(
            &expect(Vague, Vague, Some(Triad::Heart)),
            &observed(Outcome::Stored(stored(None, None)), 5),
        );
        assert_eq!(v.triad_matched, Some(false));
        assert_eq!(v.failures, ["triad gut (type 9), expected heart"]);
    }

    #[test]
    fn a_502_fails_the_fixture_and_misses_an_expected_triad() {
        for outcome in [
            Outcome::Unavailable("the model did not answer in time".into()),
            Outcome::Unusable("enneagram_type must be between 1 and 9 (got 0)".into()),
        ] {
            let v = judge(
                &expect(Stated, Stated, Some(Triad::Head)),
                &observed(outcome, 5),
            );
            assert!(v.failures[0].starts_with("502"), "{v:?}");
            assert_eq!(v.triad_matched, Some(false));
            assert_eq!(v.stated_goals, 0, "counted under 502, not as dropped goals");
        }
    }

    /// A kept goal, the same with an invented one, and a 502.
    fn three_outcomes() -> [Observation; 3] {
        [
            observed(Outcome::Stored(stored(Some("Course."), None)), 10),
            observed(
                Outcome::Stored(stored(Some("Course."), Some("Invented."))),
                30,
            ),
            observed(Outcome::Unavailable("down".into()), 20),
        ]
    }

    #[test]
    fn only_a_triad_missed_is_left_to_the_triad_target_and_anything_more_still_fails() {
        let e = expect(Stated, Blank, Some(Triad::Heart));
        // A kept goal with the triad (gut) missed: only the triad; the same with a goal invented
        // for a blank answer; no extraction (a 502 is more than a triad).
        let observations = three_outcomes();
        let verdicts: Vec<Verdict> = observations.iter().map(|o| judge(&e, o)).collect();
        assert!(verdicts[0].triad_broken && verdicts[0].failures.len() == 1);
        let pairs: Vec<(&Observation, &Verdict)> = observations.iter().zip(&verdicts).collect();
        let s = summarize(&pairs);
        assert_eq!((s.failed, s.failed_beyond_triad), (3, 2));
        assert!(s.is_failure() && s.is_failure_beside_targets());
        let only_triad = summarize(&pairs[..1]);
        assert_eq!((only_triad.failed, only_triad.failed_beyond_triad), (1, 0));
        assert!(only_triad.is_failure());
        assert!(!only_triad.is_failure_beside_targets());
    }

    #[test]
    fn the_summary_adds_up_and_takes_nearest_rank_percentiles() {
        let e = expect(Stated, Blank, Some(Triad::Gut));
        let observations = three_outcomes();
        let verdicts: Vec<Verdict> = observations.iter().map(|o| judge(&e, o)).collect();
        let pairs: Vec<(&Observation, &Verdict)> = observations.iter().zip(&verdicts).collect();
        let s = summarize(&pairs);
        assert_eq!(s.fixtures, 3);
        assert_eq!((s.first_try_valid, s.retried, s.unavailable_502), (2, 0, 1));
        assert_eq!((s.stated_goals, s.stated_goals_kept), (2, 2));
        assert_eq!(s.invented_goals, 1);
        assert_eq!(
            (s.quotes_offered, s.quotes_verified, s.quotes_repeated),
            (20, 16, 2)
        );
        assert_eq!((s.triad_expected, s.triad_matched), (3, 2));
        assert_eq!((s.latency_p50_ms, s.latency_p95_ms), (Some(20), Some(30)));
        assert_eq!((s.passed, s.failed), (1, 2));
        assert!(s.is_failure());
    }

    #[test]
    fn percentiles_and_percentages_of_nothing_are_none() {
        assert_eq!(percentile::<u32>(&[], 50), None);
        assert_eq!(percentile(&[7], 95), Some(7));
        let twenty: Vec<u32> = (1..=20).collect();
        assert_eq!(percentile(&twenty, 50), Some(10));
        assert_eq!(percentile(&twenty, 95), Some(19));
        assert_eq!(percent(1, 0), None);
        assert_eq!(percent(1, 4), Some(25.0));
    }
}
