//! Offline extraction: the answers become an [`ExtractionDraft`] (type and triad from the
//! lexicon, prose mirrored from the answers), which the engine returns as JSON text for the domain to
//! parse and guard like any model's reply.

use std::collections::BTreeMap;

use domain::discovery::{ClaimedSource, ExtractionDraft, ExtractionInput};
use domain::profile::provenance::QUOTE_MAX_CHARS;
use domain::profile::{EditableField, EnneagramType};

use super::lexicon::{TypeDecision, decide};
use super::mirrors::{goal, ikigai, overlap};
use super::summaries::{key_phrase, pick_sentences};
use super::text::{ELLIPSIS, verbatim_prefix};

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
        triad: Some(enneagram_type.triad().key().to_owned()),
        type_sources: Vec::new(),
        love_summary: ikigai(EditableField::LoveSummary, &input.love),
        strength_summary: ikigai(EditableField::StrengthSummary, &input.strength),
        mission_summary: ikigai(EditableField::MissionSummary, &input.mission),
        vocation_summary: ikigai(EditableField::VocationSummary, &input.vocation),
        overlap_narrative: overlap([
            input.love.as_str(),
            input.strength.as_str(),
            input.mission.as_str(),
            input.vocation.as_str(),
        ]),
        near_term_goal_summary: goal(input.near_term_goal.as_deref()),
        long_term_goal_summary: goal(input.long_term_goal.as_deref()),
        sources: sources(input),
    };
    Ok((draft, decision))
}

/// The spans each field really quotes, with their steps: the sentences a summary picked (of one
/// answer, or of a goal's own answer) and the key phrases the overlap narrative quotes. A goal
/// quoted in fewer than three words will not pass the domain's guard: the engine says what it
/// used, and the guard decides.
fn sources(input: &ExtractionInput) -> BTreeMap<String, Vec<ClaimedSource>> {
    let claim = |step: i64, quote: String| ClaimedSource {
        step: Some(step),
        quote,
    };
    let picked = |step: i64, answer: &str| -> Vec<ClaimedSource> {
        pick_sentences(answer)
            .into_iter()
            .map(|s| claim(step, quote_of(s)))
            .collect()
    };
    let answers = [
        ("love_summary", 1, input.love.as_str()),
        ("strength_summary", 2, input.strength.as_str()),
        ("mission_summary", 3, input.mission.as_str()),
        ("vocation_summary", 4, input.vocation.as_str()),
        (
            "near_term_goal_summary",
            6,
            input.near_term_goal.as_deref().unwrap_or(""),
        ),
        (
            "long_term_goal_summary",
            7,
            input.long_term_goal.as_deref().unwrap_or(""),
        ),
    ];
    let mut sources: BTreeMap<String, Vec<ClaimedSource>> = answers
        .iter()
        .map(|(field, step, answer)| ((*field).to_owned(), picked(*step, answer)))
        .filter(|(_, quotes)| !quotes.is_empty())
        .collect();
    let phrases: Vec<ClaimedSource> = (1..)
        .zip(&answers[..4])
        .filter_map(|(step, (_, _, answer))| {
            let phrase = key_phrase(answer)?;
            Some(claim(step, quote_of(phrase.trim_end_matches(ELLIPSIS))))
        })
        .collect();
    if !phrases.is_empty() {
        sources.insert("overlap_narrative".to_owned(), phrases);
    }
    sources
}

/// A quote of at most [`QUOTE_MAX_CHARS`]: a verbatim start of `text`.
fn quote_of(text: &str) -> String {
    verbatim_prefix(text, QUOTE_MAX_CHARS)
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
        assert_eq!((d.enneagram_type, d.triad.as_deref()), (9, Some("gut")));
        assert_eq!(d.near_term_goal_summary, None);
        assert_eq!(
            d.long_term_goal_summary.as_deref(),
            Some("Your goal: a studio of your own.")
        );
    }

    #[test]
    fn every_field_names_the_spans_it_quotes_and_they_pass_the_guard() {
        let input = ExtractionInput {
            love: "Restoring old bicycles. My daughter helps on Sundays.".into(),
            strength: "Patience, and I explain things simply.".into(),
            mission: "Fewer bikes in landfill.".into(),
            vocation: format!("Mechanic. {}", "very long words ".repeat(40)),
            drives: "Doing things right.".into(),
            near_term_goal: Some("Run the volunteer repair rota at the library.".into()),
            long_term_goal: Some("Marathon.".into()),
        };
        let (d, _) = draft(&input).unwrap();
        assert_eq!(d.sources["love_summary"].len(), 2);
        assert_eq!(d.sources["overlap_narrative"].len(), 4);
        assert!(
            d.sources
                .values()
                .flatten()
                .all(|s| s.quote.chars().count() <= QUOTE_MAX_CHARS)
        );
        let offered = d.quotes_offered();
        let e = d.guard(&input).unwrap();
        assert_eq!(
            e.sources.count(),
            offered - 1,
            "all but the one-word goal's quote"
        );
        assert!(e.prose.near_term_goal_summary.is_some());
        assert_eq!(
            e.prose.long_term_goal_summary, None,
            "one word: no 3-word source"
        );
    }
}
