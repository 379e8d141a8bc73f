//! The corpus README's rules for reading a field, word for word as its scripts apply them:
//! words are runs of `[a-z0-9']`, pronouns and articles aside for a key phrase, content words of
//! more than three letters outside a short stop list, first-person words outside quotes.

/// Pronouns and articles a key phrase is matched without ("my" may become "your").
const PRON: &[&str] = &[
    "i", "me", "my", "mine", "myself", "you", "your", "yours", "yourself", "i'm", "you're", "im",
    "youre", "i've", "you've", "i'd", "you'd", "we", "our", "us", "a", "an", "the",
];
/// First-person words.
pub const FIRST: &[&str] = &[
    "i", "i'm", "i've", "i'd", "i'll", "me", "my", "mine", "myself", "im", "ive",
];
/// The corrections script's stop words for "content words".
const STOP: &[&str] = &[
    "the", "and", "but", "for", "with", "from", "that", "this", "what", "when", "where", "which",
    "who", "have", "has", "had", "into", "over", "about", "just", "also", "really", "very", "some",
    "more", "most", "less", "much", "many", "they", "them", "their", "there", "then", "than",
    "been", "were", "was", "are", "is",
];

/// The lower-case words of `text` (runs of letters, digits and apostrophes).
#[must_use]
pub fn words(text: &str) -> Vec<String> {
    let lower = text.to_lowercase().replace('’', "'");
    let mut out = Vec::new();
    let mut current = String::new();
    for c in lower.chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '\'' {
            current.push(c);
        } else if !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Whether `hay` holds the words of `needle` in order, pronouns and articles aside.
#[must_use]
pub fn contains(hay: &str, needle: &str) -> bool {
    let keep = |w: &String| !PRON.contains(&w.as_str());
    let h: Vec<String> = words(hay).into_iter().filter(keep).collect();
    let n: Vec<String> = words(needle).into_iter().filter(keep).collect();
    n.is_empty() || h.windows(n.len()).any(|w| w == n.as_slice())
}

/// `text` with quoted spans blanked.
#[must_use]
pub fn outside_quotes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '"' | '“' if !quoted => quoted = true,
            '"' | '”' if quoted => quoted = false,
            _ if quoted => {}
            _ => out.push(c),
        }
        if quoted {
            out.push(' ');
        }
    }
    out
}

/// Whether `text` speaks in the first person outside quotes.
#[must_use]
pub fn first_person(text: &str) -> bool {
    words(&outside_quotes(text))
        .iter()
        .any(|w| FIRST.contains(&w.as_str()))
}

/// Whether a word appears twice in a row ("the the").
#[must_use]
pub fn doubled_word(text: &str) -> bool {
    let lower = text.to_lowercase();
    let all: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    // Only words separated by whitespace alone count, as the script's \b(\w+)\s+\1\b does.
    let mut previous: Option<(&str, usize)> = None;
    let mut from = 0;
    for word in all {
        let at = lower[from..].find(word).map_or(from, |i| from + i);
        if let Some((p, end)) = previous
            && p == word
            && lower[end..at].chars().all(char::is_whitespace)
            && !lower[end..at].is_empty()
        {
            return true;
        }
        previous = Some((word, at + word.len()));
        from = at + word.len();
    }
    false
}

/// The content words of `text`: longer than three letters, not stop words.
#[must_use]
pub fn content(text: &str) -> Vec<String> {
    words(text)
        .into_iter()
        .filter(|w| w.len() > 3 && !STOP.contains(&w.as_str()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_read_as_the_scripts_do() {
        assert!(contains("You love your garden roses.", "my garden roses"));
        assert!(!contains("You love roses.", "garden roses"));
        assert!(first_person("I love it."));
        assert!(!first_person("You said \"I love it\"."));
        assert!(doubled_word("you love love it"));
        assert!(!doubled_word("you love, love it"));
        assert_eq!(content("The garden and the roses"), ["garden", "roses"]);
    }
}
