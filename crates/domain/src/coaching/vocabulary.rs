//! The words the service never uses about a person's time or goals: it observes, it does not judge.

/// Verdict words and phrases. Matched case-insensitively on word boundaries.
pub const VERDICT_WORDS: &[&str] = &[
    "should",
    "shouldn't",
    "must",
    "failed",
    "failing",
    "fail",
    "failure",
    "need to",
    "needs to",
    "ought",
    "have to",
    "has to",
    "lazy",
    "behind",
    "wasted",
    "bad",
];

/// The first verdict word or phrase in `text`, if any.
#[must_use]
pub fn find_verdict(text: &str) -> Option<&'static str> {
    let words: Vec<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    VERDICT_WORDS.iter().copied().find(|verdict| {
        let parts: Vec<&str> = verdict.split(' ').collect();
        words
            .windows(parts.len())
            .any(|w| w.iter().zip(&parts).all(|(a, b)| a == b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_are_found_as_whole_words_and_phrases() {
        assert_eq!(find_verdict("You SHOULD rest."), Some("should"));
        assert_eq!(find_verdict("you need to move"), Some("need to"));
        assert_eq!(
            find_verdict("a mustard seed; feedback behind-the-scenes"),
            Some("behind")
        );
        assert_eq!(find_verdict("mustard, shoulder, needed"), None);
    }
}
