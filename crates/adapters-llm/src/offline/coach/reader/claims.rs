//! What a message claims about the person, when it changes a part: a contrast ("not X, it's Y",
//! "less X more Y", "Y rather than X", "you wrote X, but Y") replaces; a marker of more ("also",
//! "one more", "don't forget", "add that") adds; a definition ("the people I want to help are
//! Y", "the through-line: Y") restates a part; a wish with a horizon ("by spring I want Y") is a
//! goal. Each gives the person's words for the new content, the words it replaces, and the words
//! that point at a part.

use crate::offline::clauses::{is_aside, split, trim_joints, without_hedges};
use crate::offline::text::{content_words, find_phrase, normalize, words};

use super::evidence::{named, names_a_goal, scores};
use super::horizon;

/// What a claim does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Adds to the part.
    Add,
    /// Replaces what the part says (the sentence sharing most with `old`, else its lead).
    Replace,
}

/// One claim of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    pub kind: Kind,
    /// The person's words for the new content, hedges and asides set aside.
    pub content: String,
    /// The words it replaces, when the person said them.
    pub old: Option<String>,
    /// Words outside the content that may name the part ("for the part about what I love").
    pub pointer: String,
    /// Whether the person states a wish (want, would like, hope, plan ...), as a goal does.
    pub wish: bool,
}

/// Leads that say a correction follows.
const CORRECTION_LEADS: &[&str] = &[
    "correction",
    "you got it wrong",
    "you've got it wrong",
    "that's wrong",
    "is wrong",
    "is a little wrong",
    "is off",
    "update",
    "revise",
    "changed",
    "on reflection",
    "truthfully",
    "actually",
];

const ADD_LEADS: &[&str] = &[
    "and also",
    "oh and",
    "also",
    "one more thing",
    "one more",
    "another thing",
    "another one",
    "don't forget",
    "do not forget",
    "i forgot to mention that",
    "i forgot to mention",
    "forgot to mention",
    "i forgot",
    "add",
    "adding",
    "plus",
    "put",
    "include",
    "and",
    "oh",
];
/// Words inside a clause that mark an addition.
const ADD_WORDS: &[&str] = &["also", "too", "as well"];
/// Words that mark where the added content starts after a pointer.
const ADD_THAT: &[&str] = &["add that", "adding that", "also that", "add"];

/// Words that state a wish, as a goal does.
const WISHES: &[&str] = &[
    "want",
    "wants",
    "like to",
    "love to",
    "hope",
    "hoping",
    "plan",
    "planning",
    "wish",
    "aim",
    "dream",
    "going to",
    "intend",
    "goal",
    "would like",
    "i'd like",
    "i'd love",
];

/// Words that lead from a negated part to what is right instead.
const TURNS: &[&str] = &[
    "so much as",
    "it's more that",
    "it's more",
    "it's really",
    "its more",
    "is more",
    "more like",
    "these days",
    "but",
    "it's",
    "its",
    "it is",
    "is",
    "rather",
    "more",
    "now",
    "that",
    "really",
    "about",
    "instead",
    "they",
];

/// The claim of `text`, if it states one.
#[must_use]
pub fn read(text: &str) -> Option<Claim> {
    let wish = WISHES.iter().any(|w| find_phrase(text, w, 0).is_some());
    let claim = |kind, content: String, old: Option<String>, pointer: String| {
        let content = tidy(&content);
        // What is corrected is tidied as what is right is ("not X per se": X).
        let old = old
            .map(|o: String| tidy(&o))
            .filter(|o| !content_words(o).is_empty());
        (!content_words(&content).is_empty()).then_some(Claim {
            kind,
            content,
            old,
            pointer,
            wish,
        })
    };
    if let Some((new, old, pointer)) = contrast(text) {
        return claim(Kind::Replace, new, old, pointer);
    }
    if let Some((content, pointer)) = addition(text) {
        if wish && horizon::find(text).is_some() && horizon::find(&pointer).is_none() {
            // A goal added: the wish with its horizon ("by spring I'd also like X").
            return claim(
                Kind::Add,
                goal_clause(&without_add_words(text)),
                None,
                pointer,
            );
        }
        return claim(Kind::Add, content, None, pointer);
    }
    if let Some((content, pointer)) = definition(text) {
        // "The people I want to help are X" says what the part is: it replaces. "What I could
        // earn money with is X" names one possibility among others: it adds, and what the
        // person wrote before stays. A goal is one thing, whatever the head says.
        let goal = names_a_goal(&pointer) || horizon::find(&pointer).is_some();
        let kind = if !goal && possibility(&pointer) {
            Kind::Add
        } else {
            Kind::Replace
        };
        return claim(kind, content, None, pointer);
    }
    if let Some((content, pointer)) = corrected(text) {
        return claim(Kind::Replace, content, None, pointer);
    }
    if let Some(found) = horizon::find(text) {
        if let Some(colon) = text.find(':')
            && found.at < colon
        {
            // "someday: teach a course": the horizon heads the goal.
            let content = text[colon + 1..].to_owned();
            return claim(Kind::Add, content, None, text[..colon].to_owned());
        }
        if wish {
            return claim(Kind::Add, goal_clause(text), None, String::new());
        }
    }
    None
}

/// Whether a definition's head speaks of a possibility ("what I could be paid for", "what I
/// might do"), not of what is.
fn possibility(head: &str) -> bool {
    words(head)
        .iter()
        .any(|(_, w)| matches!(normalize(w).as_str(), "could" | "might" | "may" | "can"))
}

/// The byte offset just past the last of `marks` in `text` (0 when there is none).
fn after_last(text: &str, marks: &[char]) -> usize {
    text.char_indices()
        .rfind(|(_, c)| marks.contains(c))
        .map_or(0, |(i, c)| i + c.len_utf8())
}

/// `text` without the words that mark an addition ("also", "too", a lead "and").
fn without_add_words(text: &str) -> String {
    let mut out = strip_leads_keeping(text, &["oh", "well", "and", "also", "plus"]).to_owned();
    for word in ["also", "too", "as well"] {
        while let Some((at, end)) = find_phrase(&out, word, 0) {
            out = format!("{} {}", out[..at].trim_end(), out[end..].trim_start());
        }
    }
    out
}

/// The clause that states a wish, with the horizon before it when it stands apart ("by spring,
/// if my knees allow it, I'd like X" -> "by spring I'd like X").
fn goal_clause(text: &str) -> String {
    let clauses = split(text);
    let wished = clauses
        .iter()
        .position(|c| WISHES.iter().any(|w| find_phrase(c, w, 0).is_some()));
    let Some(at) = wished else {
        return text.to_owned();
    };
    let clause = clauses[at];
    let horizon_clause = clauses[..at]
        .iter()
        .find(|c| horizon::find(c).is_some() && words(c).len() <= 12);
    match horizon_clause {
        Some(h) if horizon::find(clause).is_none() => format!("{}, {clause}", trim_joints(h)),
        _ => clause.to_owned(),
    }
}

/// "not X, Y", "Y, not X", "less X more Y", "rather than X, Y", "Y rather than X",
/// "more Y than X", "you wrote X, but Y", "too much of X; Y": (new, old, pointer).
fn contrast(text: &str) -> Option<(String, Option<String>, String)> {
    less_more(text)
        .or_else(|| you_wrote(text))
        .or_else(|| rather_than(text))
        .or_else(|| too_much(text))
        .or_else(|| negation(text))
        .or_else(|| more_than(text))
}

fn less_more(text: &str) -> Option<(String, Option<String>, String)> {
    let (l_at, l_end) = find_phrase(text, "less", 0)?;
    let (m_at, m_end) = find_phrase(text, "more", l_end)?;
    let old = text[l_end..m_at].trim_matches([' ', ',']);
    let gap = text[l_end..m_at].contains(['.', ';']);
    (!gap && !old.is_empty()).then(|| {
        (
            first_claim(&text[m_end..]),
            Some(old.to_owned()),
            text[..l_at].to_owned(),
        )
    })
}

fn you_wrote(text: &str) -> Option<(String, Option<String>, String)> {
    let (at, end) = [
        "you've written",
        "you wrote",
        "you have",
        "you said",
        "you put",
        "it says",
    ]
    .iter()
    .filter_map(|p| find_phrase(text, p, 0))
    .min()?;
    let (b_at, b_end) = find_phrase(text, "but", end)?;
    let old = text[end..b_at].trim_matches([' ', ',']);
    let new = &text[b_end..];
    let new = more_than(new).map_or_else(|| first_claim(new), |(n, ..)| n);
    Some((
        new,
        Some(old.to_owned()),
        text[..at].to_owned() + " " + &text[b_end..],
    ))
}

fn rather_than(text: &str) -> Option<(String, Option<String>, String)> {
    for link in ["rather than", "instead of"] {
        let Some((at, end)) = find_phrase(text, link, 0) else {
            continue;
        };
        let before = text[..at].trim_end();
        let clause_start = before.is_empty() || before.ends_with([':', ',', '.', ';', '—']);
        if clause_start {
            // "rather than the library, I'd like ...".
            let rest = &text[end..];
            let comma = rest.find(',')?;
            return Some((
                first_claim(&rest[comma + 1..]),
                Some(rest[..comma].trim().to_owned()),
                before.to_owned(),
            ));
        }
        // "Y rather than X".
        let y = before.rsplit(['.', ';', ':', '—']).next().unwrap_or(before);
        let old = text[end..]
            .split(['.', ';', ',', '—'])
            .next()
            .unwrap_or("")
            .trim();
        return Some((
            tidy(y),
            Some(old.to_owned()),
            before[..before.len() - y.len()].to_owned(),
        ));
    }
    None
}

fn too_much(text: &str) -> Option<(String, Option<String>, String)> {
    let (at, end) = find_phrase(text, "too much", 0)?;
    if let Some((_, of_end)) = find_phrase(text, "of", end).filter(|(a, _)| *a <= end + 1) {
        // "you've made too much of X; it's Y".
        let rest = &text[of_end..];
        let stop = rest.find([';', '.', '—']).unwrap_or(rest.len());
        let new = strip_turns(&rest[stop..]);
        return Some((
            first_claim(new),
            Some(rest[..stop].trim().to_owned()),
            text[..at].to_owned(),
        ));
    }
    // "X is too much — make it Y".
    let (_, m_end) = find_phrase(text, "make it", end)?;
    let old = text[..at]
        .trim_end()
        .trim_end_matches(" is")
        .trim_end_matches(" are");
    Some((
        first_claim(&text[m_end..]),
        Some(old.to_owned()),
        String::new(),
    ))
}

/// "I'm more of an organizer than a listener", "is more choosing typefaces than colors".
fn more_than(text: &str) -> Option<(String, Option<String>, String)> {
    let (m_at, m_end) = find_phrase(text, "more", 0)?;
    let (t_at, t_end) = find_phrase(text, "than", m_end)?;
    let between = &text[m_end..t_at];
    if between.contains(['.', ';', ',']) || words(between).len() > 6 {
        return None;
    }
    let old = text[t_end..]
        .split(['.', ';', ',', '—'])
        .next()
        .unwrap_or("")
        .trim();
    let clause_start = text[..m_at]
        .rfind(['.', ';', ',', ':'])
        .map_or(0, |i| i + 1);
    let subject = &text[clause_start..m_at];
    let first_person = words(subject)
        .iter()
        .any(|(_, w)| matches!(normalize(w).as_str(), "i'm" | "i" | "i am"));
    let new = if first_person {
        first_claim(&text[clause_start..])
    } else {
        between.trim().trim_start_matches("of ").to_owned()
    };
    Some((new, Some(old.to_owned()), text[..clause_start].to_owned()))
}

/// The negations a correction is made with; the "do"-negations count only after a correction
/// lead or with "anymore" ("who don't get out much" corrects nothing).
const NEGATIONS: &[&str] = &["not", "isn't", "aren't", "wasn't", "no longer"];
const DO_NEGATIONS: &[&str] = &["don't", "doesn't", "didn't", "do not"];

fn negation(text: &str) -> Option<(String, Option<String>, String)> {
    let corrected = CORRECTION_LEADS
        .iter()
        .any(|l| find_phrase(text, l, 0).is_some())
        || ["anymore", "any more", "no more"]
            .iter()
            .any(|w| find_phrase(text, w, 0).is_some());
    let mut found: Vec<(usize, usize)> = NEGATIONS
        .iter()
        .filter_map(|n| find_phrase(text, n, 0))
        .collect();
    if corrected {
        found.extend(DO_NEGATIONS.iter().filter_map(|n| find_phrase(text, n, 0)));
    }
    found.sort_unstable();
    found
        .into_iter()
        .filter(|(at, _)| !text[..*at].to_lowercase().trim_end().ends_with(" or"))
        .find_map(|(at, end)| {
            verdict(text, at, end)
                .or_else(|| reversed(text, at, end))
                .or_else(|| forward(text, at, end))
        })
}

/// "The strengths bit isn't quite right. I'm best at X": what is right follows the verdict.
fn verdict(text: &str, at: usize, end: usize) -> Option<(String, Option<String>, String)> {
    let rest = &text[end..];
    let first = words(rest).first().map(|(_, w)| normalize(w))?;
    if !matches!(
        first.as_str(),
        "right" | "correct" | "accurate" | "true" | "quite" | "exactly"
    ) {
        return None;
    }
    let stop = rest
        .char_indices()
        .find(|(_, c)| ".;:—,".contains(*c))
        .map(|(i, c)| i + c.len_utf8())?;
    let new = first_claim(&rest[stop..]);
    (!content_words(&new).is_empty()).then(|| (new, None, text[..at].to_owned()))
}

/// "not X, (it's) Y" (Y may be the next sentence).
fn forward(text: &str, at: usize, end: usize) -> Option<(String, Option<String>, String)> {
    // "I don't think X; it's Y": the negation is of X.
    let mut rest = &text[end..];
    for skip in [
        "think", "believe", "feel", "suppose", "really", "so much", "just", "exactly",
    ] {
        if let Some((0, e)) = find_phrase(rest.trim_start(), skip, 0) {
            let trimmed = rest.trim_start();
            rest = &trimmed[e..];
        }
    }
    let stop = rest
        .char_indices()
        .find(|(_, c)| ",;.—–:".contains(*c))
        .map(|(i, c)| (i, i + c.len_utf8()));
    let turn = [
        " so much as ",
        " but ",
        " it's ",
        " its ",
        " it is ",
        " is more ",
        " they ",
        " rather ",
    ]
    .iter()
    .filter_map(|t| find_phrase(rest, t.trim(), 2).map(|(a, _)| (a, a)))
    .min();
    let (x_end, y_start) = match (stop, turn) {
        (Some(s), Some(t)) => s.min(t),
        (Some(s), None) => s,
        (None, Some(t)) => t,
        (None, None) => return None,
    };
    let old = rest[..x_end].trim();
    // "I'm not sure, but ..." hedges; it corrects nothing.
    let hedge = words(old).first().is_some_and(|(_, w)| {
        matches!(
            normalize(w).as_str(),
            "sure" | "certain" | "convinced" | "positive"
        )
    });
    if hedge {
        return None;
    }
    let new = first_claim(strip_turns(&rest[y_start..]));
    (!content_words(old).is_empty() && !content_words(&new).is_empty())
        .then(|| (new, Some(old.to_owned()), text[..at].to_owned()))
}

/// "Y, not X" / "Y now not X": the negation after the new words, at the clause's end.
fn reversed(text: &str, at: usize, end: usize) -> Option<(String, Option<String>, String)> {
    let before = text[..at].trim_end();
    let comma_led = before.ends_with(',') || before.to_lowercase().ends_with(" now");
    let rest = &text[end..];
    let x_first = words(rest)
        .first()
        .map(|(_, w)| normalize(w))
        .unwrap_or_default();
    // "so I'm not crawling about": a negated verb is no old phrase to replace.
    if x_first.ends_with("ing") || x_first.ends_with("ed") || x_first == "to" {
        return None;
    }
    let x_end = rest.find([',', ';', '.', '—', '–']).unwrap_or(rest.len());
    let after_x = rest[x_end..].trim_start_matches([',', ';', '.', ' ']);
    let ends_clause = content_words(after_x).is_empty() || !rest[x_end..].starts_with(',');
    if !(comma_led || ends_clause && !rest[..x_end].contains(" but ")) {
        return None;
    }
    let clause_start = after_last(before.trim_end_matches(','), &['.', ';', ':', '—']);
    let y = before[clause_start..]
        .trim_end_matches(',')
        .trim_end()
        .trim_end_matches(" now");
    let y = y.rsplit(", but ").next().unwrap_or(y);
    let y = strip_leads(y);
    let y = y
        .rsplit(" is ")
        .next()
        .filter(|_| head_names_part(y))
        .unwrap_or(y);
    let old = rest[..x_end].trim();
    (content_words(y).len() >= 2 && !content_words(old).is_empty()).then(|| {
        (
            first_claim(y),
            Some(old.to_owned()),
            before[..clause_start].to_owned() + " " + &before[clause_start..],
        )
    })
}

fn head_names_part(clause: &str) -> bool {
    find_phrase(clause, "is", 0).is_some_and(|(at, _)| {
        let head = &clause[..at];
        names_a_goal(head) || scores(head).iter().any(|(_, s)| *s >= 2.0)
    })
}

/// "one more: X", "also X", "for the overlap add that X", "I could also be paid for X":
/// (content, pointer).
fn addition(text: &str) -> Option<(String, String)> {
    let body = strip_leads_keeping(text, &["oh", "well", "dear", "hey"]);
    let lead_end = |text: &str| {
        let (skip, text) = without_degree(text);
        ADD_LEADS
            .iter()
            .filter_map(|l| find_phrase(&text, l, 0).filter(|(at, _)| *at == 0))
            .map(|(_, end)| skip + end)
            .max()
            .or_else(|| text.starts_with("+1").then_some(2))
    };
    if let Some(end) = lead_end(body) {
        // "Oh, and I forgot to mention that ...": leads one after another.
        let mut region = &body[end..];
        while let Some(more) = lead_end(region.trim_start_matches([',', ' ', ':'])) {
            region = &region.trim_start_matches([',', ' ', ':'])[more..];
        }
        if let Some((pointer, content)) = after_pointer(region) {
            return Some((first_claim(content), pointer.to_owned()));
        }
        let region = strip_leads(region);
        if !content_words(region).is_empty() {
            return Some((first_claim(region), String::new()));
        }
    }
    if let Some((at, end)) = ADD_THAT
        .iter()
        .filter_map(|a| find_phrase(text, a, 0))
        .min()
        && at > 0
    {
        let region = &text[end..];
        // "I'd add to the overlap: X", "I'd add to my strengths that X".
        if let Some((pointer, content)) = after_pointer(region) {
            return Some((first_claim(content), format!("{} {pointer}", &text[..at])));
        }
        return Some((first_claim(region), text[..at].to_owned()));
    }
    let (at, end) = ADD_WORDS
        .iter()
        .filter_map(|w| find_phrase(text, w, 0))
        .min()?;
    let clause_start = after_last(&text[..at], &['.', ';', '—']);
    let clause = format!(
        "{} {}",
        text[clause_start..at].trim_end(),
        text[end..].trim_start()
    );
    Some((first_claim(&clause), String::new()))
}

/// Words that only say how much or how plainly: "I quite forgot", "I totally forgot".
const DEGREE: &[&str] = &[
    "quite",
    "completely",
    "totally",
    "clean",
    "entirely",
    "really",
    "actually",
    "just",
    "clearly",
    "simply",
];

/// `text` with a degree word after its leading "I" set aside ("I quite forgot" reads "I
/// forgot"), as the "I " it skipped and the rest; the "I" is kept as the rest's first word.
fn without_degree(text: &str) -> (usize, std::borrow::Cow<'_, str>) {
    let ws = words(text);
    match ws.get(..3) {
        Some([(0, i), (_, degree), (next, _)])
            if normalize(i) == "i" && DEGREE.contains(&normalize(degree).as_str()) =>
        {
            // The rest's offsets are the text's less `next - 2` (its "i " stands before `next`).
            let rest = format!("i {}", &text[*next..]);
            (next - 2, std::borrow::Cow::Owned(rest))
        }
        _ => (0, std::borrow::Cow::Borrowed(text)),
    }
}

/// A pointer then the content: "for the part about what I'm good at: X", "for mission: X",
/// "to the part about how it fits, would you mind adding that X".
fn after_pointer(region: &str) -> Option<(&str, &str)> {
    let head_words = |s: &str| words(s).len() <= 14;
    if let Some(colon) = region.find(':')
        && head_words(&region[..colon])
    {
        return Some((&region[..colon], &region[colon + 1..]));
    }
    if let Some((at, end)) = ADD_THAT
        .iter()
        .filter_map(|a| find_phrase(region, a, 0))
        .min()
        && at > 0
        && head_words(&region[..at])
    {
        return Some((&region[..at], &region[end..]));
    }
    // "to my strengths that I stay calm": a pointer to a part, then "that".
    let pointed = words(region)
        .first()
        .is_some_and(|(_, w)| matches!(normalize(w).as_str(), "to" | "for" | "in" | "on"));
    let (at, end) = find_phrase(region, "that", 0)?;
    (pointed && head_words(&region[..at]) && !named(&region[..at]).is_empty())
        .then(|| (&region[..at], &region[end..]))
}

/// "the people I want to help are X", "what I could be paid for is X", "the through-line: X".
fn definition(text: &str) -> Option<(String, String)> {
    let body = strip_leads(text);
    let (at, end) = [" is that ", " is ", " are ", ": ", " would be "]
        .iter()
        .filter_map(|c| body.find(c).map(|at| (at, at + c.len())))
        .min()?;
    let head = &body[..at];
    if words(head).len() > 16 || head.contains(['.', ';']) {
        return None;
    }
    let opens = words(head).first().is_some_and(|(_, w)| {
        matches!(
            normalize(w).as_str(),
            "the" | "what" | "who" | "where" | "whom" | "for" | "to"
        )
    });
    let strong = !named(head).is_empty();
    let evidenced = scores(head).iter().any(|(_, s)| *s >= 1.5) || names_a_goal(head);
    // "My mission is X" is said back whole ("Your mission is X"); "the people I want to help
    // are X" by what follows.
    let mine = words(head)
        .first()
        .is_some_and(|(_, w)| normalize(w) == "my")
        && !names_a_goal(head);
    let content = if mine { body } else { &body[end..] };
    ((opens && evidenced) || strong).then(|| (first_claim(content), head.to_owned()))
}

/// "correction: X", "the goal is wrong, is more X": what follows a correction lead.
fn corrected(text: &str) -> Option<(String, String)> {
    let (at, end) = CORRECTION_LEADS
        .iter()
        .filter_map(|l| find_phrase(text, l, 0))
        .filter(|(at, _)| {
            let before = text[..*at].trim_end();
            before.is_empty() || before.ends_with(['.', ',', ':', ';', '-', '—'])
        })
        .min()?;
    let rest = strip_turns(text[end..].trim_start_matches([',', ':', ' ', '-', '—']));
    (!content_words(rest).is_empty()).then(|| (first_claim(rest), text[..at].to_owned()))
}

/// The first clause of `region` with content, and one more the person speaks in the first
/// person (their explanation of themselves), hedges and asides set aside.
fn first_claim(region: &str) -> String {
    let mut kept: Vec<String> = Vec::new();
    for clause in split(region) {
        if is_aside(clause) {
            continue;
        }
        let clause = strip_leads(clause);
        if kept.is_empty() {
            if !content_words(clause).is_empty() {
                kept.push(clause.to_owned());
            }
            continue;
        }
        let first = words(clause)
            .first()
            .map(|(_, w)| normalize(w))
            .unwrap_or_default();
        let first_person = matches!(first.as_str(), "i'm" | "i" | "i've" | "i'd");
        if first_person && content_words(clause).len() >= 2 {
            kept.push(clause.to_owned());
        } else if CONTINUATIONS.contains(&first.as_str())
            && let Some(last) = kept.last_mut()
        {
            // "the garden, and more particularly saving seeds": one thought, said on.
            last.push_str(", ");
            last.push_str(clause);
        }
        break;
    }
    kept.join(". ")
}

/// Words that carry a thought on into the next clause.
const CONTINUATIONS: &[&str] = &[
    "more",
    "especially",
    "particularly",
    "mostly",
    "above",
    "mainly",
];

/// Leading fillers and correction leads set aside.
fn strip_leads(text: &str) -> &str {
    strip_leads_keeping(
        text,
        &[
            "oh",
            "well",
            "dear",
            "hey",
            "so",
            "ok",
            "okay",
            "hmm",
            "please",
            "that",
            "to mention that",
            "i think",
            "i suppose",
            "i would say",
            "i'd say",
            "if i'm honest",
            "honestly",
            "truthfully",
            "actually",
            "correction",
            "you got it wrong",
            "on reflection",
        ],
    )
}

fn strip_leads_keeping<'a>(text: &'a str, leads: &[&str]) -> &'a str {
    let mut rest = text.trim_start();
    loop {
        let end = leads
            .iter()
            .filter_map(|l| find_phrase(rest, l, 0).filter(|(at, _)| *at == 0))
            .map(|(_, end)| end)
            .max();
        match end {
            Some(end) if end < rest.len() => {
                rest = rest[end..].trim_start_matches(|c: char| {
                    c.is_whitespace() || matches!(c, ',' | ':' | ';' | '-' | '—' | '.')
                });
            }
            _ => return rest,
        }
    }
}

fn strip_turns(text: &str) -> &str {
    let mut rest = text.trim_start_matches(|c: char| c.is_whitespace() || ",;:.—-".contains(c));
    loop {
        let end = TURNS
            .iter()
            .filter_map(|t| find_phrase(rest, t, 0).filter(|(at, _)| *at == 0))
            .map(|(_, end)| end)
            .max();
        match end {
            // "they" stays: it is the subject of what is right ("they come to me for ...").
            Some(end) if end < rest.len() && !rest[..end].eq_ignore_ascii_case("they") => {
                rest = rest[end..].trim_start_matches(|c: char| c.is_whitespace() || c == ',');
            }
            _ => return rest,
        }
    }
}

/// A claim's words without hedges, asides, quotes and trailing "too".
fn tidy(content: &str) -> String {
    let text = without_hedges(content);
    let text = text.trim_matches(|c: char| {
        c.is_whitespace() || matches!(c, '\'' | '"' | ',' | '.' | ';' | ':' | '-' | '—')
    });
    let mut text = text.to_owned();
    for tail in [" too", " as well", " somewhere", " in there"] {
        if text.to_lowercase().ends_with(tail) {
            text.truncate(text.len() - tail.len());
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(text: &str) -> Claim {
        read(text).unwrap_or_else(|| panic!("no claim in {text:?}"))
    }

    #[test]
    fn contrasts_replace_with_the_right_words() {
        let c = claim("its not the chess its go on tuesdays.");
        assert_eq!(
            (c.kind, c.content.as_str()),
            (Kind::Replace, "go on tuesdays")
        );
        assert_eq!(c.old.as_deref(), Some("the chess"));
        let c = claim("less baking more pottery in the basement.");
        assert_eq!(c.content, "pottery in the basement");
        let c = claim("they pay me to drive the forklift now not nights.");
        assert_eq!(c.content, "they pay me to drive the forklift");
        assert_eq!(c.old.as_deref(), Some("nights"));
        let c = claim("Rather than the choir, I'd like to join the band.");
        assert_eq!(c.content, "I'd like to join the band");
    }

    #[test]
    fn additions_keep_the_new_words_and_the_pointer() {
        let c = claim("also chess on fridays forgot that one.");
        assert_eq!(
            (c.kind, c.content.as_str()),
            (Kind::Add, "chess on fridays")
        );
        let c = claim("One more thing, for the part about what I'm good at: I can weld.");
        assert_eq!(c.content, "I can weld");
        assert!(c.pointer.contains("good at"));
        let c = claim("for the overlap bit add that cooking calms me.");
        assert_eq!(c.content, "cooking calms me");
        let c = claim("I could also be paid for tuning pianos.");
        assert_eq!(c.content, "I could be paid for tuning pianos");
    }

    #[test]
    fn definitions_and_goals_are_claims_but_remarks_are_not() {
        let c = claim("the people I want to help are nurses on nights.");
        assert_eq!(
            (c.kind, c.content.as_str()),
            (Kind::Replace, "nurses on nights")
        );
        let c = claim("what I could earn a living with is tuning pianos.");
        assert_eq!((c.kind, c.content.as_str()), (Kind::Add, "tuning pianos"));
        let c = claim("by june I want to run a marathon.");
        assert_eq!(
            (c.kind, c.content.as_str()),
            (Kind::Add, "by june, I want to run a marathon")
        );
        assert!(c.wish);
        for remark in [
            "long day at the depot.",
            "My job is stressful lately, and I love weekends.",
            "Thank you, this is lovely to read.",
        ] {
            assert_eq!(read(remark), None, "{remark}");
        }
    }
}
