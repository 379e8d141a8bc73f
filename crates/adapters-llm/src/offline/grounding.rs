//! Whether a written sentence rests on the person's words: at least half of its content words
//! (compared by a rough stem) occur in the texts it may draw on. The offline engine checks its
//! own mirrors with it, and falls back to the person's sentence when a mirror would not pass, so
//! that what it writes passes the service's grounding check (docs/api.md, "Provenance").

use std::collections::BTreeSet;

use super::text::{ELLIPSIS, content_words, normalize, sentences, words};

/// A rough stem: the word without a common English ending, so that "teaching" and "teach",
/// "nurses" and "nurse" compare equal.
#[must_use]
pub fn stem(word: &str) -> String {
    let word = word.trim_end_matches("'s").trim_end_matches("’s");
    for suffix in ["ing", "ed", "es", "s", "ly"] {
        if let Some(base) = word.strip_suffix(suffix)
            && base.chars().count() >= 3
        {
            return base.to_owned();
        }
    }
    word.to_owned()
}

fn stems(text: &str) -> BTreeSet<String> {
    content_words(text).iter().map(|w| stem(w)).collect()
}

/// Whether `sentence` has at least half of its content words in `sources` (a sentence without
/// content words is grounded). A word cut short by a length cap (the sentence ends with "…")
/// counts as found when a source holds it.
#[must_use]
pub fn is_grounded(sentence: &str, sources: &[&str]) -> bool {
    let known: BTreeSet<String> = sources.iter().flat_map(|s| stems(s)).collect();
    let cut_word = sentence
        .trim_end()
        .strip_suffix(ELLIPSIS)
        .and_then(|s| words(s).last().map(|(_, w)| normalize(w)));
    let own = stems(sentence);
    let found = own
        .iter()
        .filter(|w| {
            known.contains(*w)
                || cut_word.as_ref().is_some_and(|c| {
                    stem(c) == **w && sources.iter().any(|s| s.to_lowercase().contains(c))
                })
        })
        .count();
    found * 2 >= own.len()
}

/// Whether every sentence of `text` is grounded in `sources`.
#[must_use]
pub fn all_grounded(text: &str, sources: &[&str]) -> bool {
    sentences(text).iter().all(|s| is_grounded(s, sources))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_of_the_content_words_must_come_from_the_sources() {
        let answer = "I love teaching new nurses.";
        assert!(is_grounded("You love teaching new nurses.", &[answer]));
        assert!(is_grounded("You teach nurses about medicine.", &[answer]));
        assert!(!is_grounded(
            "You manage budgets and hospital wards.",
            &[answer]
        ));
        assert!(is_grounded("Yes.", &[answer]));
        assert!(!all_grounded(
            "You love nurses. Budgets rule hospitals.",
            &[answer]
        ));
    }
}
