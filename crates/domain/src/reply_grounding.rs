//! The grounding guard over what a coach says to the person (issue 42): a reply whose
//! statements about the person ("you ...", "your ...") rest neither on their turns nor on their
//! profile is not shown as the coach wrote it; the offline coach's reply to the same turn
//! stands in. Questions assert nothing and are left alone. The same rule as the profile's prose
//! (at least half of a sentence's content words, by Snowball stem, are the person's).

use crate::profile::grounding::{Grounding, sentences};
use crate::profile::provenance::Quotable;
use crate::profile::{EditableField, ProseFields};
use crate::reflection::CoachReply;

/// Words that make a sentence a statement about the person.
const ABOUT_YOU: &[&str] = &[
    "you", "your", "you're", "you've", "you'd", "yours", "yourself",
];

/// `reply`, or the stand-in's reply when a statement of `reply` about the person rests on
/// nothing they wrote; and whether it was replaced. `mirror` is asked only then; with none,
/// the reply stands.
#[must_use]
pub fn ground_message(
    reply: CoachReply,
    profile: &ProseFields,
    person_words: &[Quotable<'_>],
    mirror: impl FnOnce() -> Option<CoachReply>,
) -> (CoachReply, bool) {
    let mut material: Vec<&str> = person_words.iter().map(|q| q.text).collect();
    material.extend(
        EditableField::ALL
            .into_iter()
            .filter_map(|f| profile.get(f).map(|p| p.as_str())),
    );
    let rule = Grounding::for_material(&material);
    let unfounded = sentences(reply.message.as_str())
        .into_iter()
        .filter(|s| about_the_person(s))
        .any(|s| !rule.ungrounded(s, &material).is_empty());
    if !unfounded {
        return (reply, false);
    }
    match mirror() {
        Some(stand_in) => (stand_in, true),
        None => (reply, false),
    }
}

/// Whether a sentence states something about the person (it speaks to them and is no question).
fn about_the_person(sentence: &str) -> bool {
    let sentence = sentence.trim();
    if sentence.ends_with('?') {
        return false;
    }
    // "Thank you" says nothing about the person.
    let lower = sentence.to_lowercase().replace("thank you", " ");
    lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .any(|w| ABOUT_YOU.contains(&w.replace('’', "'").as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::ReflectionMessageId;
    use crate::profile::{ProfileEdit, SourceOrigin, Sources};
    use crate::reflection::CoachText;
    use crate::text::Prose;

    fn profile() -> ProseFields {
        ProseFields {
            love_summary: Prose::capped("You love restoring old bicycles in your shed."),
            strength_summary: Prose::capped("You stay calm on the ward."),
            mission_summary: Prose::capped("You want to help old people living alone."),
            vocation_summary: Prose::capped("You are a night nurse."),
            overlap_narrative: Prose::capped("Bicycles come up in what you love."),
            near_term_goal_summary: None,
            long_term_goal_summary: None,
        }
    }

    fn said(text: &str) -> CoachReply {
        CoachReply {
            message: CoachText::capped(text),
            edit: ProfileEdit::default(),
            sources: Sources::default(),
            revision_note: None,
        }
    }

    const TURN: &str = "I fix radios for the neighbours too.";

    fn words(id: ReflectionMessageId) -> [Quotable<'static>; 1] {
        [Quotable {
            origin: SourceOrigin::Reflection(id),
            text: TURN,
        }]
    }

    #[test]
    fn a_reply_that_tells_the_person_what_they_never_wrote_is_replaced() {
        let id = ReflectionMessageId::new();
        let invented = said("So you teach electric cars on the road and have a good heart.");
        let offline = said("You fix radios for the neighbours too. Anything else to correct?");
        let (out, replaced) =
            ground_message(invented, &profile(), &words(id), || Some(offline.clone()));
        assert!(replaced);
        assert_eq!(out, offline);
    }

    #[test]
    fn a_reply_in_the_person_s_words_or_a_question_stands() {
        let id = ReflectionMessageId::new();
        for text in [
            "So you fix radios for the neighbours, and you stay calm on the ward.",
            "What would you put in the part about the ward?",
            "Thank you for writing.",
        ] {
            let (out, replaced) =
                ground_message(said(text), &profile(), &words(id), || panic!("not asked"));
            assert!(!replaced, "{text}");
            assert_eq!(out.message.as_str(), text);
        }
    }
}
