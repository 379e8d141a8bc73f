//! Applying one correction to the text of its part: only the part it is about changes, and the
//! new words are the person's own, said back in the second person. A restatement replaces the
//! part's core sentence (or the one it compares against), a swap replaces the old words where
//! they stand, an addition appends a sentence, a removal drops the clause or sentence that holds
//! the words, and a goal becomes the stated goal.

use domain::profile::EditableField;
use domain::text::Prose;

use super::cues::Edit;
use super::parts::{Place, locate, named};
use crate::offline::frames::reflect_sentence;
use crate::offline::mirror::turn_pronouns;
use crate::offline::text::{
    capitalize_first, content_words, cut, find_phrase, join_sentences, sentences, words,
};

/// What a correction does to its part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Revised {
    /// The part's new text.
    Text(String),
    /// The correction would leave the part empty: the coach asks instead (or, for a goal, says
    /// how to empty it).
    WouldEmpty,
    /// The correction changes nothing.
    Unchanged,
}

/// Words before removed words that only link them to the sentence ("on the night shift").
const LINKS: &[&str] = &[
    "on", "in", "at", "with", "for", "during", "about", "of", "from", "to",
];
const DETERMINERS: &[&str] = &["the", "a", "an", "your", "my", "their", "our"];
/// Separators of a list, longest first.
const LIST_SEPARATORS: &[&str] = &[", and ", ", or ", " and ", " or ", "; ", ", "];
/// Frame words that say nothing of the person: a sentence left with only these is dropped.
const FRAME_WORDS: &[&str] = &["love", "good", "care", "paid", "work", "goal", "matters"];

/// The new text of `field` (now `current`) after `edit`.
#[must_use]
pub fn apply(field: EditableField, current: Option<&str>, edit: &Edit) -> Revised {
    let current = current.map(str::trim).filter(|c| !c.is_empty());
    let said_back = |words: &str| {
        if field.is_nullable() {
            reflect_sentence(field, &goal_clause(words))
        } else {
            reflect_sentence(field, words)
        }
    };
    let text = match (edit, current) {
        (Edit::Goal(said), _) => said_back(said),
        (Edit::Restate { said, .. } | Edit::Swap { new: said, .. }, None) => said_back(said),
        (Edit::Add(added), None) => said_back(added),
        (Edit::Remove(_), None) => return Revised::Unchanged,
        (Edit::Restate { said, anchor }, Some(current)) => {
            let at = anchor
                .as_deref()
                .and_then(|a| sentence_holding(current, a))
                .unwrap_or(0);
            replace_sentence(current, at, &said_back(said))
        }
        (Edit::Swap { old, new }, Some(current)) => match swap(current, old, new) {
            Some(swapped) => swapped,
            None => {
                let at = sentence_holding(current, old).unwrap_or(0);
                replace_sentence(current, at, &said_back(new))
            }
        },
        (Edit::Add(added), Some(current)) => {
            let addition = cut(&said_back(added), Prose::MAX);
            let room = Prose::MAX.saturating_sub(addition.chars().count() + 1);
            join_sentences(&[cut(current, room.max(1)), addition])
        }
        (Edit::Remove(what), Some(current)) => {
            if names_the_whole_part(field, what) {
                return Revised::WouldEmpty;
            }
            match remove(current, what) {
                Some(left) if left.trim().is_empty() => return Revised::WouldEmpty,
                Some(left) => left,
                None => return Revised::Unchanged,
            }
        }
    };
    let text = cut(text.trim(), Prose::MAX);
    if Some(text.as_str()) == current {
        Revised::Unchanged
    } else {
        Revised::Text(text)
    }
}

/// "my goal is to X" -> "I want to X": a goal is what the person wants.
fn goal_clause(said: &str) -> String {
    for head in [
        "my near-term goal is",
        "my long-term goal is",
        "my short-term goal is",
        "my near term goal is",
        "my long term goal is",
        "my goal is",
        "the goal is",
    ] {
        if let Some((0, end)) = find_phrase(said, head, 0) {
            let rest = said[end..].trim_start();
            let rest = rest.strip_prefix("actually ").unwrap_or(rest);
            return format!("I want {rest}");
        }
    }
    said.to_owned()
}

/// Whether `what` is the part itself ("my strengths", "what I love"), not words in it.
fn names_the_whole_part(field: EditableField, what: &str) -> bool {
    named(what) == Some(field) && words(what).len() <= 4
}

/// The index of the sentence of `text` that holds `words`.
fn sentence_holding(text: &str, words: &str) -> Option<usize> {
    let (at, _) = match locate(text, words)? {
        Place::Phrase(a, b) | Place::Sentence(a, b) => (a, b),
    };
    let mut offset = 0;
    sentences(text).iter().position(|s| {
        let start = s.as_ptr() as usize - text.as_ptr() as usize;
        offset = start + s.len();
        at < offset
    })
}

pub(super) fn replace_sentence(text: &str, index: usize, new: &str) -> String {
    let mut all: Vec<String> = sentences(text).into_iter().map(str::to_owned).collect();
    match all.get_mut(index) {
        Some(slot) => *slot = new.to_owned(),
        None => all.push(new.to_owned()),
    }
    join_sentences(&all)
}

/// `old` replaced by `new` (pronouns turned) where `text` holds it; when it holds only the
/// start of `old` ("colleagues" of "colleagues who come to me"), that start is replaced.
fn swap(text: &str, old: &str, new: &str) -> Option<String> {
    let new = turn_pronouns(new);
    let all: Vec<(usize, &str)> = words(old);
    for keep in (1..=all.len()).rev() {
        let end = all[keep - 1].0 + all[keep - 1].1.len();
        let head = &old[..end];
        if content_words(head).is_empty() {
            continue;
        }
        for needle in [head.to_lowercase(), turn_pronouns(head).to_lowercase()] {
            if let Some((at, end)) = find_phrase(text, &needle, 0) {
                let capital = text[at..].chars().next().is_some_and(char::is_uppercase);
                let new = if capital {
                    capitalize_first(&new)
                } else {
                    new.clone()
                };
                return Some(format!("{}{new}{}", &text[..at], &text[end..]));
            }
        }
    }
    None
}

/// `text` without the clause or sentence that holds `what`; `None` when it does not hold it.
fn remove(text: &str, what: &str) -> Option<String> {
    let place = locate(text, what)?;
    let (at, end) = match place {
        Place::Phrase(a, b) | Place::Sentence(a, b) => (a, b),
    };
    let all = sentences(text);
    let index = all.iter().position(|s| {
        let start = s.as_ptr() as usize - text.as_ptr() as usize;
        at >= start && at < start + s.len()
    })?;
    let sentence = all[index];
    let start = sentence.as_ptr() as usize - text.as_ptr() as usize;
    let kept = match place {
        Place::Phrase(..) => without_clause(sentence, at - start, end - start),
        Place::Sentence(..) => None,
    };
    let mut left: Vec<String> = all.iter().map(|s| (*s).to_owned()).collect();
    match kept {
        Some(kept) if says_something(&kept) => left[index] = capitalize_first(&kept),
        _ => {
            left.remove(index);
        }
    }
    Some(join_sentences(&left))
}

/// The sentence without the words at `at..end` when they are an item of a list or a phrase
/// linked to the end of the sentence ("... on the night shift."); `None` when the words carry
/// the whole sentence.
pub(super) fn without_clause(sentence: &str, at: usize, end: usize) -> Option<String> {
    let before = &sentence[..at];
    let after = &sentence[end..];
    for sep in LIST_SEPARATORS {
        if before.to_lowercase().ends_with(sep) {
            return Some(format!("{}{after}", &before[..before.len() - sep.len()]));
        }
    }
    for sep in LIST_SEPARATORS {
        if after.to_lowercase().starts_with(sep) && !before.trim().is_empty() {
            return Some(format!("{before}{}", &after[sep.len()..]));
        }
    }
    // "... nurses on the night shift.": the link and its determiner go with the words.
    let ends_sentence = after
        .trim_start()
        .chars()
        .next()
        .is_none_or(|c| matches!(c, '.' | '!' | '?' | ',' | ';' | '…'));
    let mut preceding = words(before);
    if preceding
        .last()
        .is_some_and(|(_, w)| DETERMINERS.contains(&w.to_lowercase().as_str()))
    {
        preceding.pop();
    }
    match preceding.last() {
        Some((w_at, w)) if ends_sentence && LINKS.contains(&w.to_lowercase().as_str()) => {
            Some(format!("{}{after}", sentence[..*w_at].trim_end()))
        }
        _ => None,
    }
}

/// Whether a sentence still says something of the person beyond a frame.
pub(super) fn says_something(sentence: &str) -> bool {
    content_words(sentence)
        .iter()
        .any(|w| !FRAME_WORDS.contains(&w.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use EditableField::{LongTermGoalSummary, LoveSummary, StrengthSummary, VocationSummary};

    const LOVE: &str = "You love teaching new nurses on the night shift. Baking bread on Sundays \
                        calms you down.";

    fn text(revised: Revised) -> String {
        match revised {
            Revised::Text(t) => t,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_restatement_replaces_the_core_and_keeps_the_rest() {
        let edit = Edit::Restate {
            said: "what I love most is the sea".into(),
            anchor: None,
        };
        assert_eq!(
            text(apply(LoveSummary, Some(LOVE), &edit)),
            "You love the sea most. Baking bread on Sundays calms you down."
        );
        let edit = Edit::Restate {
            said: "I love cakes more than bread".into(),
            anchor: Some("bread".into()),
        };
        assert_eq!(
            text(apply(LoveSummary, Some(LOVE), &edit)),
            "You love teaching new nurses on the night shift. You love cakes more than bread."
        );
    }

    #[test]
    fn a_swap_replaces_the_old_words_where_they_stand() {
        let edit = Edit::Swap {
            old: "baking bread".into(),
            new: "making pizza with my niece".into(),
        };
        assert_eq!(
            text(apply(LoveSummary, Some(LOVE), &edit)),
            "You love teaching new nurses on the night shift. Making pizza with your niece on \
             Sundays calms you down."
        );
    }

    #[test]
    fn an_addition_appends_a_sentence_in_the_second_person() {
        let edit = Edit::Add("I'm good with spreadsheets".into());
        assert_eq!(
            text(apply(StrengthSummary, Some("You are calm."), &edit)),
            "You are calm. You're good with spreadsheets."
        );
    }

    #[test]
    fn a_removal_drops_the_clause_or_sentence_and_never_empties_a_part() {
        let edit = Edit::Remove("the night shift".into());
        assert_eq!(
            text(apply(LoveSummary, Some(LOVE), &edit)),
            "You love teaching new nurses. Baking bread on Sundays calms you down."
        );
        let work = "Your work: ward nursing and training staff. You could be paid for running \
                    first-aid courses.";
        assert_eq!(
            text(apply(
                VocationSummary,
                Some(work),
                &Edit::Remove("training staff".into())
            )),
            "Your work: ward nursing. You could be paid for running first-aid courses."
        );
        assert_eq!(
            text(apply(
                VocationSummary,
                Some(work),
                &Edit::Remove("first-aid courses".into())
            )),
            "Your work: ward nursing and training staff."
        );
        assert_eq!(
            apply(
                StrengthSummary,
                Some("You are calm."),
                &Edit::Remove("calm".into())
            ),
            Revised::WouldEmpty
        );
        assert_eq!(
            apply(
                StrengthSummary,
                Some("You are calm."),
                &Edit::Remove("my strengths".into())
            ),
            Revised::WouldEmpty
        );
        assert_eq!(
            apply(LoveSummary, Some(LOVE), &Edit::Remove("golf".into())),
            Revised::Unchanged
        );
    }

    #[test]
    fn a_goal_becomes_what_the_person_wants() {
        assert_eq!(
            text(apply(
                LongTermGoalSummary,
                Some("Open a school."),
                &Edit::Goal("my long-term goal is to write a book".into())
            )),
            "You want to write a book."
        );
    }
}
