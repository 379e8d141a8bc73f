//! The acts a message performs, read from its own evidence: a question (answered, nothing
//! changes) unless it is a polite request to edit; a removal ("drop X", "take X out", "would you
//! mind dropping X"); a swap ("change X to Y", "swap X for Y"). Each gives the words it points at
//! and the rest of its clause, where a part may be named ("from my strengths").

use crate::offline::clauses::{split, trim_joints};
use crate::offline::text::{find_phrase, normalize, words};

/// Words a question opens with.
const INTERROGATIVES: &[&str] = &[
    "what", "what's", "how", "why", "which", "who", "where", "is", "are", "am", "do", "does",
    "did", "can", "could", "should", "would", "will", "any", "might", "may", "was", "were",
];
const WH_WORDS: &[&str] = &["what", "what's", "how", "why", "which", "who", "where"];
/// Subjects an inverted question puts after its verb ("can you", "is it", "does the").
const SUBJECTS: &[&str] = &[
    "i",
    "you",
    "u",
    "we",
    "it",
    "this",
    "that",
    "there",
    "they",
    "he",
    "she",
    "my",
    "the",
    "a",
    "an",
    "someone",
    "anyone",
    "anything",
    "everything",
    "these",
    "those",
];
/// Openings that only lead into a question ("so what type am I", "quick one: ...").
const QUESTION_LEADS: &[&str] = &[
    "so",
    "ok",
    "okay",
    "hmm",
    "well",
    "oh",
    "q",
    "quick one",
    "gut check",
    "question",
    "and",
    "but",
];
/// Verbs of an edit a request asks for.
pub const EDIT_VERBS: &[&str] = &[
    "add",
    "adding",
    "include",
    "including",
    "put",
    "putting",
    "remove",
    "removing",
    "drop",
    "dropping",
    "delete",
    "deleting",
    "take",
    "taking",
    "took",
    "change",
    "changing",
    "swap",
    "swapping",
    "replace",
    "replacing",
    "update",
    "updating",
    "scratch",
    "scrap",
    "kill",
    "cut",
    "mention",
    "switch",
    "edit",
    "rewrite",
];

/// Words a removal's verb is read after (so "I lose track" is no removal, "so take that off" is).
const VERB_MAY_FOLLOW: &[&str] = &[
    "please", "you", "mind", "to", "so", "and", "just", "then", "now", "also", "could", "can",
    "would", "pls", "kindly", "maybe", "perhaps",
];

const REMOVE_VERBS: &[&str] = &[
    "remove",
    "removing",
    "drop",
    "dropping",
    "delete",
    "deleting",
    "scratch",
    "scrap",
    "kill",
    "get rid of",
    "getting rid of",
    "leave out",
    "leaving out",
    "erase",
    "strike",
    "cut out",
    "take out",
    "taking out",
    "took out",
    "take off",
    "taking off",
    "took off",
    "take away",
];

/// Words that end the object of a removal and start a pointer to the part it is in.
const POINTER_STARTS: &[&str] = &[
    "from",
    "out of",
    "off",
    "in the",
    "in my",
    "in there",
    "of the part",
    "of my",
];

/// Whether `text` asks a question (a sentence ending in "?", or a question word first).
#[must_use]
pub fn is_question(text: &str) -> bool {
    if text.trim_end().ends_with('?') || text.contains("? ") {
        return true;
    }
    let first = first_word_after_leads(text);
    let Some((at, word)) = first else {
        return false;
    };
    if !INTERROGATIVES.contains(&word.as_str()) {
        return false;
    }
    let next = words(&text[at..]).get(1).map(|(_, w)| normalize(w));
    if WH_WORDS.contains(&word.as_str()) {
        // "What I could be paid for is ...", "What the world needs from me is ...": a cleft
        // says what is, it does not ask.
        let cleft = matches!(word.as_str(), "what" | "who")
            && (next.is_some_and(|n| matches!(n.as_str(), "i" | "i'm" | "i'd" | "you"))
                || words(&text[at..])
                    .iter()
                    .skip(3)
                    .any(|(_, w)| matches!(normalize(w).as_str(), "is" | "are")));
        return !cleft;
    }
    // "could also get paid doing ..." drops its subject; "could you ..." asks.
    next.is_some_and(|n| SUBJECTS.contains(&n.as_str()))
}

fn first_word_after_leads(text: &str) -> Option<(usize, String)> {
    let mut rest = text.trim_start();
    loop {
        let lead = QUESTION_LEADS
            .iter()
            .filter_map(|l| find_phrase(rest, l, 0).filter(|(at, _)| *at == 0))
            .map(|(_, end)| end)
            .max();
        match lead {
            Some(end) if rest.len() > end => {
                rest = rest[end..].trim_start_matches(|c: char| {
                    c.is_whitespace() || matches!(c, ',' | ':' | '.' | '-')
                });
            }
            _ => break,
        }
    }
    let offset = text.len() - rest.len();
    words(rest)
        .first()
        .map(|(at, w)| (offset + at, normalize(w)))
}

/// Whether a question is a polite request to edit ("Could you please add ...", "Would you mind
/// dropping ...", "Can you remove ...").
#[must_use]
pub fn is_request(text: &str) -> bool {
    let all: Vec<String> = words(text).iter().map(|(_, w)| normalize(w)).collect();
    all.windows(2).enumerate().any(|(i, pair)| {
        let asks = matches!(pair[0].as_str(), "could" | "can" | "would" | "will")
            && matches!(pair[1].as_str(), "you" | "u")
            || pair[0] == "you" && pair[1] == "mind"
            || pair[0] == "please";
        asks && all[i + 1..]
            .iter()
            .take(7)
            .any(|w| EDIT_VERBS.contains(&w.as_str()))
    })
}

/// A removal: the words to remove, the rest of its clause (where a part may be named), and the
/// text before the verb (what "that" points back to).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removal {
    pub object: String,
    pub pointer: String,
    pub before: String,
}

/// The removal `text` asks for, if any.
#[must_use]
pub fn removal(text: &str) -> Option<Removal> {
    let (verb_at, verb_end) = find_verb(text, REMOVE_VERBS).or_else(|| take_out(text))?;
    let tail = &text[verb_end..];
    let clause_end = tail
        .find(['.', ';', '!', '?', '—', '–'])
        .unwrap_or(tail.len());
    let clause = &tail[..clause_end];
    let (object, pointer) = if text[verb_at..verb_end].split_whitespace().count() == 1
        && starts_take(&text[verb_at..verb_end])
    {
        // "take that off the paid stuff": the object sits between the verb and "out"/"off".
        let (at, end) = ["out", "off", "away"]
            .iter()
            .filter_map(|p| find_phrase(clause, p, 0))
            .min()?;
        let pointer = clause[end..].trim_start_matches(" of").trim();
        (&clause[..at], pointer)
    } else {
        let cut = clause.find(',').unwrap_or(clause.len());
        let (object, rest) = clause.split_at(cut);
        match POINTER_STARTS
            .iter()
            .filter_map(|p| find_phrase(object, p, 0))
            .filter(|(at, _)| *at > 0)
            .min()
        {
            Some((at, _)) => (&object[..at], object[at..].trim()),
            None => (object, rest),
        }
    };
    // In a message without punctuation the object ends where the next clause begins.
    let object = split(object).into_iter().next().unwrap_or("");
    Some(Removal {
        object: clean_object(object),
        pointer: pointer.to_owned(),
        before: text[..verb_at].to_owned(),
    })
}

fn starts_take(verb: &str) -> bool {
    matches!(normalize(verb).as_str(), "take" | "taking" | "took")
}

/// "take X out|off": the verb alone, when "out" or "off" follows within eight words.
fn take_out(text: &str) -> Option<(usize, usize)> {
    let (at, end) = find_verb(text, &["take", "taking", "took"])?;
    let tail = &text[end..];
    let near = words(tail)
        .iter()
        .take(9)
        .any(|(_, w)| matches!(normalize(w).as_str(), "out" | "off" | "away"));
    near.then_some((at, end))
}

/// The first of `verbs` standing where an imperative or a requested verb stands.
fn find_verb(text: &str, verbs: &[&str]) -> Option<(usize, usize)> {
    verbs
        .iter()
        .filter_map(|verb| {
            let mut from = 0;
            while let Some((at, end)) = find_phrase(text, verb, from) {
                if verb_position(text, at) {
                    return Some((at, end));
                }
                from = end;
            }
            None
        })
        .min()
}

fn verb_position(text: &str, at: usize) -> bool {
    let before = text[..at].trim_end();
    if before.is_empty() || before.ends_with(['.', ',', ':', ';', '!', '-', '—', '(']) {
        return true;
    }
    words(before)
        .last()
        .is_some_and(|(_, w)| VERB_MAY_FOLLOW.contains(&normalize(w).as_str()))
}

/// A swap: the words to change, the words to put instead, and the rest of the clause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Swap {
    pub old: String,
    pub new: String,
    /// Where the person names the part ("in my vocation").
    pub pointer: String,
}

/// The swap `text` asks for ("change X to Y", "swap X for Y", "replace X with Y", "change X so
/// that it says Y").
#[must_use]
pub fn swap(text: &str) -> Option<Swap> {
    for (verbs, links) in [
        (
            &["change", "changing", "switch", "turn"][..],
            &[
                "so that it says",
                "so it says",
                "to say",
                "into",
                "to",
                "for",
            ][..],
        ),
        (&["swap", "swapping"][..], &["for", "with", "to"][..]),
        (&["replace", "replacing"][..], &["with", "by"][..]),
    ] {
        let Some((_, end)) = find_verb(text, verbs) else {
            continue;
        };
        let tail = &text[end..];
        let clause = &tail[..tail.find(['.', ';', '!', '?']).unwrap_or(tail.len())];
        let Some((at, link_end)) = links
            .iter()
            .filter_map(|l| find_phrase(clause, l, 0))
            .min_by_key(|(at, end)| (*at, std::cmp::Reverse(*end)))
        else {
            continue;
        };
        let old = clean_object(&clause[..at]);
        let tail = clause[link_end..].trim_end_matches(" instead");
        // "... to training students in my vocation": the part is named after the new words.
        let (new, pointer) = match POINTER_STARTS
            .iter()
            .filter_map(|p| find_phrase(tail, p, 0))
            .filter(|(at, _)| *at > 0)
            .min()
        {
            Some((p_at, _)) => (&tail[..p_at], tail[p_at..].trim()),
            None => (tail, ""),
        };
        let new = clean_object(new);
        if !old.is_empty() && !new.is_empty() {
            return Some(Swap {
                old,
                new,
                pointer: pointer.to_owned(),
            });
        }
    }
    None
}

/// Words around an object that only point at it ("the part about", "bit", "stuff").
const OBJECT_LEADS: &[&str] = &[
    "the part about",
    "the part of",
    "the part where",
    "the bit about",
    "the bit of",
    "the bit where",
    "the stuff about",
    "the line about",
    "the thing about",
    "the whole",
    "the",
    "that",
    "this",
    "those",
    "these",
    "all",
    "any",
    "my",
    "your",
    "it",
];
const OBJECT_TAILS: &[&str] = &[
    "part",
    "bit",
    "thing",
    "stuff",
    "piece",
    "line",
    "section",
    "please",
    "too",
    "as well",
    "somewhere",
    "in there",
    "from there",
    "from it",
    "for me",
    "if you don't mind",
    "instead",
];

/// An object without the words that only point at it and without quotes.
#[must_use]
pub fn clean_object(object: &str) -> String {
    let mut text = trim_joints(object.trim())
        .trim_matches(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | ',' | ':'))
        .to_owned();
    loop {
        let before = text.clone();
        for lead in OBJECT_LEADS {
            if let Some((0, end)) = find_phrase(&text, lead, 0)
                && end < text.len()
            {
                text = text[end..].trim_start().to_owned();
            }
        }
        for tail in OBJECT_TAILS {
            let lower = text.to_lowercase();
            if lower.len() > tail.len() && lower.ends_with(&format!(" {tail}")) {
                text = text[..text.len() - tail.len()].trim_end().to_owned();
            }
        }
        text = text
            .trim_matches(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | ',' | ':'))
            .to_owned();
        if text == before {
            return text;
        }
    }
}

/// Whether an object only points back ("that", "it"): what it means is said before the verb.
#[must_use]
pub fn points_back(object: &str) -> bool {
    object.is_empty()
        || matches!(
            normalize(object).as_str(),
            "that" | "it" | "this" | "them" | "those" | "these" | "one"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_and_requests_are_told_apart() {
        assert!(is_question("so what type am i."));
        assert!(is_question("how do I find time for chess."));
        assert!(is_question("Any tips?"));
        assert!(!is_question("What I could be paid for is editing."));
        assert!(!is_question("I love maps."));
        assert!(is_request("Could you please add my choir?"));
        assert!(is_request("Would you mind dropping the choir?"));
        assert!(!is_request("Can you suggest a goal?"));
    }

    #[test]
    fn removals_name_their_object_and_pointer() {
        let r = removal("drop the chess part. no time anymore.").unwrap();
        assert_eq!(r.object, "chess");
        let r = removal("remove intros from strengths.").unwrap();
        assert_eq!(
            (r.object.as_str(), r.pointer.as_str()),
            ("intros", "from strengths")
        );
        let r = removal("I sold the boat so take that off the money part.").unwrap();
        assert!(points_back(&r.object));
        assert_eq!(r.pointer, "the money part");
        assert!(r.before.contains("sold the boat"));
        assert_eq!(
            removal("Would you mind dropping the part about my cousins?")
                .unwrap()
                .object,
            "cousins"
        );
        assert_eq!(removal("I lose track of time gardening."), None);
        assert_eq!(removal("I drop my kids at school."), None);
    }

    #[test]
    fn swaps_name_old_and_new() {
        assert_eq!(
            swap("please change the baking bit to cooking.").unwrap(),
            Swap {
                old: "baking".into(),
                new: "cooking".into(),
                pointer: String::new(),
            }
        );
        assert_eq!(
            swap("swap 'golf' for 'tennis'.").unwrap(),
            Swap {
                old: "golf".into(),
                new: "tennis".into(),
                pointer: String::new(),
            }
        );
    }
}
