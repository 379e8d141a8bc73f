//! Where words a person points at already stand in their profile: the parts whose text holds
//! them (by rough stem, a compound's tail included: "bikes" stands in "motorbikes"), and the
//! sentence of a part that shares the most with them.

use std::collections::BTreeSet;

use domain::profile::{EditableField, Profile, SourceOrigin};

use crate::offline::grounding::stem;
use crate::offline::text::{content_words, sentences, words};

/// The stems of the content words of `text`.
#[must_use]
pub fn stems(text: &str) -> BTreeSet<String> {
    content_words(text).iter().map(|w| stem(w)).collect()
}

/// How many of `wanted` a piece of text holds (a stem of four letters or more also counts when
/// a word of the text ends with it).
#[must_use]
pub fn shared(wanted: &BTreeSet<String>, text: &str) -> usize {
    let have = stems(text);
    let tails: Vec<String> = words(text)
        .iter()
        .map(|(_, w)| stem(&w.to_lowercase()))
        .collect();
    wanted
        .iter()
        .filter(|w| {
            // A compound's head is at least three letters long ("motor" of "motorbikes"), so
            // "art" is not found in "start".
            have.contains(*w)
                || w.chars().count() >= 3
                    && tails
                        .iter()
                        .any(|t| t.len() >= w.len() + 3 && t.ends_with(w.as_str()))
        })
        .count()
}

/// The index of the sentence of `text` sharing the most with `wanted`, and how much it shares.
#[must_use]
pub fn best_sentence(text: &str, wanted: &BTreeSet<String>) -> Option<(usize, usize)> {
    sentences(text)
        .iter()
        .enumerate()
        .map(|(i, s)| (i, shared(wanted, s)))
        .filter(|(_, n)| *n > 0)
        .max_by_key(|(i, n)| (*n, std::cmp::Reverse(*i)))
}

/// The parts that hold `words` (at least half of its content stems in one sentence), the
/// overlap narrative only when no other part does: it repeats the others.
#[must_use]
pub fn holding(profile: &Profile, words: &str) -> Vec<EditableField> {
    // Words standing as written in exactly one part decide.
    let verbatim: Vec<EditableField> = EditableField::ALL
        .into_iter()
        .filter(|f| *f != EditableField::OverlapNarrative)
        .filter(|f| {
            profile.prose.get(*f).is_some_and(|t| {
                crate::offline::text::find_phrase(t.as_str(), &words.trim().to_lowercase(), 0)
                    .is_some()
            })
        })
        .collect();
    if let [only] = verbatim[..]
        && crate::offline::text::words(words).len() >= 2
    {
        return vec![only];
    }
    let wanted = stems(words);
    if wanted.is_empty() {
        return Vec::new();
    }
    let need = wanted.len().div_ceil(2);
    let found: Vec<EditableField> = EditableField::ALL
        .into_iter()
        .filter(|field| {
            profile.prose.get(*field).is_some_and(|text| {
                best_sentence(text.as_str(), &wanted).is_some_and(|(_, n)| n >= need)
            })
        })
        .collect();
    let own: Vec<EditableField> = found
        .iter()
        .copied()
        .filter(|f| *f != EditableField::OverlapNarrative)
        .collect();
    if own.is_empty() { found } else { own }
}

/// The parts whose own answers (the person's words each part rests on) hold `words`, by the
/// same measure as [`holding`]; the overlap, which rests on the others' answers, aside.
#[must_use]
pub fn answered(profile: &Profile, words: &str) -> Vec<EditableField> {
    let wanted = stems(words);
    if wanted.is_empty() {
        return Vec::new();
    }
    let need = wanted.len().div_ceil(2);
    EditableField::ALL
        .into_iter()
        .filter(|f| *f != EditableField::OverlapNarrative)
        .filter(|field| {
            profile.sources.get(*field).iter().any(|source| {
                matches!(source.origin, SourceOrigin::Step(_))
                    && best_sentence(&source.quote, &wanted).is_some_and(|(_, n)| n >= need)
            })
        })
        .collect()
}

/// Where words a person points at stand, for a swap or a removal: the parts whose text holds
/// them, and with them every other part whose answers hold them too (the summary may have left
/// them out): when that is more than one part, a careful coach asks which is meant.
#[must_use]
pub fn standing(profile: &Profile, words: &str) -> Vec<EditableField> {
    let mut parts = holding(profile, words);
    if parts.is_empty() {
        return parts;
    }
    for field in answered(profile, words) {
        if !parts.contains(&field) {
            parts.push(field);
        }
    }
    parts
}

/// How much each part's text shares with `text` (the profile's own words as evidence).
#[must_use]
pub fn kinship(profile: &Profile, text: &str) -> Vec<(EditableField, usize)> {
    let wanted = stems(text);
    EditableField::ALL
        .into_iter()
        .filter(|f| *f != EditableField::OverlapNarrative)
        .map(|field| {
            let n = profile
                .prose
                .get(field)
                .map_or(0, |t| shared(&wanted, t.as_str()));
            (field, n)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compounds_tail_and_a_stem_are_found() {
        let wanted = stems("bikes");
        assert_eq!(shared(&wanted, "You restore old motorbikes."), 1);
        assert_eq!(shared(&stems("teaching"), "You teach."), 1);
        assert_eq!(
            best_sentence(
                "You fish. You fix bikes for friends.",
                &stems("fixing bikes")
            ),
            Some((1, 2))
        );
        assert_eq!(best_sentence("You fish.", &stems("golf")), None);
    }
}
