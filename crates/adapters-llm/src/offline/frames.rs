//! The few fixed words that set a person's phrase in a sentence about one part of the profile:
//! "Long walks by the sea" in what you love reads "You love long walks by the sea." A frame adds
//! at most two content words, so a framed phrase stays grounded in the person's words.

use domain::profile::EditableField;

use super::grounding::is_grounded;
use super::mirror::{is_clause, is_first_person, lower_first, mirror, without_fillers};
use super::text::{ends_with_terminator, normalize, without_terminator, words};

/// The frame of a fragment (a phrase without a verb of its own) in each part.
fn fragment_frame(field: EditableField, phrase: &str) -> String {
    let gerund = words(phrase)
        .first()
        .is_some_and(|(_, w)| w.len() > 4 && w.to_lowercase().ends_with("ing"));
    match field {
        EditableField::LoveSummary => format!("You love {phrase}"),
        EditableField::StrengthSummary => format!("You are good at {phrase}"),
        EditableField::MissionSummary => format!("You care about {phrase}"),
        EditableField::VocationSummary if gerund => format!("You could be paid for {phrase}"),
        EditableField::VocationSummary => format!("Your work: {phrase}"),
        EditableField::NearTermGoalSummary | EditableField::LongTermGoalSummary => {
            format!("Your goal: {phrase}")
        }
        EditableField::OverlapNarrative => format!("Where it all meets: {phrase}"),
    }
}

/// The frame of a whole clause that does not speak of the person ("It's the people").
fn clause_frame(field: EditableField, clause: &str) -> String {
    let lead = match field {
        EditableField::LoveSummary => "What you love",
        EditableField::StrengthSummary => "What you are good at",
        EditableField::MissionSummary => "What matters to you",
        EditableField::VocationSummary => "What you could be paid for",
        EditableField::NearTermGoalSummary | EditableField::LongTermGoalSummary => "Your goal",
        EditableField::OverlapNarrative => "Where it all meets",
    };
    format!("{lead}: {clause}")
}

/// One sentence of the person's about `field`, said back in the second person. A sentence that
/// speaks of the person is mirrored ("I love X" -> "You love X"); a fragment is set in the
/// part's frame ("Long walks" -> "You love long walks"); a clause about something else gets the
/// part's name before it. The result keeps the sentence's final punctuation (a full stop when
/// it had none) and is grounded in `sentence`; when a frame would not be, the plain mirror is
/// kept. For English only: the callers check the language of the whole text.
#[must_use]
pub fn reflect_sentence(field: EditableField, sentence: &str) -> String {
    let sentence = sentence.trim();
    let mirrored = mirror(sentence);
    let bare = without_terminator(&mirrored);
    let framed = match shape(without_fillers(sentence)) {
        Shape::Spoken => return with_terminator(&mirrored, sentence),
        Shape::Clause => clause_frame(field, &lower_first(bare)),
        Shape::Fragment => fragment_frame(field, &lower_first(bare)),
    };
    let framed = with_terminator(&framed, sentence);
    if is_grounded(&framed, &[sentence]) {
        framed
    } else {
        with_terminator(&mirrored, sentence)
    }
}

/// How a sentence stands: spoken by the person about themselves ("I love ...", "Neighbours
/// bring me ..."), a clause about something else ("It's the people"), or a bare phrase ("Long
/// walks", "my sister", "Sailing with my brother").
enum Shape {
    Spoken,
    Clause,
    Fragment,
}

/// The subjects that make a sentence the person's own statement.
const SUBJECTS: &[&str] = &["i", "i'm", "i've", "i'd", "i'll"];

fn shape(text: &str) -> Shape {
    let all = words(text);
    let has_subject = all
        .iter()
        .any(|(_, w)| SUBJECTS.contains(&normalize(w).as_str()));
    // "me" stands after a verb ("Neighbours bring me ..."); "my" may sit in a phrase ("Sailing
    // with my brother").
    let as_object = all
        .iter()
        .any(|(_, w)| matches!(normalize(w).as_str(), "me" | "myself"));
    if has_subject {
        Shape::Spoken
    } else if is_clause(text) {
        if is_first_person(text) {
            Shape::Spoken
        } else {
            Shape::Clause
        }
    } else if as_object {
        Shape::Spoken
    } else {
        Shape::Fragment
    }
}

/// `text` ending as `original` ended (its own terminator, or a full stop when it had none).
fn with_terminator(text: &str, original: &str) -> String {
    if ends_with_terminator(text) {
        return text.to_owned();
    }
    let bare = without_terminator(original);
    let tail = original[bare.len()..].trim();
    let tail = if ends_with_terminator(tail) {
        tail
    } else {
        "."
    };
    format!("{}{tail}", without_terminator(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use EditableField::{LoveSummary, MissionSummary, StrengthSummary, VocationSummary};

    #[test]
    fn each_kind_of_sentence_is_said_back_in_the_second_person() {
        assert_eq!(
            reflect_sentence(LoveSummary, "Long walks by the sea."),
            "You love long walks by the sea."
        );
        assert_eq!(
            reflect_sentence(StrengthSummary, "Patience with beginners"),
            "You are good at patience with beginners."
        );
        assert_eq!(
            reflect_sentence(VocationSummary, "Bookkeeping for small bakeries."),
            "You could be paid for bookkeeping for small bakeries."
        );
        assert_eq!(
            reflect_sentence(VocationSummary, "Primary school teacher."),
            "Your work: primary school teacher."
        );
        assert_eq!(
            reflect_sentence(MissionSummary, "Cleaner rivers for the next generation."),
            "You care about cleaner rivers for the next generation."
        );
        assert_eq!(
            reflect_sentence(LoveSummary, "It's the people."),
            "What you love: it's the people."
        );
        assert_eq!(
            reflect_sentence(LoveSummary, "I love explaining physics!"),
            "You love explaining physics!"
        );
        assert_eq!(
            reflect_sentence(LoveSummary, "Sailing small boats with my brother."),
            "You love sailing small boats with your brother."
        );
        assert_eq!(
            reflect_sentence(MissionSummary, "my sister"),
            "You care about your sister."
        );
        assert_eq!(
            reflect_sentence(StrengthSummary, "Neighbours bring me every broken bicycle."),
            "Neighbours bring you every broken bicycle."
        );
    }
}
