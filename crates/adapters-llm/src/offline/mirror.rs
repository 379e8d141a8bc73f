//! Mirroring: a person's English sentence said back to them in the second person. Filler at the
//! start is dropped ("Honestly, I think ..."), a cleft is unfolded ("what I love most is X" ->
//! "I love X most"), and the pronouns are turned (I -> you, my -> your, I'm -> you're, ...).
//! Every content word of a mirror is the person's own: it adds none but a few pronouns.

use super::text::{capitalize_first, find_phrase, normalize, words};

/// Openings that carry no content of their own, dropped from the start of a sentence (again and
/// again: "Well, honestly, I think ...").
const FILLERS: &[&str] = &[
    "if i'm being honest",
    "if i am being honest",
    "if i'm honest",
    "to be honest",
    "honestly",
    "frankly",
    "truthfully",
    "well",
    "so",
    "um",
    "uh",
    "hmm",
    "oh",
    "yeah",
    "ok",
    "okay",
    "i'd probably say that",
    "i'd probably say",
    "i would say that",
    "i would say",
    "i'd say that",
    "i'd say",
    "i have to say",
    "i think that",
    "i think",
    "i guess",
    "i suppose",
    "i believe",
    "i feel like",
    "i mean",
    "probably",
    "basically",
    "really",
    "actually",
    "in fact",
    "personally",
    "for me",
    "to me",
    "right now",
    "these days",
    "at the moment",
    "and yet",
    "but",
    "and",
];

/// Adverbs that only add weight, dropped right after "I" ("I really love" -> "you love").
const WEIGHT_ADVERBS: &[&str] = &["really", "truly", "genuinely", "honestly", "actually"];

/// The start of a cleft: "what I love is X", "the thing I'm best at is X".
const CLEFT_STARTS: &[&str] = &["what", "the thing that", "the thing", "the one thing"];
/// The verb that ends a cleft's head.
const CLEFT_VERBS: &[&str] = &["is", "are", "was", "would be"];
/// Degree words of a cleft's head that read better after the value ("I love X most").
const CLEFT_DEGREES: &[&str] = &["most of all", "the most", "most", "best"];

/// Words that say the sentence has a verb of its own (so it is a clause, not a fragment).
const FINITE: &[&str] = &[
    "is", "are", "was", "were", "am", "has", "have", "had", "do", "does", "did", "can", "could",
    "will", "would", "may", "might", "it's", "that's", "there's", "what's", "he's", "she's",
    "they're", "we're", "isn't", "aren't", "wasn't", "don't", "doesn't",
];

/// Common English words: a text that holds none of them is not read as English.
const ENGLISH_MARKERS: &[&str] = &[
    "i", "my", "me", "we", "our", "you", "your", "they", "their", "them", "he", "she", "his",
    "her", "it", "its", "the", "a", "an", "and", "or", "but", "to", "of", "in", "on", "at", "for",
    "with", "from", "by", "as", "about", "into", "over", "is", "are", "was", "were", "be", "been",
    "have", "has", "had", "do", "does", "did", "can", "could", "will", "would", "should", "that",
    "this", "these", "those", "who", "what", "when", "where", "how", "why", "which", "because",
    "if", "than", "then", "so", "not", "no", "nobody", "every", "all", "some", "more", "most",
    "people", "love", "good", "work", "help", "want", "like", "get", "make", "need", "needs",
];

/// Whether `text` reads as English: its words are mostly ASCII and, beyond three words, enough
/// of them are common English words. Only English is mirrored; other languages are
/// quoted as written.
#[must_use]
pub fn is_english(text: &str) -> bool {
    let all = words(text);
    if all.is_empty() {
        return false;
    }
    let ascii = all
        .iter()
        .filter(|(_, w)| w.chars().all(|c| c.is_ascii() || c == '’'))
        .count();
    if ascii * 10 < all.len() * 9 {
        return false;
    }
    let markers = all
        .iter()
        .filter(|(_, w)| ENGLISH_MARKERS.contains(&normalize(w).as_str()))
        .count();
    all.len() <= 3 || markers * 100 >= all.len() * ENGLISH_MARKER_PERCENT
}

/// Words that say a short or jargon-heavy text is English all the same.
const ENGLISH_CUES: &[&str] = &[
    "also",
    "add",
    "remove",
    "drop",
    "not",
    "more",
    "less",
    "by",
    "don't",
    "forget",
    "correction",
    "revise",
    "someday",
    "when",
    "paid",
    "help",
    "good",
    "with",
    "the",
    "to",
    "and",
    "my",
    "of",
    "for",
    "that's",
    "it's",
    "you",
    "could",
    "next",
    "hire",
    "work",
    "people",
    "w",
];

/// Whether the offline engine can read `text`: English by its common words ([`is_english`]), or,
/// in notes and bullets ("- deep work w/ cofounder - next: hire"), written in plain ASCII with a
/// word English shares with no other language the engine meets ("a", "i", "no", "me" and "on"
/// do not count).
#[must_use]
pub fn reads_english(text: &str) -> bool {
    // No English word runs past 40 letters.
    if words(text).iter().any(|(_, w)| w.chars().count() > 40) {
        return false;
    }
    // Latin letters with accents ("café", "résumés") are read as their plain letters.
    let plain: String = text
        .chars()
        .map(|c| {
            if c.is_alphabetic() && !c.is_ascii() && (c as u32) < 0x0250 {
                'e'
            } else {
                c
            }
        })
        .collect();
    is_english(&plain)
        || words(text).iter().all(|(_, w)| w.is_ascii())
            && words(text)
                .iter()
                .filter(|(_, w)| ENGLISH_CUES.contains(&normalize(w).as_str()))
                .count()
                >= 1
}

/// The share of common English words (in percent) that makes a text of four words or more read
/// as English: English prose has far more ("the", "to", "my", ...); Spanish, which shares "a"
/// and "no", far fewer.
const ENGLISH_MARKER_PERCENT: usize = 15;

/// Whether `text` speaks of the person in the first person (I, my, me, ...).
#[must_use]
pub fn is_first_person(text: &str) -> bool {
    words(text)
        .iter()
        .any(|(_, w)| turned(&normalize(w), None).is_some())
}

/// Words that open a clause inside a phrase: a verb after them belongs to that inner clause
/// ("Being with people when they're scared" is still a phrase).
const SUBORDINATORS: &[&str] = &[
    "when", "because", "if", "who", "that", "which", "while", "where", "as", "so", "until",
    "before", "after", "whenever",
];

/// Whether `text` has a verb of its own, as a clause does ("It's the people"), rather than
/// being a fragment ("Long walks by the sea", "Being with people when they're scared").
#[must_use]
pub fn is_clause(text: &str) -> bool {
    let mut inner = false;
    for (_, w) in words(text) {
        let w = normalize(w);
        if SUBORDINATORS.contains(&w.as_str()) {
            inner = true;
        } else if FINITE.contains(&w.as_str()) && !inner {
            return true;
        }
    }
    false
}

/// `text` without the filler at its start ("Honestly, I think what ..." -> "what ...").
#[must_use]
pub fn without_fillers(text: &str) -> &str {
    let mut rest = text.trim_start();
    loop {
        let Some(end) = FILLERS
            .iter()
            .filter_map(|f| find_phrase(rest, f, 0).filter(|(at, _)| *at == 0))
            .map(|(_, end)| end)
            .max()
        else {
            return rest;
        };
        let after = rest[end..].trim_start_matches(|c: char| {
            c.is_whitespace() || matches!(c, ',' | ':' | ';' | '-' | '–' | '—' | '.' | '!')
        });
        // A filler that is the whole sentence is the sentence ("Well.").
        if after.is_empty() || after.len() == rest.len() {
            return rest;
        }
        rest = after;
    }
}

/// "what I love most is X" -> "I love X most"; any other text as it is.
#[must_use]
pub fn unfold_cleft(text: &str) -> String {
    for start in CLEFT_STARTS {
        let Some((0, start_end)) = find_phrase(text, start, 0) else {
            continue;
        };
        let Some((verb_at, verb_end)) = CLEFT_VERBS
            .iter()
            .filter_map(|v| find_phrase(text, v, start_end))
            .min_by_key(|(at, _)| *at)
        else {
            continue;
        };
        let head = text[start_end..verb_at].trim();
        let value = text[verb_end..].trim();
        let subject = words(head)
            .first()
            .is_some_and(|(_, w)| matches!(normalize(w).as_str(), "i" | "i'm" | "i've" | "i'd"));
        if !subject || value.is_empty() || head.split_whitespace().count() > 6 {
            continue;
        }
        let degree = CLEFT_DEGREES
            .iter()
            .find(|d| head.to_lowercase().ends_with(&format!(" {d}")) && head.len() > d.len());
        return match degree {
            Some(d) => {
                let head = head[..head.len() - d.len()].trim_end();
                let (value, end) = split_terminator(value);
                format!("{head} {value} {d}{end}")
            }
            None => format!("{head} {value}"),
        };
    }
    text.to_owned()
}

fn split_terminator(text: &str) -> (&str, &str) {
    let bare = text.trim_end_matches(['.', '!', '…']);
    (bare, &text[bare.len()..])
}

/// The second-person form of one lower-case word, given the word before it; `None` when the
/// word stays as it is.
fn turned(word: &str, before: Option<&str>) -> Option<&'static str> {
    Some(match word {
        "i" | "me" => "you",
        "my" => "your",
        "mine" => "yours",
        "myself" => "yourself",
        "i'm" => "you're",
        "i've" => "you've",
        "i'd" => "you'd",
        "i'll" => "you'll",
        "am" => "are",
        "was" if before == Some("i") => "were",
        _ => return None,
    })
}

/// `text` with its first-person words turned to the second person. The person's apostrophe is
/// kept; a turned word at the start gets a capital.
#[must_use]
pub fn turn_pronouns(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut from = 0;
    let mut before: Option<String> = None;
    for (at, word) in words(text) {
        let key = normalize(word);
        if let Some(new) = turned(&key, before.as_deref()) {
            out.push_str(&text[from..at]);
            let new = if word.contains('’') {
                new.replace('\'', "’")
            } else {
                new.to_owned()
            };
            let starts = text[..at].trim().is_empty();
            out.push_str(&if starts { capitalize_first(&new) } else { new });
            from = at + word.len();
        }
        before = Some(key);
    }
    out.push_str(&text[from..]);
    drop_weight_adverbs(&out)
}

/// "you really love" -> "you love": weight adverbs right after a turned subject.
fn drop_weight_adverbs(text: &str) -> String {
    let mut out = text.to_owned();
    for subject in ["you", "you're", "you’re"] {
        for adverb in WEIGHT_ADVERBS {
            let needle = format!("{subject} {adverb} ");
            while let Some((at, end)) = find_phrase(&out, &needle, 0) {
                let keep = &out[at..at + subject.len()];
                out = format!("{}{keep} {}", &out[..at], &out[end..]);
            }
        }
    }
    out
}

/// A sentence mirrored: fillers dropped, a cleft unfolded, pronouns turned, the first letter a
/// capital. For English only: the callers check the language of the whole text ([`is_english`]).
#[must_use]
pub fn mirror(sentence: &str) -> String {
    let core = without_fillers(sentence);
    capitalize_first(&turn_pronouns(&unfold_cleft(core)))
}

/// The first letter of `text` in lower case, unless the first word looks like a name or an
/// acronym (a capital inside it) or is "I": for a phrase set inside a frame.
#[must_use]
pub fn lower_first(text: &str) -> String {
    let first_word = text.split_whitespace().next().unwrap_or("");
    let inner_capital = first_word.chars().skip(1).any(char::is_uppercase);
    if first_word == "I" || inner_capital {
        return text.to_owned();
    }
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fillers_are_dropped_and_clefts_unfolded_before_the_pronouns_turn() {
        assert_eq!(
            mirror("Honestly, I think what I really love is restoring old bikes."),
            "You love restoring old bikes."
        );
        assert_eq!(
            mirror("What I love most is teaching new nurses."),
            "You love teaching new nurses most."
        );
        assert_eq!(
            mirror("What I'm best at is calming people down."),
            "You're best at calming people down."
        );
        assert_eq!(
            mirror("Neighbours bring me every broken bicycle."),
            "Neighbours bring you every broken bicycle."
        );
        assert_eq!(
            mirror("I was a nurse and I am proud of my work."),
            "You were a nurse and you are proud of your work."
        );
        assert_eq!(
            mirror("I’m happiest outdoors."),
            "You’re happiest outdoors."
        );
    }

    #[test]
    fn english_is_told_from_other_languages() {
        assert!(!is_english("Ich baue Möbel aus altem Holz."));
        assert!(!is_english("料理が好きです。"));
        assert!(is_english(
            "Small businesses get hacked because nobody checks their backups."
        ));
        assert!(is_english("Gardening"));
        assert!(!is_english("Cocinar para mi barrio los domingos."));
    }

    #[test]
    fn clauses_and_fragments_are_told_apart() {
        assert!(is_clause("It's the people."));
        assert!(is_clause("Watching an idea click is the best part."));
        assert!(!is_clause("Long walks by the sea."));
        assert!(!is_clause("Being with people when they're scared."));
        assert!(is_first_person("Neighbours bring me bikes"));
        assert!(!is_first_person("Cleaner rivers"));
    }

    #[test]
    fn a_phrase_in_a_frame_starts_in_lower_case_unless_it_is_a_name() {
        assert_eq!(lower_first("Long walks"), "long walks");
        assert_eq!(lower_first("NHS nursing"), "NHS nursing");
        assert_eq!(lower_first("I teach"), "I teach");
    }
}
