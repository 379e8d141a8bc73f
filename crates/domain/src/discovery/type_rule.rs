//! The honest type (issue 30, point 4): an extractor gives the type with the sentences of the
//! drives answer (step 5) it rests on. The stated rule, in order:
//!
//! 1. No verified step-5 sentence is cited: the choice has no support, and the offline engine's
//!    reading of the answers decides (the model's type stands only when there is no offline
//!    reading at all).
//! 2. The offline engine reads the cited sentences clearly as another type: the offline engine
//!    decides, with that reading.
//! 3. Otherwise (the reading agrees, or is unclear) the extractor's choice stands: a capable model
//!    wins where the offline reading cannot tell.
//!
//! Whenever this changes the type, the revision note says which engine decided and why.

use crate::profile::{EnneagramType, Source};

/// Which engine's type was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeDecider {
    /// The extractor's own choice.
    Extractor,
    /// The offline engine's reading.
    OfflineEngine,
}

/// Why the type is what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeBasis {
    /// The extractor cited the drives answer and no clear offline reading of it disagrees.
    Cited,
    /// The extractor cited no sentence of the drives answer.
    Uncited,
    /// The offline engine read the cited sentences clearly as another type.
    Contradicted,
}

/// The outcome of the rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypeDecision {
    /// What the extractor chose.
    pub proposed: EnneagramType,
    /// What is stored.
    pub decided: EnneagramType,
    pub decided_by: TypeDecider,
    pub basis: TypeBasis,
}

impl TypeDecision {
    /// Applies the rule. `cited` are the verified sentences of step 5 the extractor named;
    /// `read` is the offline engine's clear reading of a text as a drives answer (`None` when it
    /// cannot tell); `offline` its type for the whole answers, asked for only when needed.
    #[must_use]
    pub fn decide(
        proposed: EnneagramType,
        cited: &[Source],
        read: impl FnOnce(&str) -> Option<EnneagramType>,
        offline: impl FnOnce() -> Option<EnneagramType>,
    ) -> Self {
        let keep = |basis| Self {
            proposed,
            decided: proposed,
            decided_by: TypeDecider::Extractor,
            basis,
        };
        let offline_decides = |decided, basis| Self {
            proposed,
            decided,
            decided_by: TypeDecider::OfflineEngine,
            basis,
        };
        if cited.is_empty() {
            return match offline() {
                Some(t) => offline_decides(t, TypeBasis::Uncited),
                None => keep(TypeBasis::Uncited),
            };
        }
        let text: Vec<&str> = cited.iter().map(|s| s.quote.as_str()).collect();
        match read(&text.join(" ")) {
            Some(t) if t != proposed => offline_decides(t, TypeBasis::Contradicted),
            _ => keep(TypeBasis::Cited),
        }
    }

    /// Whether the stored type is not the one the extractor chose.
    #[must_use]
    pub fn changed(&self) -> bool {
        self.decided != self.proposed
    }

    /// The revision note's line when the type changed, `None` otherwise.
    #[must_use]
    pub fn note(&self) -> Option<String> {
        if !self.changed() {
            return None;
        }
        let (model, offline) = (self.proposed.get(), self.decided.get());
        Some(match self.basis {
            TypeBasis::Contradicted => format!(
                "enneagram_type: decided by the offline engine ({offline}): its clear reading of \
                 the drives sentences the model cited disagreed with the model's type ({model})"
            ),
            TypeBasis::Uncited | TypeBasis::Cited => format!(
                "enneagram_type: decided by the offline engine ({offline}): the model's type \
                 ({model}) cited no sentence of your drives answer"
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::Step;
    use crate::profile::SourceOrigin;

    fn t(n: i64) -> EnneagramType {
        EnneagramType::new(n).unwrap()
    }

    fn cited(quote: &str) -> Vec<Source> {
        vec![Source {
            origin: SourceOrigin::Step(Step::new(5).unwrap()),
            quote: quote.into(),
        }]
    }

    /// A stand-in for the offline engine: "withdraw" reads as 5, anything else is unclear.
    fn read(text: &str) -> Option<EnneagramType> {
        text.contains("withdraw").then(|| t(5))
    }

    #[test]
    fn an_uncited_type_is_decided_by_the_offline_engine_and_said_so() {
        let d = TypeDecision::decide(t(9), &[], read, || Some(t(2)));
        assert_eq!(
            (d.decided, d.decided_by, d.basis),
            (t(2), TypeDecider::OfflineEngine, TypeBasis::Uncited)
        );
        let note = d.note().unwrap();
        assert!(
            note.contains("offline engine (2)") && note.contains("(9)"),
            "{note}"
        );
    }

    #[test]
    fn an_uncited_type_the_offline_engine_agrees_with_is_no_change() {
        let d = TypeDecision::decide(t(2), &[], read, || Some(t(2)));
        assert!(!d.changed());
        assert_eq!(d.note(), None);
        let d = TypeDecision::decide(t(2), &[], read, || None);
        assert_eq!((d.decided, d.decided_by), (t(2), TypeDecider::Extractor));
    }

    #[test]
    fn a_clear_reading_of_the_cited_sentence_overrules_another_type() {
        let mut asked = false;
        let d = TypeDecision::decide(t(8), &cited("When stressed I withdraw."), read, || {
            asked = true;
            None
        });
        assert_eq!(
            (d.decided, d.decided_by, d.basis),
            (t(5), TypeDecider::OfflineEngine, TypeBasis::Contradicted)
        );
        assert!(!asked, "the whole answers' reading is not needed");
        assert!(
            d.note()
                .unwrap()
                .contains("disagreed with the model's type (8)")
        );
    }

    #[test]
    fn the_model_wins_where_the_reading_agrees_or_is_unclear() {
        let d = TypeDecision::decide(t(5), &cited("When stressed I withdraw."), read, || None);
        assert_eq!((d.decided, d.basis), (t(5), TypeBasis::Cited));
        let d = TypeDecision::decide(t(4), &cited("It depends on the day."), read, || Some(t(1)));
        assert_eq!(
            (d.decided, d.decided_by, d.basis),
            (t(4), TypeDecider::Extractor, TypeBasis::Cited)
        );
        assert_eq!(d.note(), None);
    }
}
