//! The cue of one sentence of the person's: does it correct, add to, swap words in, remove from
//! or compare within a part of the profile, or state a goal, and with which of their words? A
//! cue says nothing yet about which part; `corrections` decides that. Every value is a slice of
//! the person's sentence.

use domain::profile::EditableField;

use super::cue_words::{
    ADD_CUES, CONTRAST_SEPARATORS, LEAD_CUES, LONG, NEAR, POINTERS, POLITE, REMOVE_CUES,
    REMOVE_LEADS, REMOVE_TAILS, STATEMENTS, WANTS, WRONG,
};
use super::parts::{named, spoken, starts_with_name};
use crate::offline::mirror::without_fillers;
use crate::offline::text::{find_phrase, normalize, without_terminator, words};

/// What a sentence asks to do, before it meets a part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// The part is said anew by this clause of the person's: it replaces the sentence that holds
    /// `anchor`, else the part's first sentence (its core).
    Restate {
        said: String,
        anchor: Option<String>,
    },
    /// `old` becomes `new` where the part holds `old`.
    Swap { old: String, new: String },
    /// This is added to the part.
    Add(String),
    /// The sentence or clause holding these words leaves the part.
    Remove(String),
    /// A goal stated with its horizon: the goal becomes this clause.
    Goal(String),
}

/// One sentence's cue: the edit, the words of the sentence outside its values (where a part is
/// named, "to my strengths"), and the goal horizon it names, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cue {
    pub edit: Edit,
    pub rest: String,
    pub horizon: Option<EditableField>,
}

/// What one sentence holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    Cue(Cue),
    /// "You got my vocation wrong.": the next sentence says what is right.
    Wrong,
    /// Nothing to change.
    Nothing,
}

/// At most this many words in the old part of a swap.
const OLD_MAX_WORDS: usize = 6;
/// At most this many words in the new part of a swap.
const NEW_MAX_WORDS: usize = 20;

/// The goal horizon `text` names, if any.
#[must_use]
pub fn horizon(text: &str) -> Option<EditableField> {
    let at = |list: &[&str]| {
        list.iter()
            .filter_map(|p| find_phrase(text, p, 0).map(|(at, _)| at))
            .min()
    };
    match (at(NEAR), at(LONG)) {
        (Some(n), Some(l)) if l < n => Some(EditableField::LongTermGoalSummary),
        (Some(_), _) => Some(EditableField::NearTermGoalSummary),
        (None, Some(_)) => Some(EditableField::LongTermGoalSummary),
        (None, None) => None,
    }
}

/// Reads one sentence.
#[must_use]
pub fn find(sentence: &str) -> Found {
    let question = without_terminator(sentence).len() < sentence.trim_end().len()
        && sentence.trim_end().ends_with('?');
    let body = without_terminator(sentence);
    let (opened, lead) = strip_lead(body);
    let (opened, polite) = strip_polite(opened);
    if question && !polite {
        return Found::Nothing;
    }
    let cue = |edit, rest: String| {
        Found::Cue(Cue {
            edit,
            horizon: horizon(&rest),
            rest,
        })
    };
    if let Some((what, rest)) = removal(opened) {
        return cue(Edit::Remove(what), rest);
    }
    if let Some((added, rest)) = addition(opened) {
        return cue(Edit::Add(added), rest);
    }
    if question {
        return Found::Nothing;
    }
    if let Some((goal, rest)) = goal(opened) {
        return cue(Edit::Goal(goal), rest);
    }
    if let Some((old, new, rest)) = contrast(opened) {
        return cue(Edit::Swap { old, new }, rest);
    }
    if let Some((old, new, rest)) = exchange(opened) {
        return cue(Edit::Swap { old, new }, rest);
    }
    if let Some((said, anchor)) = comparison(opened) {
        let rest = outside(body, &[&said]);
        return cue(restate(&said, Some(anchor)), rest);
    }
    if let Some(said) = statement(opened) {
        let rest = outside(body, &[said]);
        return cue(restate(said, None), rest);
    }
    if let Some(end) = WRONG
        .iter()
        .filter_map(|w| find_phrase(body, w, 0).map(|(_, end)| end))
        .min()
        && wrong_points_at_a_part(body)
    {
        // "My strengths section is off: I'm great at ..." says what is right after a colon.
        let after = &body[end..];
        let value = after
            .find([':', '—', '–'])
            .map(|at| trim_separators(&after[at..]))
            .filter(|v| !v.is_empty());
        return match value {
            Some(said) => cue(restate(said, None), body[..end].to_owned()),
            None => Found::Wrong,
        };
    }
    if lead && !without_fillers(opened).is_empty() {
        let said = without_fillers(opened);
        let said = said.strip_prefix("that ").unwrap_or(said);
        if let Some((old, new, rest)) = reversed_contrast(said) {
            return cue(Edit::Swap { old, new }, outside(body, &[]) + &rest);
        }
        let rest = outside(body, &[said]);
        return cue(restate(said, None), rest);
    }
    if named(body).is_some()
        && let Some((old, new, _)) = reversed_contrast(opened)
    {
        let rest = outside(body, &[&old, &new]);
        return cue(Edit::Swap { old, new }, rest);
    }
    Found::Nothing
}

fn restate(said: &str, anchor: Option<String>) -> Edit {
    Edit::Restate {
        said: said.to_owned(),
        anchor,
    }
}

/// Whether a "that's wrong" sentence names the part it means (or says "that"/"it").
fn wrong_points_at_a_part(body: &str) -> bool {
    named(body).is_some() || words(body).len() <= 6
}

/// `body` without its lead correction cue ("Actually, ...", "One correction: ..."), and whether
/// there was one.
fn strip_lead(body: &str) -> (&str, bool) {
    let mut text = body.trim_start();
    let mut lead = false;
    loop {
        let rest = match cue_at_start(text, LEAD_CUES) {
            Some(end) => {
                let rest = trim_separators(&text[end..]);
                if rest.is_empty() {
                    return (text, lead);
                }
                lead = true;
                rest
            }
            None => without_fillers(text),
        };
        if rest.len() == text.len() {
            return (text, lead);
        }
        text = rest;
    }
}

fn strip_polite(text: &str) -> (&str, bool) {
    let mut rest = text;
    let mut polite = false;
    loop {
        let found = POLITE
            .iter()
            .filter_map(|c| find_phrase(rest, c, 0).filter(|(at, _)| *at == 0))
            .map(|(_, end)| end)
            .max();
        match found {
            Some(end) => {
                rest = trim_separators(&rest[end..]);
                polite = true;
            }
            None => return (rest, polite),
        }
    }
}

fn trim_separators(text: &str) -> &str {
    text.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, ',' | ':' | ';' | '-' | '–' | '—')
    })
}

fn trim_end_separators(text: &str) -> &str {
    text.trim_end_matches(|c: char| {
        c.is_whitespace() || matches!(c, ',' | ':' | ';' | '-' | '–' | '—')
    })
}

/// The sentence with `values` blanked out: where the part would be named.
fn outside(body: &str, values: &[&str]) -> String {
    let mut rest = body.to_owned();
    for value in values.iter().filter(|v| !v.is_empty()) {
        rest = rest.replacen(value, " ", 1);
    }
    rest
}

/// The earliest cue of `cues` at the start of `text`: its end.
fn cue_at_start(text: &str, cues: &[&str]) -> Option<usize> {
    cues.iter()
        .filter_map(|c| find_phrase(text, c, 0).filter(|(at, _)| *at == 0))
        .map(|(_, end)| end)
        .max()
}

/// "take out the part about X (from my Y)", "take X out of Y", "I don't want X in there".
fn removal(text: &str) -> Option<(String, String)> {
    let (what, pointer) = if let Some(end) = cue_at_start(text, REMOVE_CUES) {
        split_pointer(trim_separators(&text[end..]))
    } else if let Some((_, end)) = find_phrase(text, "take", 0).filter(|(at, _)| *at == 0) {
        let rest = &text[end..];
        let (out, out_end) = find_phrase(rest, "out", 0)?;
        let what = rest[..out].trim();
        let tail = rest[out_end..].trim();
        let tail = tail.strip_prefix("of ").unwrap_or(tail);
        (what, tail)
    } else {
        let (_, end) =
            find_phrase(text, "don't want", 0).or_else(|| find_phrase(text, "do not want", 0))?;
        let rest = &text[end..];
        let stop = ["in there", "in it", "in my", "in the", "there"]
            .iter()
            .filter_map(|s| find_phrase(rest, s, 0))
            .map(|(at, _)| at)
            .min()?;
        (rest[..stop].trim(), rest[stop..].trim())
    };
    let what = clean_removal(what);
    (!what.is_empty()).then(|| {
        (
            what.to_owned(),
            format!("{pointer} {}", strip_what(text, what)),
        )
    })
}

fn strip_what(text: &str, what: &str) -> String {
    text.replacen(what, " ", 1)
}

/// The words to remove without the words around them that only point ("the part about", "bit").
fn clean_removal(what: &str) -> &str {
    let mut what = trim_end_separators(what.trim());
    loop {
        let before = what;
        for tail in [", please", " please", ", thanks"] {
            if let Some(stripped) = what.strip_suffix(tail) {
                what = stripped;
            }
        }
        for lead in REMOVE_LEADS {
            if let Some((0, end)) = find_phrase(what, lead, 0)
                && end < what.len()
            {
                what = what[end..].trim_start();
            }
        }
        for tail in REMOVE_TAILS {
            let lower = what.to_lowercase();
            if lower.ends_with(&format!(" {tail}")) {
                what = what[..what.len() - tail.len()].trim_end();
            }
        }
        what = trim_end_separators(what);
        if what == before {
            return what;
        }
    }
}

/// Splits "X to my strengths" / "X in the work part" into X and the pointer to the part: the
/// last pointer word whose tail names a part, in at most six words.
fn split_pointer(text: &str) -> (&str, &str) {
    let text = trim_end_separators(text);
    let text = ["please", "thanks", "thank you"]
        .iter()
        .find_map(|p| {
            let lower = text.to_lowercase();
            lower
                .ends_with(p)
                .then(|| trim_end_separators(&text[..text.len() - p.len()]))
        })
        .unwrap_or(text);
    let mut best = None;
    for (at, word) in words(text) {
        if at == 0 || !POINTERS.contains(&normalize(word).as_str()) {
            continue;
        }
        let tail = &text[at..];
        let after = &tail[word.len()..];
        if words(tail).len() <= 7 && starts_with_name(after.trim_start()) {
            best = best.or(Some(at));
        }
    }
    match best {
        Some(at) => (text[..at].trim_end(), &text[at..]),
        None => (text, ""),
    }
}

/// "add X to my Y", "I'd add to my Y: X", "Also, I ...": the added words and the rest.
fn addition(text: &str) -> Option<(String, String)> {
    // The cue may follow a short lead-in: "For the next 3-5 years, I'd add that ...".
    let (lead_in, text) = match cue_at_start(text, ADD_CUES) {
        Some(_) => ("", text),
        None => {
            let comma = text.find(", ")?;
            let (lead_in, rest) = (&text[..comma], &text[comma + 2..]);
            if words(lead_in).len() > LEAD_IN_MAX_WORDS {
                return None;
            }
            (lead_in, rest)
        }
    };
    let end = cue_at_start(text, ADD_CUES)?;
    let cue = &text[..end];
    let mut value = trim_separators(&text[end..]);
    // "also" and "plus" only add when a clause of the person's follows ("Also, I love ...").
    let bare_also = ["also", "and also", "plus"]
        .iter()
        .any(|c| cue.eq_ignore_ascii_case(c));
    let mut pointer = String::new();
    // "to my strengths: X" / "to my vocation that X" / "for my strengths: X".
    if let Some((_, w)) = words(value).first()
        && POINTERS.contains(&normalize(w).as_str())
    {
        let stop = [":", " that ", "—", " - "]
            .iter()
            .filter_map(|sep| value.find(sep).map(|at| (at, at + sep.len())))
            .min();
        if let Some((at, after)) = stop {
            pointer.push_str(&value[..at]);
            value = trim_separators(&value[after..]);
        }
    }
    if let Some((0, end)) = find_phrase(value, "that", 0) {
        value = value[end..].trim_start();
    }
    let (value, tail) = split_pointer(value);
    pointer.push(' ');
    pointer.push_str(tail);
    let value = trim_end_separators(value);
    if value.is_empty() || bare_also && !speaks(value) {
        return None;
    }
    Some((value.to_owned(), format!("{lead_in} {cue} {pointer}")))
}

/// At most this many words before an addition's cue ("For the next 3-5 years, I'd add ...").
const LEAD_IN_MAX_WORDS: usize = 6;

/// Whether a clause is the person's own statement ("I love ...", "people come to me").
fn speaks(text: &str) -> bool {
    words(text).iter().any(|(_, w)| {
        matches!(
            normalize(w).as_str(),
            "i" | "i'm" | "i've" | "i'd" | "me" | "my"
        )
    })
}

/// A goal: a horizon and a wish in one sentence. The clause from the wish on is the goal.
fn goal(text: &str) -> Option<(String, String)> {
    let (at, _) = WANTS
        .iter()
        .filter_map(|w| find_phrase(text, w, 0))
        .min_by_key(|(at, _)| *at)?;
    let said = &text[at..];
    let named_goal = find_phrase(text, "goal", 0).is_some();
    if horizon(text).is_none() && !named_goal {
        return None;
    }
    Some((said.to_owned(), text[..at].to_owned()))
}

/// "(it's) not (really) X, (it's|but) Y": the old and the new words and the rest.
fn contrast(text: &str) -> Option<(String, String, String)> {
    let negations = [
        "it's not really",
        "it's not",
        "it is not",
        "its not",
        "that's not",
        "isn't really",
        "isn't",
        "is not",
        "aren't",
        "are not",
        "not really",
        "not so much",
        "not just",
        "not",
    ];
    let (neg_start, neg_end) = negations
        .iter()
        .filter_map(|n| find_phrase(text, n, 0))
        .min_by_key(|(start, end)| (*start, std::cmp::Reverse(*end)))?;
    let before = text[..neg_start].trim_end();
    let bare_not = text[neg_start..neg_end].eq_ignore_ascii_case("not");
    if bare_not && !(before.is_empty() || before.ends_with([':', ',', ';', '—', '–', '-'])) {
        return None;
    }
    let (sep_start, sep_end) = CONTRAST_SEPARATORS
        .iter()
        .filter_map(|s| find_phrase(text, s, neg_end))
        .min_by_key(|(start, end)| (*start, std::cmp::Reverse(*end)))?;
    let old = text[neg_start..sep_start]
        .get(neg_end - neg_start..)
        .unwrap_or("")
        .trim();
    let old = without_leads(old, &["really ", "so much ", "just ", "exactly ", "about "]);
    let new = trim_separators(&text[sep_end..]);
    let new = without_leads(new, &["it's ", "it is ", "more ", "rather "]);
    let (new, tail) = split_pointer(new);
    swap_parts(old, new, &format!("{before} {tail}"))
}

/// "change X to Y", "replace X with Y", "swap X for Y", "instead of X, (say) Y".
fn exchange(text: &str) -> Option<(String, String, String)> {
    for (verb, link) in [("change", "to"), ("replace", "with"), ("swap", "for")] {
        if let Some((0, end)) = find_phrase(text, verb, 0)
            && let Some((l_at, l_end)) = find_phrase(text, link, end)
        {
            let old = text[end..l_at].trim();
            let (new, tail) = split_pointer(text[l_end..].trim());
            return swap_parts(old, new, &format!("{verb} {tail}"));
        }
    }
    if let Some((0, end)) = find_phrase(text, "instead of", 0) {
        let rest = &text[end..];
        let comma = rest.find(',')?;
        let old = rest[..comma].trim();
        let new = trim_separators(&rest[comma..]);
        let new = new.strip_prefix("say ").unwrap_or(new);
        let (new, tail) = split_pointer(new);
        return swap_parts(old, new, tail);
    }
    None
}

/// "Y, not X" / "Y rather than X" / "Y instead of X".
fn reversed_contrast(text: &str) -> Option<(String, String, String)> {
    for link in [", not", " rather than", " instead of", ", and not"] {
        if let Some((at, end)) = find_phrase(text, link, 0) {
            let new = text[..at].trim();
            let new = without_leads(new, &["it's ", "it is ", "it should say ", "say "]);
            let new = new.rsplit(", ").next().unwrap_or(new);
            let (old, tail) = split_pointer(text[end..].trim());
            return swap_parts(old, new, tail);
        }
    }
    None
}

/// `text` without each of `leads` at its start, in turn, case-insensitively.
fn without_leads<'a>(text: &'a str, leads: &[&str]) -> &'a str {
    leads.iter().fold(text, |t, lead| {
        t.get(..lead.len())
            .filter(|head| head.eq_ignore_ascii_case(lead))
            .and_then(|_| t.get(lead.len()..))
            .unwrap_or(t)
    })
}

fn swap_parts(old: &str, new: &str, rest: &str) -> Option<(String, String, String)> {
    let quotes = |c: char| {
        c.is_whitespace() || matches!(c, '"' | '\'' | '“' | '”' | '‘' | '’' | ',' | ';' | ':')
    };
    let old = old.trim_matches(quotes);
    let new = new.trim_matches(quotes);
    let count = |s: &str| s.split_whitespace().count();
    ((1..=OLD_MAX_WORDS).contains(&count(old)) && (1..=NEW_MAX_WORDS).contains(&count(new)))
        .then(|| (old.to_owned(), new.to_owned(), rest.to_owned()))
}

/// "I love X more than Y", "I'm better at X than Y", "I prefer X to Y": the clause and Y.
fn comparison(text: &str) -> Option<(String, String)> {
    let clause = without_fillers(text);
    if !speaks(clause) || spoken(clause).is_none() {
        return None;
    }
    let anchor = if let Some((_, end)) = find_phrase(clause, "than", 0) {
        &clause[end..]
    } else if let Some((_, end)) = find_phrase(clause, "i prefer", 0) {
        let (_, to_end) = find_phrase(clause, "to", end)?;
        &clause[to_end..]
    } else {
        return None;
    };
    let anchor = anchor.split(',').next().unwrap_or(anchor).trim();
    let anchor = anchor.strip_prefix("at ").unwrap_or(anchor);
    let said = clause
        .split(", if ")
        .next()
        .unwrap_or(clause)
        .split(", to be honest")
        .next()
        .unwrap_or(clause);
    (!anchor.is_empty()).then(|| (said.trim().to_owned(), anchor.to_owned()))
}

/// "My mission is ...", "What I love is ...", "I'm at my best when ...": the clause from there.
fn statement(text: &str) -> Option<&str> {
    let text = without_fillers(text);
    let at = STATEMENTS
        .iter()
        .filter_map(|s| find_phrase(text, s, 0))
        .map(|(at, _)| at)
        .min()?;
    let before = text[..at].trim();
    // Only at the start of a clause: "In the money part: people would pay me ...".
    let starts_clause = before.is_empty() || before.ends_with([':', ',', ';', '—', '–', '-']);
    starts_clause.then(|| &text[at..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(sentence: &str) -> Edit {
        match find(sentence) {
            Found::Cue(cue) => cue.edit,
            other => panic!("{sentence:?}: {other:?}"),
        }
    }

    #[test]
    fn each_kind_of_cue_keeps_the_persons_words() {
        let restate = |said: &str, anchor: Option<&str>| Edit::Restate {
            said: said.into(),
            anchor: anchor.map(Into::into),
        };
        let cases = [
            (
                "Please add my sister to the people I care about.",
                Edit::Add("my sister".into()),
            ),
            (
                "I'd add to my strengths: patience with beginners.",
                Edit::Add("patience with beginners".into()),
            ),
            (
                "It's not really baking bread, it's making pizza.",
                Edit::Swap {
                    old: "baking bread".into(),
                    new: "making pizza".into(),
                },
            ),
            (
                "Take out the part about baking bread.",
                Edit::Remove("baking bread".into()),
            ),
            (
                "Remove the part about colleagues from my strengths.",
                Edit::Remove("colleagues".into()),
            ),
            (
                "Get rid of the colleagues line in my strengths.",
                Edit::Remove("colleagues".into()),
            ),
            (
                "I'd say I love baking more than teaching.",
                restate("I love baking more than teaching", Some("teaching")),
            ),
            (
                "Long term, in about five years, I want to run a centre.",
                Edit::Goal("I want to run a centre".into()),
            ),
            (
                "One correction: what I love most is the sea.",
                restate("what I love most is the sea", None),
            ),
        ];
        for (sentence, expected) in cases {
            assert_eq!(edit(sentence), expected, "{sentence}");
        }
    }

    #[test]
    fn remarks_and_questions_are_not_cues() {
        for sentence in [
            "That feels right.",
            "What goal should I set?",
            "I actually love my job these days.",
            "My job is stressful lately, and I love weekends.",
            "I love that you noticed the teaching.",
        ] {
            assert_eq!(find(sentence), Found::Nothing, "{sentence}");
        }
        assert_eq!(find("You got my vocation wrong."), Found::Wrong);
    }
}
