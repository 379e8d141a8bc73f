//! Mirrors, not copies: each Ikigai summary says back, in the second person, the things the
//! person named (clause by clause, asides, hedges and chat set aside, bullets made a sentence),
//! shorter than a long answer and never a long run of its words; a goal is said back as what
//! the person wants; the overlap says what actually recurs across the four answers, or that
//! they stand apart. An answer the engine cannot read as English keeps its words as written.

use std::collections::{BTreeMap, BTreeSet};

use domain::profile::EditableField;

use super::chat;
use super::clauses::{is_aside, split, without_hedges};
use super::coach::edit::VERB_STARTS;
use super::coach::voice::part_label;
use super::grounding::{all_grounded, stem};
use super::mirror::{is_clause, lower_first, reads_english, turn_pronouns};
use super::summaries::{SENTENCE_MAX_CHARS, summary};
use super::text::{capitalize_first, content_words, cut, normalize, words};

/// A summary of an answer longer than this many words is at most [`SHARE_PERCENT`] of it.
const LONG_ANSWER_WORDS: usize = 30;
const SHARE_PERCENT: usize = 78;
/// No run of this many of the answer's words in a row is said back.
const RUN_LIMIT: usize = 14;
/// A mirror says a few clear sentences: at most this many, of at most this many words in all.
const MAX_SENTENCES: usize = 4;
const MAX_WORDS: usize = 80;

/// The mirror of one Ikigai answer in `field`'s words.
#[must_use]
pub fn ikigai(field: EditableField, answer: &str) -> String {
    if !reads_english(answer) {
        return summary(answer);
    }
    // An aside in brackets is read as one set off by commas.
    let cleaned = chat::clean(&answer.replace('(', ", ").replace(')', ""), &[]);
    let mut said: Vec<String> = Vec::new();
    let mut fragments: Vec<String> = Vec::new();
    for clause in split(&cleaned) {
        if is_aside(clause) {
            continue;
        }
        let plain = without_hedges(clause);
        let (plain, also) = without_also(&plain);
        if content_words(&plain).is_empty() {
            continue;
        }
        if starts_subordinate(&plain)
            && let Some(last) = said.last_mut()
        {
            // "..., and also when I make posters": the clause belongs to the one before it.
            let joined = format!(
                "{}, and {}",
                last.trim_end_matches('.'),
                turn_pronouns(&plain)
            );
            *last = sentence(&joined, false);
        } else if verb_led(&plain) {
            flush(field, &mut fragments, &mut said);
            said.push(sentence(&format!("you {}", turn_pronouns(&plain)), also));
        } else if speaks(&plain) {
            flush(field, &mut fragments, &mut said);
            said.push(sentence(&addressed(field, &turn_pronouns(&plain)), also));
        } else {
            fragments.push(lower_first(&turn_pronouns(&plain)));
        }
    }
    flush(field, &mut fragments, &mut said);
    if said.is_empty() {
        return summary(answer);
    }
    fit(answer, said)
}

/// Whether a clause has a subject and verb of its own ("I train the new guys", "people come
/// to me"), rather than being a phrase ("fishing on Sundays").
fn speaks(clause: &str) -> bool {
    let all = words(clause);
    let first = all.first().map(|(_, w)| normalize(w)).unwrap_or_default();
    let subject = all
        .iter()
        .any(|(_, w)| matches!(normalize(w).as_str(), "i" | "i'm" | "i've" | "i'd" | "i'll"));
    let verb_after_noun = all.windows(2).any(|pair| {
        let verb = normalize(pair[1].1);
        // A listed verb, or a past tense ("reading opened every door"), after a word that can
        // be its subject.
        (CLAUSE_VERBS.contains(&verb.as_str()) || verb.len() > 4 && verb.ends_with("ed"))
            && !NOT_SUBJECTS.contains(&normalize(pair[0].1).as_str())
    });
    subject
        || matches!(
            first.as_str(),
            "my" | "people" | "they" | "we" | "everyone" | "nobody"
        )
        || is_clause(clause)
        || verb_after_noun
}

/// Verbs that make a clause of the words before them ("the young mothers ask my advice").
const CLAUSE_VERBS: &[&str] = &[
    "ask", "asks", "asked", "come", "comes", "came", "bring", "brings", "brought", "call", "calls",
    "called", "tell", "tells", "told", "say", "says", "said", "rely", "relies", "seek", "seeks",
    "send", "sends", "trust", "trusts", "need", "needs", "know", "knows", "think", "thinks",
    "ping", "pings", "hire", "hires", "pay", "pays",
];
/// Words after which such a verb is no clause's verb ("to ask", "for fix", "the call").
const NOT_SUBJECTS: &[&str] = &[
    "to", "for", "of", "the", "a", "an", "my", "your", "their", "and", "or", "at", "with", "in",
    "on", "by", "about", "from", "like", "i", "you",
];

/// A phrase that starts with a verb continues the person's own clause ("and live on my
/// pension"): it is said back with its subject.
fn verb_led(phrase: &str) -> bool {
    let first = words(phrase)
        .first()
        .map(|(_, w)| normalize(w))
        .unwrap_or_default();
    (VERB_STARTS.contains(&first.as_str()) && !first.ends_with("ing"))
        || matches!(first.as_str(), "could" | "can" | "would" | "will" | "might")
}

/// A clause that does not speak to the person ("Old people need someone to listen") set in
/// the part's lead, so that the summary always says "you".
fn addressed(field: EditableField, clause: &str) -> String {
    let to_you = words(clause).iter().any(|(_, w)| {
        matches!(
            normalize(w).as_str(),
            "you" | "your" | "you're" | "you've" | "you'd" | "yours" | "yourself"
        )
    });
    if to_you {
        return clause.to_owned();
    }
    let clause = lower_first(clause);
    match field {
        EditableField::LoveSummary => format!("what you love: {clause}"),
        EditableField::StrengthSummary => format!("what you are good at: {clause}"),
        EditableField::MissionSummary => format!("you care that {clause}"),
        EditableField::VocationSummary => format!("your work: {clause}"),
        _ => clause,
    }
}

fn starts_subordinate(clause: &str) -> bool {
    words(clause).first().is_some_and(|(_, w)| {
        matches!(
            normalize(w).as_str(),
            "when" | "while" | "whenever" | "because" | "if"
        )
    })
}

fn without_also(clause: &str) -> (String, bool) {
    let lower = clause.to_lowercase();
    for lead in ["and also ", "also ", "and "] {
        if lower.starts_with(lead) {
            return (clause[lead.len()..].to_owned(), lead.contains("also"));
        }
    }
    (clause.to_owned(), false)
}

/// The phrases gathered so far, as one sentence in the part's frame.
fn flush(field: EditableField, fragments: &mut Vec<String>, said: &mut Vec<String>) {
    if fragments.is_empty() {
        return;
    }
    let joiner = if fragments.iter().any(|f| f.contains(',')) {
        "; "
    } else {
        ", "
    };
    let list = match fragments.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(joiner)),
        None => String::new(),
    };
    let framed = match field {
        EditableField::LoveSummary => format!("You love {list}"),
        EditableField::StrengthSummary => format!("You are good at {list}"),
        EditableField::MissionSummary => format!("You want to help {list}"),
        EditableField::VocationSummary => format!("Your work: {list}"),
        _ => capitalize_first(&list),
    };
    said.push(sentence(&framed, false));
    fragments.clear();
}

/// A clause as a sentence: capital first, "do" of emphasis dropped, no doubled word, a stop.
fn sentence(clause: &str, also: bool) -> String {
    // "I should like to" is a wish, not a verdict: said back as "you would like to".
    let mut text = clause
        .replace("you do ", "you ")
        .replace("You do ", "You ")
        .replace("should like", "would like")
        .replace("should love", "would love");
    if also && let Some(rest) = text.strip_prefix("you ") {
        text = format!("you also {rest}");
    }
    let mut out: Vec<&str> = Vec::new();
    for word in text.split_whitespace() {
        let repeated = out.last().is_some_and(|last| {
            normalize(last.trim_matches(|c: char| !c.is_alphanumeric()))
                == normalize(word.trim_matches(|c: char| !c.is_alphanumeric()))
                && word.chars().any(char::is_alphanumeric)
        });
        if !repeated {
            out.push(word);
        }
    }
    let text = out.join(" ");
    let text = text.trim_end_matches([',', ';', ':', ' ', '-', '.']);
    format!("{}.", capitalize_first(text))
}

/// The sentences, kept in order while they fit: under [`SHARE_PERCENT`] of a long answer, and
/// with no run of [`RUN_LIMIT`] or more of its words.
fn fit(answer: &str, said: Vec<String>) -> String {
    let answer_words = count_words(answer);
    let budget = if answer_words > LONG_ANSWER_WORDS {
        (answer_words * SHARE_PERCENT / 100).min(MAX_WORDS)
    } else {
        MAX_WORDS
    };
    let long = answer_words > LONG_ANSWER_WORDS;
    let source = if long { neutral(answer) } else { Vec::new() };
    let mut kept: Vec<String> = Vec::new();
    let mut used = 0;
    for sentence in said {
        if kept.len() == MAX_SENTENCES {
            break;
        }
        let sentence = cut(&shortened(&sentence, &source), SENTENCE_MAX_CHARS);
        let n = count_words(&sentence);
        if kept.contains(&sentence) || !kept.is_empty() && used + n > budget {
            continue;
        }
        // Sentences said one after another may still repeat a long run of the answer.
        let mut trial = kept.clone();
        trial.push(sentence.clone());
        if long && !kept.is_empty() && longest_run(&source, &neutral(&trial.join(" "))) > RUN_LIMIT
        {
            continue;
        }
        used += n;
        kept.push(sentence);
    }
    kept.join(" ")
}

/// Words as a reader counts them in English text: runs of plain letters, digits and
/// apostrophes ("São" is two, as a plain-text count has it), so that "shorter" holds by any
/// count.
fn count_words(text: &str) -> usize {
    text.to_lowercase()
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '\''))
        .filter(|w| !w.is_empty())
        .count()
}

/// A sentence cut at a clause break before it repeats [`RUN_LIMIT`] of the answer's words in
/// a row.
fn shortened(sentence: &str, source: &[String]) -> String {
    let mut text = sentence.to_owned();
    // First a list's joint word gives way to a comma ("logo or to make" -> "logo, to make"):
    // the run breaks and nothing the person named is lost.
    while longest_run(source, &neutral(&text)) > RUN_LIMIT {
        let Some((at, end)) = [" or ", " and "]
            .iter()
            .filter_map(|j| text.find(j).map(|at| (at, at + j.len())))
            .min()
        else {
            break;
        };
        text = format!("{}, {}", text[..at].trim_end_matches(','), &text[end..]);
    }
    while longest_run(source, &neutral(&text)) > RUN_LIMIT {
        let all = words(&text);
        let window: Vec<(usize, String)> = all
            .iter()
            .skip(4)
            .take(RUN_LIMIT - 3)
            .map(|(at, w)| (*at, normalize(w)))
            .collect();
        // The clause break that keeps the most meaning first: an aside, a relative clause,
        // then a list's joint.
        let cut = CUT_BEFORE
            .iter()
            .find_map(|b| window.iter().rev().find(|(_, w)| w == b).map(|(at, _)| *at))
            .unwrap_or_else(|| all.get(RUN_LIMIT - 2).map_or(text.len(), |(at, _)| *at));
        let mut head = text[..cut].trim_end_matches([',', ' ', ';']);
        // A cut never leaves a joining word dangling ("for fix their logo or").
        while let Some((at, last)) = words(head).last().copied() {
            if !DANGLING.contains(&normalize(last).as_str()) {
                break;
            }
            head = head[..at].trim_end_matches([',', ' ', ';']);
        }
        if head.len() >= text.len() {
            break;
        }
        text = format!("{head}.");
    }
    text
}

/// Words a long sentence is cut before, the best first.
const CUT_BEFORE: &[&str] = &[
    "especially",
    "which",
    "whose",
    "while",
    "when",
    "because",
    "who",
    "but",
    "or",
    "and",
];

/// Words a cut sentence does not end on.
const DANGLING: &[&str] = &[
    "and", "or", "but", "to", "for", "with", "of", "the", "a", "an", "in", "on", "at", "by",
    "your", "their", "like", "so", "that",
];

/// The words of `text` without pronouns, as a copy would be compared.
fn neutral(text: &str) -> Vec<String> {
    words(text)
        .into_iter()
        .map(|(_, w)| normalize(w))
        .filter(|w| {
            !matches!(
                w.as_str(),
                "i" | "me"
                    | "my"
                    | "mine"
                    | "myself"
                    | "you"
                    | "your"
                    | "yours"
                    | "yourself"
                    | "i'm"
                    | "you're"
                    | "i've"
                    | "you've"
                    | "i'd"
                    | "you'd"
                    | "i'll"
                    | "you'll"
                    | "im"
                    | "ive"
                    | "id"
            )
        })
        .collect()
}

/// The longest run of words two texts share in a row (what makes a copy a copy).
#[must_use]
pub fn longest_run(a: &[String], b: &[String]) -> usize {
    let mut best = 0;
    let mut row = vec![0usize; b.len() + 1];
    for x in a {
        let mut next = vec![0usize; b.len() + 1];
        for (j, y) in b.iter().enumerate() {
            if x == y {
                next[j + 1] = row[j] + 1;
                best = best.max(next[j + 1]);
            }
        }
        row = next;
    }
    best
}

/// A stated goal said back as what the person wants; `None` stays `None`.
#[must_use]
pub fn goal(stated: Option<&str>) -> Option<String> {
    let stated = stated.filter(|g| !g.trim().is_empty())?;
    if !reads_english(stated) {
        return Some(summary(stated));
    }
    let cleaned = chat::clean(stated, &[]);
    let mut said: Vec<String> = Vec::new();
    let mut wants: Vec<String> = Vec::new();
    let mut head: Option<String> = None;
    for piece in super::text::sentences(&cleaned) {
        let (lead, body) = match piece.split_once(": ") {
            Some((lead, body)) if words(lead).len() <= 5 => (Some(lead), body),
            _ => (None, piece),
        };
        let body = without_hedges(body.trim_end_matches('.'));
        if content_words(&body).is_empty() {
            continue;
        }
        if speaks(&body) {
            said.push(sentence(&turn_pronouns(&body), false));
        } else {
            if head.is_none() && lead.is_some_and(|l| !l.eq_ignore_ascii_case("then")) {
                head = lead.map(str::to_owned);
            }
            let body = turn_pronouns(&body);
            wants.push(match lead {
                Some(l) if l.eq_ignore_ascii_case("then") => format!("then {body}"),
                _ => body,
            });
        }
    }
    if !wants.is_empty() {
        let list = match wants.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => String::new(),
        };
        let list = lower_first(&list);
        let lead = head.map_or(String::new(), |h| format!("{h}, "));
        let first = words(&list)
            .first()
            .map(|(_, w)| normalize(w))
            .unwrap_or_default();
        let frame = if VERB_STARTS.contains(&first.as_str()) {
            "you want to"
        } else {
            "your goal:"
        };
        said.insert(0, sentence(&format!("{lead}{frame} {list}"), false));
    }
    Some(if said.is_empty() {
        summary(stated)
    } else {
        // A goal is said back whole: the person's wording of what they want matters.
        cut(&said.join(" "), domain::text::Prose::MAX)
    })
}

/// Words that recur in every kind of answer and say nothing of this person.
const GENERIC: &[&str] = &[
    "love",
    "good",
    "people",
    "help",
    "work",
    "paid",
    "time",
    "thing",
    "things",
    "stuff",
    "like",
    "want",
    "make",
    "kind",
    "sort",
    "always",
    "never",
    "also",
    "really",
    "just",
    "lot",
    "way",
    "someone",
    "something",
    "everything",
    "nothing",
    "about",
    "could",
    "would",
    "should",
    "when",
    "every",
    "more",
    "most",
    "much",
    "many",
    "other",
    "others",
    "need",
    "needs",
    "come",
    "comes",
    "money",
    "maybe",
    "still",
    "even",
    "well",
    "back",
    "around",
    "little",
    "first",
    "them",
    "they",
    "their",
    "there",
    "then",
    "than",
    "with",
    "from",
    "into",
    "over",
    "under",
    "after",
    "before",
    "because",
    "while",
    "without",
    "within",
    "between",
    "being",
    "doing",
    "going",
    "getting",
    "having",
    "making",
    "taking",
    "world",
    "life",
    "year",
    "years",
    "day",
    "days",
    "small",
    "big",
    "large",
    "great",
    "best",
    "better",
    "hard",
    "long",
    "short",
    "real",
    "whole",
    "same",
    "different",
    "right",
    "able",
    "sure",
    "free",
    "full",
    "high",
    "nice",
    "lots",
];

/// The overlap: what recurs across the four answers, in one sentence, or that they stand apart.
#[must_use]
pub fn overlap(answers: [&str; 4]) -> String {
    if !answers.iter().any(|a| reads_english(a)) {
        let quoted: Vec<String> = answers.iter().map(|a| summary(a)).collect();
        return cut(&quoted.join(" "), domain::text::Prose::MAX);
    }
    let recurring = recurring(&answers);
    if recurring.is_empty() {
        return apart(&answers);
    }
    let names: Vec<&str> = recurring.iter().map(|(w, _)| w.as_str()).collect();
    let mut parts: Vec<EditableField> = Vec::new();
    for (_, found) in &recurring {
        for field in found {
            if !parts.contains(field) {
                parts.push(*field);
            }
        }
    }
    parts.sort_by_key(|f| EditableField::ALL.iter().position(|a| a == f));
    let part_names: Vec<&str> = parts.iter().map(|f| part_label(*f)).collect();
    let names = listed(&names);
    let text = [
        format!(
            "{} {} up in {}.",
            capitalize_first(&names),
            if recurring.len() == 1 {
                "comes"
            } else {
                "come"
            },
            listed(&part_names)
        ),
        format!(
            "{} {} through all of it.",
            capitalize_first(&names),
            if recurring.len() == 1 { "runs" } else { "run" }
        ),
    ]
    .into_iter()
    .find(|text| rests_on(text, &answers))
    .unwrap_or_else(|| format!("Again and again: {names}."));
    cut(&text, domain::text::Prose::MAX)
}

/// The content words at least two of the answers share (by stem), most shared first, at most
/// three, each as the person first wrote it, with the parts it is in.
fn recurring(answers: &[&str; 4]) -> Vec<(String, Vec<EditableField>)> {
    let fields = [
        EditableField::LoveSummary,
        EditableField::StrengthSummary,
        EditableField::MissionSummary,
        EditableField::VocationSummary,
    ];
    let mut seen: BTreeMap<String, (BTreeSet<usize>, usize, String)> = BTreeMap::new();
    for (n, answer) in answers.iter().enumerate() {
        let cleaned = chat::clean(answer, &[]);
        for (at, word) in words(&cleaned) {
            let key = normalize(word);
            if !(4..=40).contains(&key.chars().count())
                || !key.chars().all(char::is_alphabetic)
                || GENERIC.contains(&key.as_str())
                || !content_words(&key).contains(&key)
            {
                continue;
            }
            let entry = seen
                .entry(stem(&key))
                .or_insert_with(|| (BTreeSet::new(), n * 10_000 + at, surface(word)));
            entry.0.insert(n);
        }
    }
    let mut found: Vec<(usize, usize, String, Vec<EditableField>)> = seen
        .into_values()
        .filter(|(answers, ..)| answers.len() >= 2)
        .map(|(answers, first, word)| {
            let parts = answers.iter().map(|i| fields[*i]).collect();
            (answers.len(), first, word, parts)
        })
        .collect();
    // The most shared first; among those, longer words (more often things than verbs).
    found.sort_by_key(|(count, first, word, _)| {
        (
            std::cmp::Reverse(*count),
            std::cmp::Reverse(word.chars().count().min(9)),
            *first,
        )
    });
    found
        .into_iter()
        .take(3)
        .map(|(.., word, parts)| (word, parts))
        .collect()
}

/// A word as the person wrote it, lower-cased unless it is a name or an acronym.
fn surface(word: &str) -> String {
    if word.chars().skip(1).any(char::is_uppercase) {
        word.to_owned()
    } else {
        word.to_lowercase()
    }
}

/// A phrase without the person's own lead ("you love long walks" -> "long walks", "you could be
/// paid for teaching" -> "teaching"), so that it can stand after the part's name.
fn without_own_lead(phrase: &str) -> String {
    let lower = phrase.to_lowercase();
    for lead in [
        "you could be paid for ",
        "you could get paid for ",
        "you could be paid to ",
        "you could get paid doing ",
        "you would love to ",
        "you love to ",
        "you love ",
        "you enjoy ",
        "you like ",
        "you work as ",
        "you work in ",
        "you work at ",
        "you could ",
        "you can ",
    ] {
        if lower.starts_with(lead) && phrase.len() > lead.len() {
            return phrase[lead.len()..].to_owned();
        }
    }
    phrase.to_owned()
}

/// Whether every sentence of `text` rests on `answers` by the service's own rule (Snowball
/// stems, NLTK stop words) and by the engine's rough one.
fn rests_on(text: &str, answers: &[&str]) -> bool {
    let rule = domain::profile::grounding::Grounding::for_material(answers);
    all_grounded(text, answers) && rule.ungrounded(text, answers).is_empty()
}

/// "a", "a and b", "a, b and c".
fn listed(items: &[&str]) -> String {
    match items.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// When nothing recurs: the first thing named in what the person loves and in what they can be
/// paid for, and that the two stand apart.
fn apart(answers: &[&str; 4]) -> String {
    let first_phrase = |answer: &str| {
        split(&chat::clean(answer, &[]))
            .into_iter()
            .find(|c| !is_aside(c))
            .map(|c| lower_first(&turn_pronouns(&without_hedges(c))))
            .map(|c| without_own_lead(&c))
            .map(|c| super::text::cut_words(&c, 12, 120))
            .unwrap_or_default()
    };
    let (love, paid) = (first_phrase(answers[0]), first_phrase(answers[3]));
    let text = format!("What you love ({love}) and what you can be paid for ({paid}) stand apart.");
    if rests_on(&text, answers) {
        text
    } else {
        format!("{}. {}.", capitalize_first(&love), capitalize_first(&paid))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LONG_LOVE: &str = "Well, I spend whole evenings in the shed fixing old clocks, and I \
        must admit I also lose track of time reading about the history of clocks, which my wife \
        finds rather dull, and every Saturday I walk the dog along the canal for hours.";

    #[test]
    fn a_long_answer_is_said_back_shorter_in_the_second_person() {
        let said = ikigai(EditableField::LoveSummary, LONG_LOVE);
        assert!(
            said.starts_with("You spend whole evenings in the shed fixing old clocks."),
            "{said}"
        );
        assert!(!said.contains(" I ") && !said.contains("my "), "{said}");
        assert!(
            words(&said).len() * 100 <= words(LONG_LOVE).len() * 80,
            "{said}"
        );
        assert!(
            longest_run(&neutral(LONG_LOVE), &neutral(&said)) <= RUN_LIMIT,
            "{said}"
        );
        assert!(!said.contains("which"), "{said}");
    }

    #[test]
    fn bullets_become_one_sentence() {
        assert_eq!(
            ikigai(
                EditableField::LoveSummary,
                "- sailing - woodwork w/ my son - chess"
            ),
            "You love sailing, woodwork with your son and chess."
        );
    }

    #[test]
    fn goals_are_what_the_person_wants() {
        assert_eq!(
            goal(Some("open my own bakery and stop working nights")).as_deref(),
            Some("You want to open your own bakery and stop working nights.")
        );
        assert_eq!(
            goal(Some("In two years I hope to run a marathon.")).as_deref(),
            Some("In two years you hope to run a marathon.")
        );
        assert_eq!(
            goal(Some("- next year: buy a van - then: travel")).as_deref(),
            Some("Next year, you want to buy a van and then travel.")
        );
        assert_eq!(goal(None), None);
    }

    #[test]
    fn the_overlap_names_what_recurs_or_says_the_answers_stand_apart() {
        let said = overlap([
            "Fixing clocks in my shed.",
            "Neighbours bring me broken clocks.",
            "Kids who never had a grandad.",
            "I could repair clocks for a fee.",
        ]);
        assert!(said.starts_with("Clocks "), "{said}");
        assert!(!said.starts_with("Again"), "{said}");
        assert!(!said.contains('…') && !said.contains('“'), "{said}");
        let apart = overlap([
            "Sailing small boats on the lake.",
            "Spreadsheets.",
            "Refugees.",
            "Accounting for small bakeries.",
        ]);
        assert!(apart.contains("stand apart"), "{apart}");
    }
}
