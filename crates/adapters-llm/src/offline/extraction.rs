//! Offline extraction: the answers become an [`ExtractionDraft`] (type and triad from the
//! lexicon, prose from the summaries), which the engine returns as JSON text for the domain to
//! parse and guard like any model's reply.

use std::collections::BTreeMap;

use domain::discovery::{ExtractionDraft, ExtractionInput};
use domain::profile::EnneagramType;

use super::lexicon::{TypeDecision, decide};
use super::summaries::{goal_summary, overlap, summary};

/// The draft for `input` and the scoring behind its type.
///
/// # Errors
/// Never in practice: the lexicon only yields types 1 to 9. Returned rather than unwrapped, so a
/// broken lexicon is a failed request, not a crash.
pub fn draft(
    input: &ExtractionInput,
) -> Result<(ExtractionDraft, TypeDecision), domain::profile::enneagram::InvalidEnneagramType> {
    let decision = decide(input);
    let enneagram_type = EnneagramType::new(i64::from(decision.chosen))?;
    let draft = ExtractionDraft {
        enneagram_type: i64::from(enneagram_type.get()),
        triad: enneagram_type.triad().key().to_owned(),
        love_summary: summary(&input.love),
        strength_summary: summary(&input.strength),
        mission_summary: summary(&input.mission),
        vocation_summary: summary(&input.vocation),
        overlap_narrative: overlap(input),
        near_term_goal_summary: goal_summary(input.near_term_goal.as_deref()),
        long_term_goal_summary: goal_summary(input.long_term_goal.as_deref()),
        sources: sources(input),
    };
    Ok((draft, decision))
}

/// The steps each summary quotes: one answer each, the overlap all four, a goal its own answer.
fn sources(input: &ExtractionInput) -> BTreeMap<String, Vec<i64>> {
    let mut sources: BTreeMap<String, Vec<i64>> = [
        ("love_summary", vec![1]),
        ("strength_summary", vec![2]),
        ("mission_summary", vec![3]),
        ("vocation_summary", vec![4]),
        ("overlap_narrative", vec![1, 2, 3, 4]),
    ]
    .into_iter()
    .map(|(field, steps)| (field.to_owned(), steps))
    .collect();
    if input.near_term_goal.is_some() {
        sources.insert("near_term_goal_summary".to_owned(), vec![6]);
    }
    if input.long_term_goal.is_some() {
        sources.insert("long_term_goal_summary".to_owned(), vec![7]);
    }
    sources
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_triad_follows_the_chosen_type() {
        let input = ExtractionInput {
            love: "Music.".into(),
            strength: "Listening.".into(),
            mission: "Quiet streets.".into(),
            vocation: "Sound engineer.".into(),
            drives: "Harmony and peace; under pressure I go along with others.".into(),
            near_term_goal: None,
            long_term_goal: Some("A studio of my own.".into()),
        };
        let (d, decision) = draft(&input).unwrap();
        assert_eq!(decision.chosen, 9);
        assert_eq!((d.enneagram_type, d.triad.as_str()), (9, "gut"));
        assert_eq!(d.near_term_goal_summary, None);
        assert_eq!(
            d.long_term_goal_summary.as_deref(),
            Some("A studio of my own.")
        );
    }
}
