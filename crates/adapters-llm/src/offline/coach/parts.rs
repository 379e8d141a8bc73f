//! Which part of the profile a person's words are about: by the names people give the parts
//! ("my strengths section", "the money bit"), by what their own clause says ("I'm best at ..."
//! is about what they are good at), or by where the words they quote stand in the profile.

use std::collections::BTreeSet;

use domain::profile::{EditableField, Profile};

use crate::offline::grounding::stem;
use crate::offline::mirror::turn_pronouns;
use crate::offline::text::{content_words, find_phrase, sentences};

use EditableField::{
    LongTermGoalSummary as Long, LoveSummary as Love, MissionSummary as Mission,
    NearTermGoalSummary as Near, OverlapNarrative as Overlap, StrengthSummary as Strength,
    VocationSummary as Vocation,
};

/// The names of the parts, as a person refers to them. Strong names are unambiguous; a weak
/// name ("love", "job") decides only when no strong one occurs.
const STRONG: &[(EditableField, &str)] = &[
    (Love, "what i love"),
    (Love, "what you love"),
    (Love, "love part"),
    (Love, "love bit"),
    (Love, "love section"),
    (Love, "love summary"),
    (Love, "the love"),
    (Love, "passion"),
    (Love, "passions"),
    (Strength, "what i'm good at"),
    (Strength, "what i am good at"),
    (Strength, "what you are good at"),
    (Strength, "what you're good at"),
    (Strength, "what i do best"),
    (Strength, "strength"),
    (Strength, "strengths"),
    (Strength, "strong suit"),
    (Strength, "good at part"),
    (Mission, "what the world needs"),
    (Mission, "the world needs"),
    (Mission, "world needs"),
    (Mission, "mission"),
    (Mission, "purpose"),
    (Mission, "people i care about"),
    (Mission, "who i care about"),
    (Mission, "people i want to help"),
    (Vocation, "what i can be paid for"),
    (Vocation, "what i could be paid for"),
    (Vocation, "what you can be paid for"),
    (Vocation, "what i get paid for"),
    (Vocation, "paid for part"),
    (Vocation, "vocation"),
    (Vocation, "profession"),
    (Vocation, "for a living"),
    (Vocation, "money bit"),
    (Vocation, "money part"),
    (Vocation, "the money"),
    (Vocation, "my job"),
    (Vocation, "my work"),
    (Vocation, "the work part"),
    (Vocation, "work section"),
    (Vocation, "work part"),
    (Vocation, "my career"),
    (Overlap, "overlap"),
    (Overlap, "where it all meets"),
    (Overlap, "where they meet"),
    (Overlap, "ikigai"),
    (Overlap, "narrative"),
    (Near, "near-term goal"),
    (Near, "near term goal"),
    (Near, "near-term"),
    (Near, "near term"),
    (Near, "short-term goal"),
    (Near, "short term goal"),
    (Near, "short-term"),
    (Near, "short term"),
    (Long, "long-term goal"),
    (Long, "long term goal"),
    (Long, "long-term"),
    (Long, "long term"),
];

const WEAK: &[(EditableField, &str)] = &[
    (Love, "love"),
    (Love, "loves"),
    (Love, "enjoy"),
    (Strength, "good at"),
    (Strength, "skill"),
    (Strength, "skills"),
    (Strength, "talent"),
    (Strength, "talents"),
    (Mission, "cause"),
    (Mission, "the world"),
    (Vocation, "job"),
    (Vocation, "work"),
    (Vocation, "career"),
    (Vocation, "paid"),
    (Vocation, "pay"),
    (Vocation, "income"),
    (Vocation, "money"),
];

/// What a first-person clause is about, by its verb ("I love ..." is what you love). The
/// earliest found decides.
const SPOKEN: &[(EditableField, &str)] = &[
    (Love, "i love"),
    (Love, "i'd love"),
    (Love, "i adore"),
    (Love, "i enjoy"),
    (Love, "i prefer"),
    (Love, "i'm passionate about"),
    (Love, "i am passionate about"),
    (Love, "i'm happiest"),
    (Love, "lights me up"),
    (Love, "makes me happy"),
    (Love, "calms me"),
    (Strength, "good at"),
    (Strength, "good with"),
    (Strength, "best at"),
    (Strength, "better at"),
    (Strength, "great at"),
    (Strength, "great with"),
    (Strength, "strong at"),
    (Strength, "skilled at"),
    (Strength, "excel at"),
    (Strength, "at my best"),
    (Strength, "come to me"),
    (Strength, "comes to me"),
    (Strength, "rely on me"),
    (Strength, "never lose my temper"),
    (Vocation, "be paid"),
    (Vocation, "get paid"),
    (Vocation, "pay me"),
    (Vocation, "earn"),
    (Vocation, "for a living"),
    (Vocation, "hire me"),
    (Vocation, "i could teach"),
    (Vocation, "i could work"),
    (Mission, "i care about"),
    (Mission, "matters to me"),
    (Mission, "the world needs"),
    (Mission, "make a difference"),
];

/// The earliest strong name in `text`, else the earliest weak one.
#[must_use]
pub fn named(text: &str) -> Option<EditableField> {
    earliest(text, STRONG).or_else(|| earliest(text, WEAK))
}

/// The distinct parts `text` names strongly, in order of appearance.
#[must_use]
pub fn strongly_named(text: &str) -> Vec<EditableField> {
    let mut found: Vec<(usize, EditableField)> = STRONG
        .iter()
        .filter_map(|(field, name)| find_phrase(text, name, 0).map(|(at, _)| (at, *field)))
        .collect();
    found.sort_by_key(|(at, _)| *at);
    let mut out = Vec::new();
    for (_, field) in found {
        if !out.contains(&field) {
            out.push(field);
        }
    }
    out
}

/// Whether `text` starts with the name of a part, after at most one word ("my strengths", "the
/// work part", "what I love").
#[must_use]
pub fn starts_with_name(text: &str) -> bool {
    STRONG.iter().chain(WEAK).any(|(_, name)| {
        find_phrase(text, name, 0).is_some_and(|(at, _)| text[..at].split_whitespace().count() <= 1)
    })
}

/// The part a clause of the person's speaks of, by its verb ("I'm best at ..." -> what you are
/// good at).
#[must_use]
pub fn spoken(clause: &str) -> Option<EditableField> {
    earliest(clause, SPOKEN)
}

/// The part a person's own words are about: the earliest strong name or telling verb in them
/// ("What I love is ...", "I'm at my best when ...").
#[must_use]
pub fn about(words: &str) -> Option<EditableField> {
    let found = |names: &[(EditableField, &'static str)]| {
        names
            .iter()
            .filter_map(|(field, name)| {
                find_phrase(words, name, 0).map(|(at, end)| (at, std::cmp::Reverse(end), *field))
            })
            .min()
    };
    match (found(STRONG), found(SPOKEN)) {
        (Some(a), Some(b)) => Some(a.min(b).2),
        (a, b) => a.or(b).map(|(.., field)| field),
    }
}

fn earliest(text: &str, names: &[(EditableField, &str)]) -> Option<EditableField> {
    names
        .iter()
        .filter_map(|(field, name)| find_phrase(text, name, 0).map(|(at, end)| (at, end, *field)))
        .min_by_key(|(at, end, _)| (*at, std::cmp::Reverse(*end)))
        .map(|(.., field)| field)
}

/// The parts whose text holds `words` (as written, pronouns turned, or by the stems of its
/// content words), in the order of [`EditableField::ALL`], the overlap narrative last: it
/// repeats the other parts, so it is the candidate only when no other part holds the words.
#[must_use]
pub fn holding(profile: &Profile, words: &str) -> Vec<EditableField> {
    let found: Vec<EditableField> = EditableField::ALL
        .into_iter()
        .filter(|field| {
            profile
                .prose
                .get(*field)
                .is_some_and(|text| locate(text.as_str(), words).is_some())
        })
        .collect();
    let own: Vec<EditableField> = found.iter().copied().filter(|f| *f != Overlap).collect();
    if own.is_empty() { found } else { own }
}

/// Where `words` stand in `text`: the byte range of the phrase itself (as written or with its
/// pronouns turned), else of the first sentence holding all the stems of its content words.
#[must_use]
pub fn locate(text: &str, words: &str) -> Option<Place> {
    let words = words.trim();
    if words.is_empty() {
        return None;
    }
    for needle in [words.to_lowercase(), turn_pronouns(words).to_lowercase()] {
        if let Some(span) = find_phrase(text, &needle, 0) {
            return Some(Place::Phrase(span.0, span.1));
        }
    }
    let wanted = stems(words);
    if wanted.is_empty() {
        return None;
    }
    sentences(text)
        .into_iter()
        .find(|s| wanted.is_subset(&stems(s)))
        .map(|s| {
            let at = s.as_ptr() as usize - text.as_ptr() as usize;
            Place::Sentence(at, at + s.len())
        })
}

/// Where words were found in a part's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The phrase itself, at this byte range.
    Phrase(usize, usize),
    /// Only a sentence holding all its content words, at this byte range.
    Sentence(usize, usize),
}

fn stems(text: &str) -> BTreeSet<String> {
    content_words(text).iter().map(|w| stem(w)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_named_strongly_first_then_weakly() {
        assert_eq!(
            named("I'd add to my mission that I love kids"),
            Some(Mission)
        );
        assert_eq!(named("the money bit is off"), Some(Vocation));
        assert_eq!(named("my strengths section"), Some(Strength));
        assert_eq!(named("my long-term goal"), Some(Long));
        assert_eq!(named("homework and lovely weather"), None);
        assert_eq!(
            strongly_named("from my strengths to my passions"),
            [Strength, Love]
        );
    }

    #[test]
    fn a_clause_speaks_of_the_part_its_verb_names() {
        assert_eq!(spoken("I'm best at teaching"), Some(Strength));
        assert_eq!(spoken("I could be paid to coach"), Some(Vocation));
        assert_eq!(spoken("I love cooking"), Some(Love));
        assert_eq!(spoken("Teaching kids"), None);
    }

    #[test]
    fn words_are_located_as_written_with_pronouns_turned_or_by_their_stems() {
        let text = "You love teaching. Baking bread on Sundays calms you down.";
        assert_eq!(locate(text, "baking bread"), Some(Place::Phrase(19, 31)));
        assert_eq!(locate(text, "my garden"), None);
        assert!(matches!(
            locate(text, "bread baking"),
            Some(Place::Sentence(19, _))
        ));
        assert_eq!(locate(text, "the"), None);
    }
}
