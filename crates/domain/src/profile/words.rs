//! The words and the sentences of a text, as both halves of the grounding rule read them
//! ([`super::grounding`], [`super::polarity`]).

use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

/// The words of `text` in NFC, lower case, with a typographic apostrophe made plain.
pub(super) fn folded_words(text: &str) -> Vec<String> {
    let nfc: String = text.nfc().collect();
    nfc.unicode_words()
        .map(|w| w.replace('’', "'").to_lowercase())
        .collect()
}

/// The sentences of `text` (Unicode sentence boundaries; line breaks end a sentence too),
/// trimmed, blank ones left out.
#[must_use]
pub fn sentences(text: &str) -> Vec<&str> {
    text.split('\n')
        .flat_map(UnicodeSegmentation::unicode_sentences)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}
