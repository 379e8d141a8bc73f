//! Re-classification (docs/api.md, "Mapping rules and unmapped time"): a rule change commits at once
//! and queues a job that decides the person's existing entries again, in short steps, in the
//! background. Here: which entries a queued job covers (its [`Scope`]), how far it is
//! ([`Reclassification`]), and what one step reports ([`ReclassifyStep`]).

use crate::integration::rules::RuleMatch;

/// Which of the person's unmapped and rule-mapped entries a queued job decides again: those a
/// changed rule matched before or matches now (no other entry's first match can have moved), or
/// every one of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    Every,
    Matching(Vec<RuleMatch>),
}

impl Scope {
    /// The most conditions a job keeps; past them it decides every candidate, which is
    /// cheaper than testing that many conditions on each entry.
    pub const MAX_CONDITIONS: usize = 64;

    /// The scope of the rules changed by one change: the old and the new condition.
    #[must_use]
    pub fn of_change(before: Option<&RuleMatch>, after: Option<&RuleMatch>) -> Self {
        Self::Matching(Vec::new()).widened(before.into_iter().chain(after).cloned())
    }

    /// This scope and `more` together, as a job that restarts after another change covers
    /// both: the union, each condition once.
    #[must_use]
    pub fn widened(self, more: impl IntoIterator<Item = RuleMatch>) -> Self {
        let Self::Matching(mut conditions) = self else {
            return Self::Every;
        };
        for condition in more {
            if !conditions
                .iter()
                .any(|c| c.kind() == condition.kind() && c.folded() == condition.folded())
            {
                conditions.push(condition);
            }
        }
        if conditions.len() > Self::MAX_CONDITIONS {
            Self::Every
        } else {
            Self::Matching(conditions)
        }
    }
}

/// How far the person's re-classification is (`GET /integration/reclassification`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Reclassification {
    /// A job is queued or running.
    pub running: bool,
    /// Entries decided again so far by the running job.
    pub done: u64,
    /// Entries the running job covers; 0 until it has counted them (and when idle).
    pub total: u64,
}

/// What one step of a job did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReclassifyStep {
    /// Nothing is queued for the person (any more).
    Finished,
    /// More remains; `decided` entries were decided again in this step (0 when a rule change
    /// restarted the job meanwhile and the step's work was set aside).
    More { decided: u64 },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::integration::rules::{MatchKind, Pattern};

    fn condition(kind: MatchKind, text: &str) -> RuleMatch {
        RuleMatch::new(kind, Pattern::non_blank(text).unwrap())
    }

    #[test]
    fn a_change_covers_its_old_and_new_condition_once() {
        let old = condition(MatchKind::LabelContains, "Review");
        let new = condition(MatchKind::LabelContains, "REVIEW");
        assert_eq!(
            Scope::of_change(Some(&old), Some(&new)),
            Scope::Matching(vec![old.clone()]),
            "the same condition folded is one"
        );
        let tag = condition(MatchKind::Tag, "review");
        assert_eq!(
            Scope::of_change(Some(&old), Some(&tag)),
            Scope::Matching(vec![old.clone(), tag.clone()])
        );
        assert_eq!(
            Scope::of_change(None, Some(&tag)),
            Scope::Matching(vec![tag])
        );
        assert_eq!(Scope::Every.widened([old]), Scope::Every);
    }

    #[test]
    fn too_many_conditions_become_every_candidate() {
        let many = (0..=Scope::MAX_CONDITIONS)
            .map(|n| condition(MatchKind::LabelEquals, &format!("label {n}")));
        assert_eq!(Scope::Matching(Vec::new()).widened(many), Scope::Every);
        let few = (0..Scope::MAX_CONDITIONS)
            .map(|n| condition(MatchKind::LabelEquals, &format!("label {n}")));
        assert!(matches!(
            Scope::Matching(Vec::new()).widened(few),
            Scope::Matching(c) if c.len() == Scope::MAX_CONDITIONS
        ));
    }
}
