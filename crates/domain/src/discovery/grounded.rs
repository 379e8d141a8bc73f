//! The grounding guard over an extraction (docs/api.md, "Provenance"): after the draft's guards, every
//! field whose text has a sentence that rests on nothing the person wrote is replaced by the
//! offline engine's mirror of that field, with its sources; a goal the person stated but the
//! draft did not keep is taken from the mirror too. What was replaced is reported, for the
//! revision note and for `discovery-eval`.

use super::type_rule::TypeDecision;
use super::{Extraction, ExtractionDraft, ExtractionInput, ExtractionRejected, Step};
use crate::profile::grounding::Grounding;
use crate::profile::{EditableField, EnneagramType, ProfileEdit, states_no_goal};

/// What the grounding guard found and did in one extraction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroundingReport {
    /// Sentences of the guarded draft that rest on nothing the person wrote.
    pub ungrounded_offered: usize,
    /// Fields whose text had such a sentence and now holds the mirror's.
    pub replaced: Vec<EditableField>,
    /// Goals the person stated that the draft did not keep, taken from the mirror.
    pub goals_from_mirror: Vec<EditableField>,
    /// Ungrounded sentences in what is stored (0 unless no mirror could stand in).
    pub ungrounded_stored: usize,
    /// How the type was decided (the type rule); `None` only in a report built by hand.
    pub type_decision: Option<TypeDecision>,
}

impl GroundingReport {
    /// One line for the revision note, or `None` when the engine's text was stored as written.
    #[must_use]
    pub fn note(&self) -> Option<String> {
        let names = |fields: &[EditableField]| {
            fields
                .iter()
                .map(|f| f.name())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut parts = Vec::new();
        if !self.replaced.is_empty() {
            parts.push(format!(
                "{}: the model's text did not rest on your words; the offline engine's mirror of \
                 your answer was stored instead",
                names(&self.replaced)
            ));
        }
        if !self.goals_from_mirror.is_empty() {
            parts.push(format!(
                "{}: the model kept no goal you stated; your goal is quoted from your answer",
                names(&self.goals_from_mirror)
            ));
        }
        if let Some(line) = self.type_decision.and_then(|d| d.note()) {
            parts.push(line);
        }
        (!parts.is_empty()).then(|| format!("{}.", parts.join("; ")))
    }
}

/// The offline mirror, asked for at most once and only when needed, guarded.
struct Mirror<'i, F> {
    ask: Option<F>,
    input: &'i ExtractionInput,
    guarded: Option<Extraction>,
}

impl<F: FnOnce() -> Option<ExtractionDraft>> Mirror<'_, F> {
    fn get(&mut self) -> Option<&Extraction> {
        if let Some(ask) = self.ask.take() {
            self.guarded = ask().and_then(|m| m.guard(self.input).ok());
        }
        self.guarded.as_ref()
    }
}

/// A guarded extraction whose every field rests on the person's words, and how it got there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grounded {
    pub extraction: Extraction,
    pub report: GroundingReport,
}

/// The texts a field may draw on: its own answer (every answer for the overlap narrative) and
/// the quotes it rests on.
fn material<'a>(
    field: EditableField,
    input: &'a ExtractionInput,
    extraction: &'a Extraction,
) -> Vec<&'a str> {
    let step = |n: i64| Step::new(n).ok().and_then(|s| input.answer(s));
    let own: Vec<&str> = match field {
        EditableField::LoveSummary => step(1).into_iter().collect(),
        EditableField::StrengthSummary => step(2).into_iter().collect(),
        EditableField::MissionSummary => step(3).into_iter().collect(),
        EditableField::VocationSummary => step(4).into_iter().collect(),
        EditableField::OverlapNarrative => (1..=7).filter_map(step).collect(),
        EditableField::NearTermGoalSummary => step(6).into_iter().collect(),
        EditableField::LongTermGoalSummary => step(7).into_iter().collect(),
    };
    own.into_iter()
        .chain(
            extraction
                .sources
                .get(field)
                .iter()
                .map(|s| s.quote.as_str()),
        )
        .collect()
}

/// The goal's step, for a goal field.
fn goal_step(field: EditableField) -> Option<Step> {
    match field {
        EditableField::NearTermGoalSummary => Step::new(6).ok(),
        EditableField::LongTermGoalSummary => Step::new(7).ok(),
        _ => None,
    }
}

/// Records in `report` every field of `extraction` with a sentence resting on nothing the person
/// wrote (how many such sentences, and the field as one to replace); returns the first such
/// field and sentence, for the retry's feedback.
fn mark_ungrounded(
    rule: &Grounding,
    input: &ExtractionInput,
    extraction: &Extraction,
    report: &mut GroundingReport,
) -> Option<(EditableField, String)> {
    let mut first_ungrounded = None;
    for field in EditableField::ALL {
        let Some(text) = extraction.prose.get(field) else {
            continue;
        };
        let bad = rule.ungrounded(text.as_str(), &material(field, input, extraction));
        if let Some(sentence) = bad.first() {
            first_ungrounded.get_or_insert_with(|| (field, (*sentence).to_owned()));
            report.ungrounded_offered += bad.len();
            report.replaced.push(field);
        }
    }
    first_ungrounded
}

/// The goals the person stated (an answer that is not blank and does not say there is no goal)
/// that `extraction` did not keep.
fn unkept_goals(input: &ExtractionInput, extraction: &Extraction) -> Vec<EditableField> {
    [
        EditableField::NearTermGoalSummary,
        EditableField::LongTermGoalSummary,
    ]
    .into_iter()
    .filter(|field| {
        let stated = goal_step(*field)
            .and_then(|s| input.answer(s))
            .is_some_and(|a| !a.trim().is_empty() && !states_no_goal(a));
        stated && extraction.prose.get(*field).is_none()
    })
    .collect()
}

/// `fields` of `extraction` take the mirror's text and sources.
fn take_from_mirror(extraction: &mut Extraction, mirror: &Extraction, fields: &[EditableField]) {
    let changes: Vec<_> = fields
        .iter()
        .map(|f| (*f, mirror.prose.get(*f).cloned()))
        .collect();
    if let Ok(edit) = ProfileEdit::new(changes) {
        extraction.prose = extraction.prose.with(&edit);
    }
    for field in fields {
        extraction
            .sources
            .set(*field, mirror.sources.get(*field).to_vec());
    }
}

/// How many sentences of `extraction`'s fields rest on nothing the person wrote.
fn count_ungrounded(rule: &Grounding, input: &ExtractionInput, extraction: &Extraction) -> usize {
    EditableField::ALL
        .into_iter()
        .filter_map(|f| {
            let text = extraction.prose.get(f)?;
            Some(
                rule.ungrounded(text.as_str(), &material(f, input, extraction))
                    .len(),
            )
        })
        .sum()
}

impl ExtractionDraft {
    /// [`ExtractionDraft::guard`], then the grounding guard: a field with an ungrounded sentence
    /// takes the text and sources of `mirror`'s field (the offline engine's reading of the same
    /// answers, asked for only when needed), and so does a goal the person stated that the draft
    /// did not keep. Without a mirror an ungrounded draft is refused, so the one retry can tell
    /// the model which sentence was not the person's. The type is then decided by the type rule
    /// ([`TypeDecision`]), with `read`, the offline engine's clear reading of drives sentences.
    ///
    /// # Errors
    /// [`ExtractionRejected`] from the guards, or `Ungrounded` without a mirror.
    pub fn guard_grounded(
        self,
        input: &ExtractionInput,
        mirror: impl FnOnce() -> Option<Self>,
        read: impl FnOnce(&str) -> Option<EnneagramType>,
    ) -> Result<Grounded, ExtractionRejected> {
        let cited = self.verified_type_sources(input);
        let mut extraction = self.guard(input)?;
        let mut mirror = Mirror {
            ask: Some(mirror),
            input,
            guarded: None,
        };
        let decision = TypeDecision::decide(extraction.enneagram_type, &cited, read, || {
            mirror.get().map(|m| m.enneagram_type)
        });
        extraction.enneagram_type = decision.decided;
        let all: Vec<&str> = input.quotable().iter().map(|q| q.text).collect();
        let rule = Grounding::for_material(&all);
        let mut report = GroundingReport {
            type_decision: Some(decision),
            goals_from_mirror: unkept_goals(input, &extraction),
            ..GroundingReport::default()
        };
        let first_ungrounded = mark_ungrounded(&rule, input, &extraction, &mut report);
        if report.replaced.is_empty() && report.goals_from_mirror.is_empty() {
            return Ok(Grounded { extraction, report });
        }
        let Some(mirror) = mirror.get() else {
            if let Some((field, sentence)) = first_ungrounded {
                return Err(ExtractionRejected::Ungrounded { field, sentence });
            }
            report.goals_from_mirror.clear();
            return Ok(Grounded { extraction, report });
        };
        // A goal the mirror cannot keep either (one word, no three-word quote) stays null.
        report
            .goals_from_mirror
            .retain(|f| mirror.prose.get(*f).is_some());
        let taken: Vec<EditableField> = report
            .replaced
            .iter()
            .chain(&report.goals_from_mirror)
            .copied()
            .collect();
        take_from_mirror(&mut extraction, mirror, &taken);
        report.ungrounded_stored = count_ungrounded(&rule, input, &extraction);
        Ok(Grounded { extraction, report })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::discovery::ClaimedSource;
    use crate::discovery::type_rule::TypeBasis;

    /// A nurse who restores old bicycles in her shed, and wants a home-visit rota.
    fn nurse() -> ExtractionInput {
        ExtractionInput {
            love: "Restoring old bicycles in my shed. Neighbours bring me every broken frame.".into(),
            strength: "I stay calm on the ward at three in the morning.".into(),
            mission: "Old people living alone need someone to check on them.".into(),
            vocation: "I am a night nurse on a geriatric ward.".into(),
            drives: "I need to feel useful to others. Under pressure I take care of everyone else first.".into(),
            near_term_goal: Some("Set up a volunteer home-visit rota with the parish by next autumn.".into()),
            long_term_goal: None,
        }
    }

    fn claim(step: i64, quote: &str) -> ClaimedSource {
        ClaimedSource {
            step: Some(step),
            quote: quote.into(),
        }
    }

    /// What SmolLM2 wrote for her (main bfc33c1), with sources that do not verify.
    fn invented() -> ExtractionDraft {
        ExtractionDraft {
            enneagram_type: 8,
            triad: None,
            type_sources: Vec::new(),
            love_summary: "You love baking bread for your neighbours.".into(),
            strength_summary: "you are good at overcoming obstacles and taking risks.".into(),
            mission_summary: "You care about old people living alone.".into(),
            vocation_summary: "You are a night nurse on a geriatric ward.".into(),
            overlap_narrative:
                "You deserve to be happy. But happiness can't exist without hard work.".into(),
            near_term_goal_summary: Some("You want to run a marathon.".into()),
            long_term_goal_summary: None,
            sources: BTreeMap::from([(
                "love_summary".to_owned(),
                vec![claim(1, "baking bread for my neighbours")],
            )]),
        }
    }

    /// A stand-in for the offline engine's mirror: her own sentences said back, with sources.
    fn mirror() -> ExtractionDraft {
        ExtractionDraft {
            enneagram_type: 2,
            triad: None,
            type_sources: vec![claim(5, "I need to feel useful to others.")],
            love_summary: "You love restoring old bicycles in your shed.".into(),
            strength_summary: "You stay calm on the ward at three in the morning.".into(),
            mission_summary: "You care about old people living alone.".into(),
            vocation_summary: "You are a night nurse on a geriatric ward.".into(),
            overlap_narrative: "All in all: you love restoring old bicycles.".into(),
            near_term_goal_summary: Some(
                "Set up a volunteer home-visit rota with the parish by next autumn.".into(),
            ),
            long_term_goal_summary: None,
            sources: BTreeMap::from([
                (
                    "love_summary".to_owned(),
                    vec![claim(1, "Restoring old bicycles in my shed.")],
                ),
                (
                    "near_term_goal_summary".to_owned(),
                    vec![claim(6, "Set up a volunteer home-visit rota")],
                ),
            ]),
        }
    }

    #[test]
    fn invented_sentences_are_replaced_by_the_mirror_and_said_so() {
        let g = invented()
            .guard_grounded(&nurse(), || Some(mirror()), |_| None)
            .unwrap();
        let prose = &g.extraction.prose;
        assert_eq!(
            prose.love_summary.as_str(),
            "You love restoring old bicycles in your shed."
        );
        assert_eq!(
            prose.strength_summary.as_str(),
            "You stay calm on the ward at three in the morning."
        );
        assert_eq!(
            prose.overlap_narrative.as_str(),
            "All in all: you love restoring old bicycles."
        );
        // The model's grounded sentences stay as it wrote them.
        assert_eq!(
            prose.mission_summary.as_str(),
            "You care about old people living alone."
        );
        assert_eq!(
            g.report.replaced,
            [
                EditableField::LoveSummary,
                EditableField::StrengthSummary,
                EditableField::OverlapNarrative,
            ]
        );
        // The model's goal rested on no verified quote: the guard dropped it, the mirror's stands.
        assert_eq!(
            g.report.goals_from_mirror,
            [EditableField::NearTermGoalSummary]
        );
        assert_eq!(g.report.ungrounded_offered, 4);
        assert_eq!(g.report.ungrounded_stored, 0);
        assert_eq!(
            g.extraction.sources.get(EditableField::LoveSummary)[0].quote,
            "Restoring old bicycles in my shed."
        );
        let note = g.report.note().unwrap();
        assert!(
            note.contains("love_summary") && note.contains("mirror"),
            "{note}"
        );
        // Her type was given with no drives sentence: the offline engine's reading decided.
        assert_eq!(g.extraction.enneagram_type.get(), 2);
        assert!(
            note.contains("enneagram_type: decided by the offline engine (2)"),
            "{note}"
        );
    }

    #[test]
    fn her_words_turned_around_are_replaced_by_the_mirror() {
        // Issue 43: a model that inverts meaning while reusing her words.
        const GOAL: &str = "Open the weekend repair café in the church hall by next spring.";
        let mut input = nurse();
        input.near_term_goal = Some(GOAL.into());
        let with_goal = |draft: &mut ExtractionDraft, goal: &str| {
            draft.near_term_goal_summary = Some(goal.into());
            draft.sources.insert(
                "near_term_goal_summary".to_owned(),
                vec![claim(6, "Open the weekend repair café")],
            );
        };
        let mut own = mirror();
        with_goal(&mut own, GOAL);
        let mut turned = mirror();
        turned.love_summary =
            "You do not love restoring old bicycles in your shed. You hate it.".into();
        with_goal(
            &mut turned,
            "Close the weekend repair café in the church hall by next spring.",
        );

        let g = turned
            .guard_grounded(&input, || Some(own.clone()), |_| None)
            .unwrap();
        assert_eq!(
            g.extraction.prose.love_summary.as_str(),
            "You love restoring old bicycles in your shed."
        );
        assert_eq!(
            g.extraction.prose.near_term_goal_summary.unwrap().as_str(),
            GOAL
        );
        assert_eq!(
            g.report.replaced,
            [
                EditableField::LoveSummary,
                EditableField::NearTermGoalSummary
            ]
        );
        assert_eq!(g.report.ungrounded_stored, 0);
    }

    #[test]
    fn a_clear_reading_of_the_cited_drives_sentence_decides_the_type() {
        let mut draft = mirror();
        draft.enneagram_type = 8;
        let read = |text: &str| {
            assert_eq!(text, "I need to feel useful to others.");
            EnneagramType::new(2).ok()
        };
        let g = draft.guard_grounded(&nurse(), || None, read).unwrap();
        assert_eq!(g.extraction.enneagram_type.get(), 2);
        let d = g.report.type_decision.unwrap();
        assert_eq!((d.proposed.get(), d.basis), (8, TypeBasis::Contradicted));
        assert!(
            g.report
                .note()
                .unwrap()
                .contains("disagreed with the model's type (8)")
        );
        // A sentence that is not in her drives answer is no citation.
        let mut draft = mirror();
        draft.enneagram_type = 8;
        draft.type_sources = vec![claim(5, "I love taking charge.")];
        let g = draft
            .guard_grounded(&nurse(), || Some(mirror()), |_| None)
            .unwrap();
        assert_eq!(
            g.report.type_decision.map(|d| (d.basis, d.decided.get())),
            Some((TypeBasis::Uncited, 2))
        );
    }

    #[test]
    fn a_stated_goal_the_model_dropped_is_taken_from_the_mirror() {
        let mut draft = mirror();
        draft.near_term_goal_summary = None;
        draft.sources.remove("near_term_goal_summary");
        let g = draft
            .guard_grounded(&nurse(), || Some(mirror()), |_| None)
            .unwrap();
        assert_eq!(
            g.extraction.prose.near_term_goal_summary.unwrap().as_str(),
            "Set up a volunteer home-visit rota with the parish by next autumn."
        );
        assert_eq!(
            g.report.goals_from_mirror,
            [EditableField::NearTermGoalSummary]
        );
        assert!(g.report.replaced.is_empty());
        assert!(g.report.note().unwrap().contains("quoted from your answer"));
    }

    #[test]
    fn a_goal_answer_that_states_no_goal_stays_null() {
        let mut input = nurse();
        input.near_term_goal = Some("Not sure yet, honestly.".into());
        let mut draft = mirror();
        draft.near_term_goal_summary = None;
        let mut called = false;
        let g = draft
            .guard_grounded(
                &input,
                || {
                    called = true;
                    Some(mirror())
                },
                |_| None,
            )
            .unwrap();
        assert_eq!(g.extraction.prose.near_term_goal_summary, None);
        assert!(!called, "nothing to replace: the mirror is not asked for");
        assert!(g.report.replaced.is_empty() && g.report.goals_from_mirror.is_empty());
        assert_eq!(
            g.report.type_decision.map(|d| d.basis),
            Some(TypeBasis::Cited),
            "the type rests on a cited drives sentence"
        );
        assert_eq!(g.report.note(), None);
    }

    #[test]
    fn without_a_mirror_an_ungrounded_draft_is_refused_naming_the_sentence() {
        let err = invented()
            .guard_grounded(&nurse(), || None, |_| None)
            .unwrap_err();
        assert_eq!(
            err,
            ExtractionRejected::Ungrounded {
                field: EditableField::LoveSummary,
                sentence: "You love baking bread for your neighbours.".into(),
            }
        );
        assert!(err.to_string().contains("baking bread"), "{err}");
    }
}
