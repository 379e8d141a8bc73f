//! The one form text is compared in by the mapping rules and by the matching prepared from them.

use unicode_normalization::UnicodeNormalization;

/// NFC, then lower case: the form both sides of a comparison are put in.
#[must_use]
pub fn fold(text: &str) -> String {
    // Most labels and ids are ASCII, where NFC changes nothing.
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    text.nfc().collect::<String>().to_lowercase()
}
