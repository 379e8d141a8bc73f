//! Phrase matching shared by the fixtures (where a phrase is found in the answers) and the
//! scoring (where a forbidden phrase reached storage): case-insensitive, whitespace runs
//! collapsed.

/// Whether `phrase` occurs in `text`, compared case-insensitively with runs of whitespace
/// collapsed (an empty phrase never occurs).
#[must_use]
pub fn contains_phrase(text: &str, phrase: &str) -> bool {
    let fold = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let phrase = fold(phrase);
    !phrase.is_empty() && fold(text).contains(&phrase)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_match_across_case_and_whitespace() {
        assert!(contains_phrase(
            "Become CEO of a\n  FORTUNE 500 firm",
            "fortune 500"
        ));
        assert!(!contains_phrase("Fortune500", "Fortune 500"));
        assert!(!contains_phrase("anything", "  "));
    }
}
