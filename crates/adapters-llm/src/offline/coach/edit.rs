//! Edits that keep the rest: an addition adds a sentence; a replacement replaces the sentence
//! it contradicts (the one sharing most with the words the person says are wrong, else the
//! lead one); a removal drops the list item, clause or sentence that holds the words and never
//! empties a part; a swap puts the new words where the old ones stand. New words are the
//! person's, said back in the second person as a sentence about the part.

use domain::profile::EditableField;
use domain::text::Prose;

use super::reader::locate::{best_sentence, shared, stems};
use super::reader::{Op, horizon};
use super::revise::replace_sentence;
use crate::offline::mirror::{is_clause, turn_pronouns};
use crate::offline::text::{
    capitalize_first, content_words, cut, find_phrase, join_sentences, normalize, sentences,
    without_terminator, words,
};

/// What an edit does to its part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edited {
    Text(String),
    /// It would leave the part empty: the coach asks instead.
    WouldEmpty,
    /// It changes nothing (the words are not there).
    Unchanged,
}

/// The new text of `field` (now `current`) after `op`.
#[must_use]
pub fn apply(field: EditableField, current: Option<&str>, op: &Op) -> Edited {
    let current = current.map(str::trim).filter(|c| !c.is_empty());
    let text = match (op, current) {
        (Op::Add(new), None) | (Op::Replace { new, .. } | Op::Swap { new, .. }, None) => {
            sentence_for(field, new, false)
        }
        (Op::Remove(_), None) => return Edited::Unchanged,
        (Op::Add(new), Some(current)) => {
            let added = sentence_for(field, new, true);
            let room = Prose::MAX.saturating_sub(added.chars().count() + 1);
            join_sentences(&[cut(current, room.max(1)), added])
        }
        (
            Op::Replace {
                new,
                old: Some(old),
            },
            Some(current),
        ) if is_word_swap(current, old, new) => {
            swap_words(current, old, new).unwrap_or_else(|| current.to_owned())
        }
        (Op::Replace { new, old }, Some(current)) => {
            let at = old
                .as_deref()
                .and_then(|o| best_sentence(current, &stems(o)))
                .map_or(0, |(i, _)| i);
            replace_sentence(current, at, &sentence_for(field, new, false))
        }
        (Op::Swap { old, new }, Some(current)) => match swap_words(current, old, new) {
            Some(text) => text,
            None => {
                let at = best_sentence(current, &stems(old)).map_or(0, |(i, _)| i);
                replace_sentence(current, at, &sentence_for(field, new, false))
            }
        },
        (Op::Remove(what), Some(current)) => match remove(current, what) {
            Some(left) if content_words(&left).is_empty() => return Edited::WouldEmpty,
            Some(left) => left,
            None => return Edited::Unchanged,
        },
    };
    let text = cut(text.trim(), Prose::MAX);
    if Some(text.as_str()) == current {
        Edited::Unchanged
    } else {
        Edited::Text(text)
    }
}

/// Whether a replacement is of a few words for a few words standing as written ("it's not
/// managing, it's teaching"): then they change in place and the sentence stays.
fn is_word_swap(current: &str, old: &str, new: &str) -> bool {
    let few = |t: &str| (1..=3).contains(&words(t).len());
    few(old)
        && few(new)
        && !is_clause(new)
        && find_phrase(current, &old.to_lowercase(), 0).is_some()
}

fn swap_words(text: &str, old: &str, new: &str) -> Option<String> {
    let (at, end) = find_phrase(text, &old.to_lowercase(), 0)?;
    let capital = text[at..].chars().next().is_some_and(char::is_uppercase);
    let new = turn_pronouns(new);
    let new = if capital { capitalize_first(&new) } else { new };
    Some(format!("{}{new}{}", &text[..at], &text[end..]))
}

/// `text` without the list item, clause or sentence that holds `what`; `None` when no
/// sentence holds it.
fn remove(text: &str, what: &str) -> Option<String> {
    let wanted = stems(what);
    let (index, _) = best_sentence(text, &wanted)?;
    let all = sentences(text);
    let mut left: Vec<String> = all.iter().map(|s| (*s).to_owned()).collect();
    let sentence = all[index];
    // "... nurses on the night shift.": a phrase linked at the sentence's end goes alone.
    let linked = find_phrase(sentence, &what.trim().to_lowercase(), 0)
        .and_then(|(at, end)| super::revise::without_clause(sentence, at, end))
        .filter(|kept| super::revise::says_something(kept))
        .map(|kept| capitalize_first(&kept));
    match linked.or_else(|| without_item(sentence, &wanted)) {
        Some(kept) => left[index] = kept,
        None => {
            left.remove(index);
        }
    }
    Some(join_sentences(&left))
}

/// Separators of a list, longest first at one place.
const SEPARATORS: &[&str] = &["; ", ", and ", ", or ", ", ", " and ", " or "];

/// The sentence without the list item that holds `wanted`; `None` when it is no list or the
/// item is all it says.
fn without_item(sentence: &str, wanted: &std::collections::BTreeSet<String>) -> Option<String> {
    let body = without_terminator(sentence);
    let end = &sentence[body.len()..];
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let lower = body.to_lowercase();
    let mut at = 0;
    while at < body.len() {
        let found = SEPARATORS
            .iter()
            .find(|s| lower[at..].starts_with(*s) && lower.is_char_boundary(at));
        match found {
            Some(sep) => {
                cuts.push((at, at + sep.len()));
                at += sep.len();
            }
            None => at += lower[at..].chars().next().map_or(1, char::len_utf8),
        }
    }
    if cuts.is_empty() {
        return None;
    }
    let mut items: Vec<&str> = Vec::new();
    let mut start = 0;
    for (a, b) in &cuts {
        items.push(&body[start..*a]);
        start = *b;
    }
    items.push(&body[start..]);
    let (k, n) = items
        .iter()
        .enumerate()
        .map(|(i, item)| (i, shared(wanted, item)))
        .max_by_key(|(i, n)| (*n, std::cmp::Reverse(*i)))?;
    if n == 0 {
        return None;
    }
    let mut seps: Vec<&str> = cuts.iter().map(|(a, b)| &body[*a..*b]).collect();
    let mut kept: Vec<String> = items.iter().map(|s| (*s).to_owned()).collect();
    if k == 0 {
        // The first item carries the frame ("You love fishing"): the next item takes its place
        // behind the frame's words.
        let first = items[0];
        let frame_end = words(first)
            .iter()
            .find(|(_, w)| shared(wanted, w) > 0)
            .map_or(0, |(at, _)| *at);
        kept[0] = format!("{}{}", &first[..frame_end], kept[1].trim_start());
        kept.remove(1);
        seps.remove(0);
    } else {
        kept.remove(k);
        seps.remove(k - 1);
    }
    // "A, B and C" less C is "A and B".
    let had_and = cuts
        .iter()
        .any(|(a, b)| matches!(body[*a..*b].trim(), ", and" | "and" | ", or" | "or"));
    if had_and
        && let Some(last) = seps.last_mut()
        && *last == ", "
    {
        *last = " and ";
    }
    let mut out = kept[0].clone();
    for (sep, item) in seps.iter().zip(&kept[1..]) {
        out.push_str(sep);
        out.push_str(item);
    }
    let out = out.trim();
    (!content_words(out).is_empty()).then(|| format!("{}{}", capitalize_first(out), end.trim()))
}

/// Verbs a goal or a subject-less clause starts with.
pub const VERB_STARTS: &[&str] = &[
    "want",
    "need",
    "love",
    "like",
    "enjoy",
    "get",
    "finish",
    "start",
    "launch",
    "close",
    "hit",
    "hire",
    "build",
    "open",
    "write",
    "run",
    "buy",
    "take",
    "learn",
    "become",
    "be",
    "have",
    "make",
    "save",
    "pay",
    "move",
    "travel",
    "publish",
    "teach",
    "go",
    "sell",
    "grow",
    "raise",
    "ship",
    "release",
    "lose",
    "find",
    "complete",
    "earn",
    "improve",
    "visit",
    "retire",
    "quit",
    "stop",
    "create",
    "sort",
    "help",
    "spend",
    "work",
    "try",
    "train",
    "exit",
    "fix",
    "keep",
    "settle",
    "volunteer",
    "read",
    "do",
    "join",
    "pass",
    "see",
    "live",
];
const MODALS: &[&str] = &["could", "can", "would", "will", "might", "should"];
/// Words that make a mission's phrase about people.
const PEOPLE: &[&str] = &[
    "people",
    "guys",
    "kids",
    "children",
    "families",
    "women",
    "men",
    "founders",
    "owners",
    "teachers",
    "mothers",
    "moms",
    "dads",
    "fathers",
    "parents",
    "vendors",
    "folks",
    "students",
    "veterans",
    "refugees",
    "immigrants",
    "girls",
    "boys",
    "youth",
    "workers",
    "neighbours",
    "neighbors",
    "friends",
    "ones",
    "those",
    "anyone",
    "someone",
    "nurses",
    "patients",
    "ngos",
    "seniors",
    "elders",
    "artists",
    "mums",
];

/// The person's words about `field` as one sentence in the second person. `adding` says the
/// sentence adds to what the part already says ("You also love ...").
#[must_use]
pub fn sentence_for(field: EditableField, said: &str, adding: bool) -> String {
    let said = without_terminator(said.trim()).trim();
    let first = words(said)
        .first()
        .map(|(_, w)| normalize(w))
        .unwrap_or_default();
    let also = if adding { "also " } else { "" };
    let turned = turn_pronouns(said);
    let body = if matches!(first.as_str(), "i" | "i'm" | "i've" | "i'd" | "i'll" | "my") {
        turned
    } else if first == "they" {
        format!("people{}", &turned[4..])
    } else if MODALS.contains(&first.as_str()) {
        let (_, rest) = turned.split_at(first.len());
        format!("you {first} {also}{}", rest.trim_start())
    } else if field.is_nullable() {
        goal_sentence(said, &first, &turned)
    } else if VERB_STARTS.contains(&first.as_str()) && !is_gerund(&first) {
        format!("you {also}{turned}")
    } else if is_clause(said) {
        turned
    } else {
        fragment(field, &turned, also)
    };
    finish(&body)
}

fn is_gerund(word: &str) -> bool {
    word.len() > 4 && word.ends_with("ing")
}

fn goal_sentence(said: &str, first: &str, turned: &str) -> String {
    if VERB_STARTS.contains(&first) {
        return format!("you want to {turned}");
    }
    if first == "to" {
        return format!("you want {turned}");
    }
    if horizon::find(said).is_some() && is_clause(said) {
        return turned.to_owned();
    }
    format!("your goal: {turned}")
}

fn fragment(field: EditableField, phrase: &str, also: &str) -> String {
    let gerund = words(phrase)
        .first()
        .is_some_and(|(_, w)| is_gerund(&normalize(w)));
    match field {
        EditableField::LoveSummary => format!("you {also}love {phrase}"),
        EditableField::StrengthSummary => format!("you're {also}good at {phrase}"),
        EditableField::MissionSummary => {
            let people = words(phrase)
                .iter()
                .any(|(_, w)| PEOPLE.contains(&normalize(w).as_str()));
            if people {
                format!("you {also}want to help {phrase}")
            } else {
                format!("you {also}care about {phrase}")
            }
        }
        EditableField::VocationSummary if find_phrase(phrase, "paid", 0).is_some() => {
            format!("you could {also}earn from {phrase}")
        }
        EditableField::VocationSummary if gerund || !also.is_empty() => {
            format!("you could {also}be paid for {phrase}")
        }
        EditableField::VocationSummary => format!("your work: {phrase}"),
        EditableField::OverlapNarrative => format!("what ties it all together: {phrase}"),
        EditableField::NearTermGoalSummary | EditableField::LongTermGoalSummary => {
            format!("your goal: {phrase}")
        }
    }
}

/// A sentence: capital first, no doubled word, a full stop at the end.
fn finish(body: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for word in body.split_whitespace() {
        let same = out.last().is_some_and(|last| {
            last.trim_matches(|c: char| !c.is_alphanumeric())
                .eq_ignore_ascii_case(word.trim_matches(|c: char| !c.is_alphanumeric()))
                && word.chars().any(char::is_alphanumeric)
        });
        if !same {
            out.push(word);
        }
    }
    let text = out.join(" ");
    let text = text.trim_end_matches([',', ';', ':', ' ', '-', '—']);
    let text = capitalize_first(text);
    if text.ends_with(['.', '!', '?']) {
        text
    } else {
        format!("{text}.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use EditableField::{
        LoveSummary as Love, MissionSummary as Mission, NearTermGoalSummary as Near,
        StrengthSummary as Strength, VocationSummary as Vocation,
    };

    fn text(edited: Edited) -> String {
        match edited {
            Edited::Text(t) => t,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn new_words_read_as_a_sentence_in_the_second_person() {
        assert_eq!(
            sentence_for(Love, "chess on fridays", true),
            "You also love chess on fridays."
        );
        assert_eq!(sentence_for(Strength, "I can weld", true), "You can weld.");
        assert_eq!(
            sentence_for(Vocation, "could get paid doing tiling", true),
            "You could also get paid doing tiling."
        );
        assert_eq!(
            sentence_for(Mission, "the older guys at the depot", true),
            "You also want to help the older guys at the depot."
        );
        assert_eq!(
            sentence_for(Near, "launch my shop", false),
            "You want to launch your shop."
        );
        assert_eq!(
            sentence_for(Strength, "they come to me for my my maps", false),
            "People come to you for your maps."
        );
    }

    #[test]
    fn a_removal_drops_the_item_and_keeps_the_list() {
        let love = "You love fishing, chess and golf. You cook on Sundays.";
        assert_eq!(
            text(apply(Love, Some(love), &Op::Remove("chess".into()))),
            "You love fishing and golf. You cook on Sundays."
        );
        assert_eq!(
            text(apply(Love, Some(love), &Op::Remove("fishing".into()))),
            "You love chess and golf. You cook on Sundays."
        );
        assert_eq!(
            text(apply(Love, Some(love), &Op::Remove("cooking".into()))),
            "You love fishing, chess and golf."
        );
        assert_eq!(
            apply(Love, Some("You cook."), &Op::Remove("cooking".into())),
            Edited::WouldEmpty
        );
        assert_eq!(
            apply(Love, Some(love), &Op::Remove("tennis".into())),
            Edited::Unchanged
        );
    }

    #[test]
    fn a_replacement_takes_the_place_of_what_it_contradicts() {
        let love = "You love fishing. You cook on Sundays.";
        let op = Op::Replace {
            new: "baking bread".into(),
            old: Some("cooking".into()),
        };
        assert_eq!(
            text(apply(Love, Some(love), &op)),
            "You love fishing. You love baking bread."
        );
        let add = Op::Add("chess".into());
        assert_eq!(
            text(apply(Love, Some(love), &add)),
            "You love fishing. You cook on Sundays. You also love chess."
        );
    }
}
