//! The meaning half of the grounding rule (docs/api.md, "Provenance"): a sentence about the person
//! that turns their words around is not theirs, however many of their words it reuses. It is
//! turned around when it negates where the person did not ("You no longer love …" after "I still
//! love …"), or uses one of a pair of opposites whose other half is what the person wrote
//! ("Close the repair café" where they wrote "Open").
//!
//! Negation and opposites are read in English, the language the models answer in; a word of
//! the person's own language is compared as it is.

use std::collections::BTreeSet;

use rust_stemmers::{Algorithm, Stemmer};

use super::words::{folded_words, sentences};

/// Words that negate what follows. "n't" endings ("don't", "can't") are negations too; "no"
/// covers "no longer", "no more".
const NEGATIONS: &[&str] = &[
    "not", "no", "never", "nor", "neither", "none", "nothing", "nobody", "nowhere", "cannot",
    "without", "dont", "doesnt", "didnt", "isnt", "arent", "wasnt", "werent", "cant", "wont",
    "wouldnt", "shouldnt", "couldnt", "havent", "hasnt", "hadnt",
];

/// Pairs of opposites, compared by English stem ("closed", "closing" are "close"). Words with
/// another common sense are left out ("like" a preposition against "hate", "at least" against
/// "most", "leave" a holiday against "stay").
const OPPOSITES: &[(&str, &str)] = &[
    ("open", "close"),
    ("open", "shut"),
    ("love", "hate"),
    ("like", "dislike"),
    ("enjoy", "hate"),
    ("enjoy", "dislike"),
    ("start", "stop"),
    ("start", "quit"),
    ("begin", "stop"),
    ("more", "less"),
    ("more", "fewer"),
    ("increase", "decrease"),
    ("grow", "shrink"),
    ("win", "lose"),
    ("accept", "reject"),
    ("agree", "disagree"),
    ("calm", "anxious"),
    ("happy", "unhappy"),
];

fn is_negation(word: &str) -> bool {
    NEGATIONS.contains(&word) || word.ends_with("n't")
}

/// One sentence of the person's, read for polarity.
struct Said {
    /// Its content stems (the grounding rule's), to tell what it is about.
    content: BTreeSet<String>,
    /// The English stems of all its words, stop words included ("more", "not").
    english: BTreeSet<String>,
    negates: bool,
}

/// What the person's words say, read once for every sentence checked against them.
pub(super) struct Polarity {
    english: Stemmer,
    said: Vec<Said>,
    /// The English stems of every word the person wrote.
    all: BTreeSet<String>,
}

impl Polarity {
    /// The polarity of `material` (the texts a sentence may draw on); `content_stems` gives the
    /// stems of a sentence's content words (the grounding rule's, in the person's language).
    pub(super) fn of(content_stems: impl Fn(&str) -> BTreeSet<String>, material: &[&str]) -> Self {
        let english = Stemmer::create(Algorithm::English);
        let said: Vec<Said> = material
            .iter()
            .flat_map(|m| sentences(m))
            .map(|sentence| {
                let words = folded_words(sentence);
                Said {
                    content: content_stems(sentence),
                    english: words.iter().map(|w| english.stem(w).into_owned()).collect(),
                    negates: words.iter().any(|w| is_negation(w)),
                }
            })
            .collect();
        let all = said
            .iter()
            .flat_map(|s| s.english.iter().cloned())
            .collect();
        Self { english, said, all }
    }

    /// Whether `sentence` turns the person's words around. Only their sentences about the same
    /// things (sharing a content word) are compared with it, so "I hate conflict" in one answer
    /// does not make "You love old motorcycles" from another an inversion. It is turned around
    /// when it negates and none of those sentences does; or when it has one of a pair of
    /// opposites that the person never wrote while one of those sentences has the other. A
    /// sentence that claims nothing ("No.") is not.
    /// `content` is the stems of the sentence's content words, read as for [`Polarity::of`].
    pub(super) fn inverts(&self, content: &BTreeSet<String>, sentence: &str) -> bool {
        if content.is_empty() {
            return false;
        }
        let related: Vec<&Said> = self
            .said
            .iter()
            .filter(|s| !s.content.is_disjoint(content))
            .collect();
        let words = folded_words(sentence);
        if words.iter().any(|w| is_negation(w)) && !related.iter().any(|s| s.negates) {
            return true;
        }
        let own: BTreeSet<String> = words
            .iter()
            .map(|w| self.english.stem(w).into_owned())
            .collect();
        let turned = |this: &str, other: &str| {
            own.contains(this)
                && !self.all.contains(this)
                && related.iter().any(|s| s.english.contains(other))
        };
        OPPOSITES.iter().any(|&(a, b)| {
            let (a, b) = (self.english.stem(a), self.english.stem(b));
            turned(&a, &b) || turned(&b, &a)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::grounding::Grounding;

    const BICYCLES: &str = "I still love restoring old bicycles in my shed.";
    const CAFE: &str = "Open the weekend repair café in the church hall.";

    fn inverts(sentence: &str, material: &[&str]) -> bool {
        let rule = Grounding::for_material(material);
        Polarity::of(|m| rule.content_stems(m), material)
            .inverts(&rule.content_stems(sentence), sentence)
    }

    #[test]
    fn a_negation_the_person_never_wrote_inverts() {
        for turned in [
            "You do not love restoring old bicycles.",
            "You no longer love restoring old bicycles in your shed.",
            "You don't love restoring bicycles.",
            "You never restore old bicycles.",
            "You dont love your shed.",
        ] {
            assert!(inverts(turned, &[BICYCLES]), "{turned}");
        }
        assert!(!inverts("You love restoring old bicycles.", &[BICYCLES]));
    }

    #[test]
    fn a_negation_the_person_wrote_about_the_same_thing_stands() {
        let material = [BICYCLES, "I can't stand paperwork."];
        assert!(!inverts("You cannot stand paperwork.", &material));
        assert!(!inverts("Paperwork is not for you.", &material));
        // Their negation about paperwork does not let one through about the bicycles.
        assert!(inverts("You no longer love old bicycles.", &material));
    }

    #[test]
    fn an_opposite_of_what_the_person_wrote_inverts() {
        assert!(inverts("Close the weekend repair café.", &[CAFE]));
        assert!(inverts("Shut the repair café.", &[CAFE]));
        assert!(inverts(
            "You hate restoring old bicycles in your shed.",
            &[BICYCLES]
        ));
        assert!(inverts(
            "You want less time at the ward.",
            &["I want more time at the ward."]
        ));
        assert!(inverts(
            "You stopped running the choir.",
            &["I started running the choir."]
        ));
        assert!(!inverts("Open the weekend repair café.", &[CAFE]));
    }

    #[test]
    fn a_word_the_person_wrote_both_ways_or_neither_way_stands() {
        let both = ["I love the ward and hate the paperwork."];
        assert!(!inverts("You hate the paperwork.", &both));
        // Neither half written: whether it rests on their words is the grounding's question.
        assert!(!inverts(
            "You hate the paperwork.",
            &["I do the paperwork."]
        ));
        assert!(!inverts("No.", &[BICYCLES]));
        // Her "hate" is about something else: the "love" of a frame is no inversion of it.
        let answers = ["Restoring vintage motorcycles.", "I hate conflict."];
        assert!(!inverts(
            "You love restoring vintage motorcycles.",
            &answers
        ));
        assert!(inverts("You love conflict.", &answers));
    }
}
