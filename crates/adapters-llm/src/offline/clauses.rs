//! A person's text in clauses: where one thing they say ends and the next begins, with or
//! without punctuation ("i train the new guys and ppl come to me when ..."), and the asides,
//! hedges and fillers that carry no claim of their own ("I must admit", "bless him", "which I'm
//! not very good at"). The mirror and the coach's reader both build on it.

use super::text::{content_words, find_phrase, normalize, sentences, words};

/// Words that open a new clause when no punctuation marks it: a subject of the person's own, a
/// pronoun, or a verb a chat writer starts a clause with ("forgot it", "haven't been").
const CLAUSE_STARTERS: &[&str] = &[
    "i", "i'm", "i've", "i'd", "i'll", "they", "we", "he", "she", "that's", "there's", "haven't",
    "hasn't", "didn't", "can't", "forgot",
];

/// Words after which a starter does not open a clause ("that I love", "when they call").
const BINDERS: &[&str] = &[
    "that", "when", "if", "because", "where", "who", "which", "so", "and", "but", "or", "than",
    "as", "while", "until", "before", "after", "since", "what", "how", "why", "whether", "think",
    "know", "guess", "say", "said", "mean", "feel", "wish", "hope", "like", "since", "once",
];

/// Openings of an aside: a clause that starts so says nothing the summary needs.
const ASIDE_OPENINGS: &[&str] = &[
    "although",
    "though",
    "which",
    "whether",
    "bless",
    "i can tell you",
    "if i may",
    "all the same",
];

/// Hedges dropped wherever they stand inside a clause.
const HEDGES: &[&str] = &[
    "i must admit",
    "i must say",
    "i confess",
    "i suppose",
    "i think",
    "i guess",
    "very much",
    "i'd say",
    "i would say",
    "if i'm honest",
    "to be honest",
    "honestly",
    "of course",
    "kind of",
    "sort of",
    "pretty much",
    "more or less",
    "perhaps",
    "maybe",
    "probably",
    "really",
    "truly",
    "very",
    "quite",
    "actually",
    "basically",
    "literally",
    "somehow",
    "per se",
    "as such",
];

/// Fillers dropped only where a clause opens ("so", "well" mean more inside one).
const OPENING_FILLERS: &[&str] = &[
    "dear", "please", "oh", "well", "so", "um", "hmm", "yeah", "rather", "just", "ok", "okay",
];

/// The clauses of `text`, in order, each a trimmed slice of it.
#[must_use]
pub fn split(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for sentence in sentences(text) {
        // Only a sentence written without commas is split where no mark says so.
        let unmarked = !sentence.contains(',');
        for piece in split_marks(sentence) {
            let pieces = if unmarked {
                split_unmarked(piece)
            } else {
                vec![piece]
            };
            for clause in pieces {
                let clause = trim_joints(clause);
                if !clause.is_empty() {
                    out.push(clause);
                }
            }
        }
    }
    out
}

/// Splits at semicolons, dashes, colons that end a head, and at ", and I" style joints.
fn split_marks(sentence: &str) -> Vec<&str> {
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    for mark in ["; ", " — ", " – ", "—", " -- "] {
        let mut from = 0;
        while let Some(at) = sentence[from..].find(mark) {
            cuts.push((from + at, from + at + mark.len()));
            from += at + mark.len();
        }
    }
    for joint in ["and", "but", "so", "although", "though", "which", "while"] {
        let mut from = 0;
        while let Some((at, end)) = find_phrase(sentence, joint, from) {
            if sentence[..at].ends_with(", ") {
                cuts.push((at - 2, at));
            }
            from = end;
        }
    }
    cut_at(sentence, cuts)
}

/// In a clause written without punctuation, a starter after a word that does not bind it opens
/// a new clause.
fn split_unmarked(piece: &str) -> Vec<&str> {
    let all = words(piece);
    if all.len() < 6 {
        return vec![piece];
    }
    let mut cuts = Vec::new();
    for (i, pair) in all.windows(2).enumerate() {
        let (_, before) = pair[0];
        let (at, word) = pair[1];
        let word = normalize(word);
        let before = normalize(before);
        let plain = !piece[..at].trim_end().ends_with([',', ':', '(']);
        let next_is_gerund = all
            .get(i + 2)
            .is_some_and(|(_, w)| normalize(w).ends_with("ing"));
        let starts = CLAUSE_STARTERS.contains(&word.as_str()) || word == "also" && next_is_gerund;
        if starts
            && !BINDERS.contains(&before.as_str())
            && !CLAUSE_STARTERS.contains(&before.as_str())
            && plain
            && at > 0
            // "the work I do": a short tail is the phrase's own relative clause.
            && all.len() - (i + 1) >= 3
        {
            cuts.push((at, at));
        }
    }
    cut_at(piece, cuts)
}

fn cut_at(text: &str, mut cuts: Vec<(usize, usize)>) -> Vec<&str> {
    cuts.sort_unstable();
    let mut out = Vec::new();
    let mut start = 0;
    for (at, end) in cuts {
        if at < start || !text.is_char_boundary(at) || !text.is_char_boundary(end) {
            continue;
        }
        out.push(&text[start..at]);
        start = end;
    }
    out.push(&text[start..]);
    out.into_iter()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

/// A clause without the separators and joining words at its ends.
#[must_use]
pub fn trim_joints(clause: &str) -> &str {
    let mut text = clause.trim_matches(|c: char| {
        c.is_whitespace() || matches!(c, ',' | ';' | ':' | '-' | '–' | '—' | '.' | '!' | '(' | ')')
    });
    loop {
        let before = text;
        for joint in ["and ", "but ", "so ", "or ", "then ", "plus "] {
            if text.len() > joint.len()
                && text
                    .get(..joint.len())
                    .is_some_and(|head| head.eq_ignore_ascii_case(joint))
            {
                text = text[joint.len()..].trim_start();
            }
        }
        if text == before {
            return text;
        }
    }
}

/// Whether a clause is an aside (it opens as one, or it holds no content word).
#[must_use]
pub fn is_aside(clause: &str) -> bool {
    content_words(clause).is_empty()
        || ASIDE_OPENINGS
            .iter()
            .any(|a| find_phrase(clause, a, 0).is_some_and(|(at, _)| at == 0))
}

/// `clause` without hedges and fillers, wherever they stand; never empty when the clause had a
/// content word.
#[must_use]
pub fn without_hedges(clause: &str) -> String {
    let mut text = clause.to_owned();
    for hedge in HEDGES {
        while let Some((at, end)) = find_phrase(&text, hedge, 0) {
            let after = text[end..].trim_start_matches([',', ' ']);
            let before = text[..at].trim_end_matches([',', ' ']);
            let joined = if before.is_empty() {
                after.to_owned()
            } else if after.is_empty() {
                before.to_owned()
            } else {
                format!("{before} {after}")
            };
            if content_words(&joined).is_empty() {
                break;
            }
            text = joined;
        }
    }
    let mut text = text.trim().to_owned();
    loop {
        let lead = OPENING_FILLERS
            .iter()
            .find(|f| find_phrase(&text, f, 0).is_some_and(|(at, _)| at == 0))
            .map(|f| f.len());
        match lead {
            Some(end) if content_words(&text[end..]).len() == content_words(&text).len() => {
                text = text[end..]
                    .trim_start_matches(|c: char| c.is_whitespace() || c == ',')
                    .to_owned();
            }
            _ => return text,
        }
    }
}

/// The number of words of `text`.
#[must_use]
pub fn word_count(text: &str) -> usize {
    words(text).len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clauses_split_at_marks_and_at_unmarked_subjects() {
        assert_eq!(
            split("I bake bread; it calms me — most days, and I love it."),
            ["I bake bread", "it calms me", "most days", "I love it"]
        );
        assert_eq!(
            split("fixing old radios in the shed i lose hours there also chess on fridays"),
            [
                "fixing old radios in the shed",
                "i lose hours there also chess on fridays"
            ]
        );
        assert_eq!(
            split("the people that I love and the work I do"),
            ["the people that I love and the work I do"]
        );
    }

    #[test]
    fn asides_and_hedges_are_set_aside() {
        assert!(is_aside("which I'm not very good at"));
        assert!(is_aside("bless him"));
        assert!(!is_aside("I repair clocks"));
        assert_eq!(
            without_hedges("I suppose I really love maps, honestly"),
            "I love maps"
        );
    }
}
