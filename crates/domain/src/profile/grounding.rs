//! The grounding rule (docs/api.md, "Provenance"): a sentence about the person rests on their words
//! when at least half of its content words occur in the texts it may draw on, compared by
//! Snowball stem with the language's stop words aside, and when it does not turn them around
//! (a negation or an opposite they never wrote; [`super::polarity`]). Whichever engine wrote a
//! field, a field with one sentence that fails this rule is not stored as written.

use std::collections::BTreeSet;

use rust_stemmers::{Algorithm, Stemmer};

use super::polarity::Polarity;
use super::words::folded_words;
pub use super::words::sentences;

/// The languages with both a Snowball stemmer and a stop-word list (NLTK's) that the rule reads.
/// Others (Japanese, Chinese...) are compared word by word, unstemmed, with no stop words.
const LANGUAGES: [(&str, Algorithm); 8] = [
    ("en", Algorithm::English),
    ("de", Algorithm::German),
    ("es", Algorithm::Spanish),
    ("fr", Algorithm::French),
    ("it", Algorithm::Italian),
    ("pt", Algorithm::Portuguese),
    ("nl", Algorithm::Dutch),
    ("sv", Algorithm::Swedish),
];

/// Words that carry no fact about a person but are missing from NLTK's English list: modal
/// verbs and the few connectives the engines' frames use ("You could be paid for …").
const EXTRA_STOP_WORDS: &[&str] = &[
    "could", "would", "should", "might", "may", "must", "shall", "can", "also", "still", "yet",
    "even", "really", "much", "many", "every", "one", "get", "gets",
];

/// The rule for one person's material: the language read from their own words.
pub struct Grounding {
    stemmer: Option<Stemmer>,
    stop: BTreeSet<String>,
}

impl std::fmt::Debug for Grounding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Grounding")
            .field("stemmed", &self.stemmer.is_some())
            .finish_non_exhaustive()
    }
}

fn stop_words(code: &str) -> &'static [&'static str] {
    stop_words::lookup(code).unwrap_or(&[])
}

impl Grounding {
    /// The rule in the language most of `material`'s words are stop words of (English when none
    /// is found). English stop words are set aside in every language: models answer in English
    /// whatever the person wrote in, and "you" or "the" are no fact about them.
    #[must_use]
    pub fn for_material(material: &[&str]) -> Self {
        let words: Vec<String> = material.iter().flat_map(|t| folded_words(t)).collect();
        let hits = |code: &str| {
            let list = stop_words(code);
            words.iter().filter(|w| list.contains(&w.as_str())).count()
        };
        let best = LANGUAGES
            .iter()
            .map(|(code, algorithm)| (hits(code), *code, *algorithm))
            .filter(|(n, ..)| *n > 0)
            // The first listed wins a tie: English, then the others in order.
            .fold(
                None,
                |best: Option<(usize, &str, Algorithm)>, c| match best {
                    Some(b) if b.0 >= c.0 => Some(b),
                    _ => Some(c),
                },
            );
        let (code, stemmer) = match best {
            Some((_, code, algorithm)) => (code, Some(Stemmer::create(algorithm))),
            // No stop word of any listed language: a language without spaces, or too few words.
            None if words.iter().all(|w| w.is_ascii()) => {
                ("en", Some(Stemmer::create(Algorithm::English)))
            }
            None => ("", None),
        };
        let stop = stop_words(code)
            .iter()
            .chain(stop_words("en"))
            .chain(EXTRA_STOP_WORDS)
            .map(|w| w.replace('’', "'"))
            .collect();
        Self { stemmer, stop }
    }

    /// The stems of the content words of `text`: its words less the stop words, stemmed.
    #[must_use]
    pub fn content_stems(&self, text: &str) -> BTreeSet<String> {
        folded_words(text)
            .into_iter()
            .filter(|w| !self.stop.contains(w) && !self.stop.contains(w.trim_end_matches("'s")))
            .map(|w| match &self.stemmer {
                Some(stemmer) => stemmer.stem(w.trim_end_matches("'s")).into_owned(),
                None => w,
            })
            .collect()
    }

    /// Whether `sentence` has at least half of its content words in `material` (a sentence
    /// without content words, "Yes.", is grounded: it claims nothing).
    #[must_use]
    pub fn is_grounded(&self, sentence: &str, material: &BTreeSet<String>) -> bool {
        let own = self.content_stems(sentence);
        let found = own.iter().filter(|w| material.contains(*w)).count();
        found * 2 >= own.len()
    }

    /// The sentences of `text` that do not rest on `material` (the texts it may draw on): too
    /// few of their content words are there, or they turn its meaning around.
    #[must_use]
    pub fn ungrounded<'t>(&self, text: &'t str, material: &[&str]) -> Vec<&'t str> {
        let known: BTreeSet<String> = material
            .iter()
            .flat_map(|m| self.content_stems(m))
            .collect();
        let polarity = Polarity::of(|m| self.content_stems(m), material);
        sentences(text)
            .into_iter()
            .filter(|s| {
                let own = self.content_stems(s);
                !self.is_grounded(s, &known) || polarity.inverts(&own, s)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A nurse who restores old bicycles, in her own words (steps 1-2).
    const LOVE: &str =
        "Restoring old bicycles in my shed. Every wheel I true feels like a small victory.";
    const STRENGTH: &str =
        "I stay calm at three in the morning on the ward when a patient crashes.";

    #[test]
    fn sentences_the_person_never_wrote_are_ungrounded() {
        let g = Grounding::for_material(&[LOVE]);
        assert_eq!(
            g.ungrounded("You love baking bread for your neighbours.", &[LOVE]),
            ["You love baking bread for your neighbours."]
        );
        let g = Grounding::for_material(&[STRENGTH]);
        assert_eq!(
            g.ungrounded(
                "you are good at overcoming obstacles and taking risks.",
                &[STRENGTH]
            )
            .len(),
            1
        );
    }

    #[test]
    fn a_mirror_of_her_own_sentences_is_grounded_across_inflections() {
        let g = Grounding::for_material(&[LOVE]);
        assert!(
            g.ungrounded(
                "You love restoring old bicycles in your shed. Each wheel you true feels like a victory.",
                &[LOVE]
            )
            .is_empty()
        );
        // "restored" and "bicycle" stem as "restoring" and "bicycles" do.
        assert!(
            g.ungrounded("You restored a bicycle in the shed.", &[LOVE])
                .is_empty()
        );
        // Only the invented sentence of two is named.
        assert_eq!(
            g.ungrounded(
                "You love restoring old bicycles. You deserve to be happy and rich.",
                &[LOVE]
            ),
            ["You deserve to be happy and rich."]
        );
    }

    #[test]
    fn a_spanish_person_is_read_in_spanish_and_an_invented_english_line_fails() {
        let answer = "Organizo eventos para la parroquia. Me encanta reunir a los vecinos.";
        let g = Grounding::for_material(&[answer]);
        assert!(
            g.ungrounded("Organizas eventos para la parroquia.", &[answer])
                .is_empty()
        );
        assert_eq!(
            g.ungrounded(
                "You deserve to be happy. But happiness can't exist without hard work.",
                &[answer]
            )
            .len(),
            2
        );
    }

    #[test]
    fn text_without_stop_words_is_compared_word_by_word() {
        let answer = "来年は本を書きたい。";
        let g = Grounding::for_material(&[answer]);
        assert!(g.ungrounded("来年は本を書きたい。", &[answer]).is_empty());
        assert_eq!(g.ungrounded("猫が好きです。", &[answer]).len(), 1);
    }

    #[test]
    fn her_words_turned_around_are_ungrounded() {
        // Issue 43: all of these reuse enough of her words to pass on words alone.
        let g = Grounding::for_material(&[LOVE]);
        let inverted = "You do not love restoring old bicycles in your shed, you hate it.";
        assert_eq!(g.ungrounded(inverted, &[LOVE]), [inverted]);
        let goal = "Open the weekend repair café.";
        let g = Grounding::for_material(&[goal]);
        assert_eq!(
            g.ungrounded("Close the weekend repair café.", &[goal]),
            ["Close the weekend repair café."]
        );
        assert!(
            g.ungrounded("Open the weekend repair café.", &[goal])
                .is_empty()
        );
    }

    #[test]
    fn a_sentence_that_claims_nothing_is_grounded() {
        let g = Grounding::for_material(&[LOVE]);
        assert!(g.ungrounded("That is it. It is so.", &[LOVE]).is_empty());
        assert!(sentences("One.\nTwo!  Three? ").len() == 3);
    }
}
