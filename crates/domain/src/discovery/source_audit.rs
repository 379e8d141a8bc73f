//! What became of the sources an extractor offered, before any other guard: each distinct quote
//! of a field is either found in the person's answers or not, and a quote named twice for the
//! same field is one source offered, counted apart as a repeat. `discovery-eval` reports
//! "verified sources" from this, so the figure measures whether the quotes are the person's
//! words, not what later rules (a dropped goal, the per-field limit) do with them.

use super::{ClaimedSource, ExtractionDraft, ExtractionInput, Step};
use crate::profile::provenance::{SourceOrigin, verify};

/// The sources of one draft, counted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceAudit {
    /// Distinct `(step, quote)` claims, per field, over every field.
    pub offered: usize,
    /// Of those, the ones found in the answers.
    pub found: usize,
    /// Claims that repeat one already offered for the same field.
    pub repeated: usize,
    /// The quotes not found, as `field: quote`, for a reader to see why.
    pub not_found: Vec<String>,
}

impl ExtractionDraft {
    /// Counts the draft's sources against `input`'s answers (see the module's documentation).
    #[must_use]
    pub fn audit_sources(&self, input: &ExtractionInput) -> SourceAudit {
        let texts = input.quotable();
        let mut audit = SourceAudit::default();
        for (field, items) in &self.sources {
            let mut seen: Vec<&ClaimedSource> = Vec::new();
            for item in items {
                if seen.contains(&item) {
                    audit.repeated += 1;
                    continue;
                }
                seen.push(item);
                audit.offered += 1;
                let claimed = item
                    .step
                    .and_then(|n| Step::new(n).ok())
                    .map(SourceOrigin::Step);
                if verify(&item.quote, claimed, &texts).is_some() {
                    audit.found += 1;
                } else {
                    audit.not_found.push(format!("{field}: {}", item.quote));
                }
            }
        }
        audit
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn input(near: Option<&str>) -> ExtractionInput {
        ExtractionInput {
            love: "Restoring old bicycles in my shed.".into(),
            strength: "I stay calm.".into(),
            mission: "Nobody should be alone.".into(),
            vocation: "Night nurse.".into(),
            drives: "I need to be useful.".into(),
            near_term_goal: near.map(Into::into),
            long_term_goal: None,
        }
    }

    fn claim(step: i64, quote: &str) -> ClaimedSource {
        ClaimedSource {
            step: Some(step),
            quote: quote.into(),
        }
    }

    fn draft(sources: &[(&str, Vec<ClaimedSource>)]) -> ExtractionDraft {
        ExtractionDraft {
            enneagram_type: 2,
            triad: None,
            type_sources: Vec::new(),
            love_summary: "You restore old bicycles.".into(),
            strength_summary: "You stay calm.".into(),
            mission_summary: "Nobody should be alone.".into(),
            vocation_summary: "Night nurse.".into(),
            overlap_narrative: "Bicycles and nursing.".into(),
            near_term_goal_summary: None,
            long_term_goal_summary: None,
            sources: sources
                .iter()
                .map(|(f, s)| ((*f).to_owned(), s.clone()))
                .collect::<BTreeMap<_, _>>(),
        }
    }

    #[test]
    fn a_sentence_named_twice_for_a_field_is_one_source_and_a_repeat() {
        let d = draft(&[
            (
                "love_summary",
                vec![
                    claim(1, "Restoring old bicycles in my shed."),
                    claim(1, "Restoring old bicycles in my shed."),
                ],
            ),
            // The same sentence for another field is another source.
            (
                "overlap_narrative",
                vec![claim(1, "Restoring old bicycles in my shed.")],
            ),
        ]);
        let a = d.audit_sources(&input(None));
        assert_eq!((a.offered, a.found, a.repeated), (2, 2, 1));
        assert!(a.not_found.is_empty());
    }

    #[test]
    fn a_quote_is_verified_even_where_a_later_rule_drops_it() {
        // The model kept no goal summary, but the sentence it named is the person's: verified.
        let d = draft(&[(
            "near_term_goal_summary",
            vec![claim(6, "Set up a home-visit rota by autumn.")],
        )]);
        let a = d.audit_sources(&input(Some("Set up a home-visit rota by autumn.")));
        assert_eq!((a.offered, a.found), (1, 1));
        let guarded = d
            .guard(&input(Some("Set up a home-visit rota by autumn.")))
            .unwrap();
        assert_eq!(guarded.sources.count(), 0, "dropped with the goal");
    }

    #[test]
    fn a_quote_not_in_the_answers_is_named() {
        let d = draft(&[(
            "love_summary",
            vec![
                claim(1, "baking bread for my neighbours"),
                claim(1, "old bicycles"),
            ],
        )]);
        let a = d.audit_sources(&input(None));
        assert_eq!((a.offered, a.found, a.repeated), (2, 1, 0));
        assert_eq!(
            a.not_found,
            ["love_summary: baking bread for my neighbours"]
        );
    }
}
