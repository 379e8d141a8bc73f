//! Which part a message is about, from several kinds of evidence scored together: a part the
//! person names ("the money bit", "my strengths"), what their words are about (losing track of
//! time is what they love; people coming to them is what they are good at; being paid is their
//! vocation; wanting to help is their mission; how it all fits is the overlap), and where the
//! words they point at already stand in the profile. Earlier evidence weighs a little more:
//! people say what they mean first and explain after.

use domain::profile::EditableField;

use std::collections::BTreeSet;

use crate::offline::grounding::stem;
use crate::offline::text::{content_words, find_phrase, is_content_word, normalize, words};

use EditableField::{
    LongTermGoalSummary as Long, LoveSummary as Love, MissionSummary as Mission,
    NearTermGoalSummary as Near, OverlapNarrative as Overlap, StrengthSummary as Strength,
    VocationSummary as Vocation,
};

/// How strongly a phrase points at a part.
const NAMED: f32 = 3.0;
const CUE: f32 = 2.0;
const HINT: f32 = 1.0;

/// The evidence phrases of each part, with their weight.
const EVIDENCE: &[(EditableField, &str, f32)] = &[
    // What the person loves: time that disappears, enjoyment, leisure.
    (Love, "what i love", NAMED),
    (Love, "what you love", NAMED),
    (Love, "love part", NAMED),
    (Love, "love bit", NAMED),
    (Love, "love section", NAMED),
    (Love, "passion", NAMED),
    (Love, "passions", NAMED),
    (Love, "lose track", CUE),
    (Love, "lose the hours", CUE),
    (Love, "lose hours", CUE),
    (Love, "lose time", CUE),
    (Love, "forget the time", CUE),
    (Love, "time flies", CUE),
    (Love, "for hours", CUE),
    (Love, "hours on end", CUE),
    (Love, "i love", CUE),
    (Love, "i adore", CUE),
    (Love, "adore", CUE),
    (Love, "i enjoy", CUE),
    (Love, "enjoy", HINT),
    (Love, "hobby", CUE),
    (Love, "hobbies", CUE),
    (Love, "for fun", CUE),
    (Love, "favorite", HINT),
    (Love, "favourite", HINT),
    (Love, "flow", HINT),
    (Love, "love", HINT),
    (Love, "happiest", HINT),
    (Love, "weekends", HINT),
    (Love, "free time", HINT),
    (Love, "spare time", HINT),
    // What the person is good at: skills, what others bring to them.
    (Strength, "what i'm good at", NAMED),
    (Strength, "what i am good at", NAMED),
    (Strength, "what you're good at", NAMED),
    (Strength, "strength", NAMED),
    (Strength, "strengths", NAMED),
    (Strength, "strong suit", NAMED),
    (Strength, "skills", NAMED),
    (Strength, "good at", CUE),
    (Strength, "good with", CUE),
    (Strength, "best at", CUE),
    (Strength, "great at", CUE),
    (Strength, "great with", CUE),
    (Strength, "better at", CUE),
    (Strength, "strong at", CUE),
    (Strength, "really strong", CUE),
    (Strength, "skilled", CUE),
    (Strength, "talent", CUE),
    (Strength, "knack", CUE),
    (Strength, "come to me", CUE),
    (Strength, "comes to me", CUE),
    (Strength, "coming to me", CUE),
    (Strength, "ask me", CUE),
    (Strength, "asks me", CUE),
    (Strength, "rely on me", CUE),
    (Strength, "turn to me", CUE),
    (Strength, "skill", HINT),
    // What a person says they can do is what they are able to, not yet what pays.
    (Strength, "i can", HINT),
    (Strength, "i know how to", HINT),
    (Strength, "i'm able to", HINT),
    // Whom the person wants to help.
    (Mission, "mission", NAMED),
    (Mission, "purpose", NAMED),
    (Mission, "want to help", NAMED),
    (Mission, "like to help", NAMED),
    (Mission, "love to help", NAMED),
    (Mission, "the world needs", NAMED),
    (Mission, "i want to help", CUE),
    (Mission, "to help", CUE),
    (Mission, "help them", CUE),
    (Mission, "helping", HINT),
    (Mission, "give back", CUE),
    (Mission, "make a difference", CUE),
    (Mission, "cause", HINT),
    (Mission, "help", HINT),
    // What the person could be paid for.
    (Vocation, "vocation", NAMED),
    (Vocation, "paid part", NAMED),
    (Vocation, "money part", NAMED),
    (Vocation, "money bit", NAMED),
    (Vocation, "work part", NAMED),
    (Vocation, "my job", CUE),
    (Vocation, "my career", CUE),
    (Vocation, "my work", CUE),
    (Vocation, "work section", NAMED),
    (Vocation, "for a living", NAMED),
    (Vocation, "paid", CUE),
    (Vocation, "pay me", CUE),
    (Vocation, "pays me", CUE),
    (Vocation, "earn", CUE),
    (Vocation, "money", CUE),
    (Vocation, "income", CUE),
    (Vocation, "salary", CUE),
    (Vocation, "hire me", CUE),
    (Vocation, "hired", CUE),
    (Vocation, "freelance", CUE),
    (Vocation, "fee", CUE),
    (Vocation, "job", CUE),
    (Vocation, "career", CUE),
    (Vocation, "work as", CUE),
    (Vocation, "on the side", HINT),
    // How it all fits together.
    (Overlap, "overlap", NAMED),
    (Overlap, "it all fits", NAMED),
    (Overlap, "how it all", NAMED),
    (Overlap, "everything fits", NAMED),
    (Overlap, "fits together", NAMED),
    (Overlap, "fit together", NAMED),
    (Overlap, "ties together", NAMED),
    (Overlap, "tie together", NAMED),
    (Overlap, "connects", NAMED),
    (Overlap, "comes together", NAMED),
    (Overlap, "come together", NAMED),
    (Overlap, "common thread", NAMED),
    (Overlap, "big picture", NAMED),
    (Overlap, "where it all meets", NAMED),
    (Overlap, "how everything fits", NAMED),
    (Overlap, "all of it", HINT),
    // The goals, by the name people give them (a horizon counts apart).
    (Near, "near-term", NAMED),
    (Near, "near term", NAMED),
    (Near, "short-term", NAMED),
    (Near, "short term", NAMED),
    (Long, "long-term", NAMED),
    (Long, "long term", NAMED),
];

/// Words that make a message about a goal without saying which one.
pub const GOAL_WORDS: &[&str] = &["goal", "goals", "aim", "target"];

/// Each part's score for `text`, in the order of [`EditableField::ALL`].
#[must_use]
pub fn scores(text: &str) -> Vec<(EditableField, f32)> {
    let length = text.len().max(1) as f32;
    let mut out: Vec<(EditableField, f32)> =
        EditableField::ALL.into_iter().map(|f| (f, 0.0)).collect();
    for (field, phrase, weight) in EVIDENCE {
        let mut from = 0;
        while let Some((at, end)) = find_phrase(text, phrase, from) {
            // A phrase inside a longer one of another part counts once: "want to help" is no
            // wish about love, "love to help" no love.
            let position = at as f32 / length;
            let weight = weight * (1.0 - 0.3 * position);
            if let Some(slot) = out.iter_mut().find(|(f, _)| f == field) {
                slot.1 += weight;
            }
            from = end;
        }
    }
    if time_slips_by(text)
        && let Some(slot) = out.iter_mut().find(|(f, _)| *f == Love)
    {
        slot.1 += CUE;
    }
    out
}

/// Verbs of losing or forgetting, and of time going unnoticed.
const LOSING: &[&str] = &[
    "lose",
    "loses",
    "losing",
    "lost",
    "forget",
    "forgets",
    "forgetting",
    "forgot",
];
const PASSING: &[&str] = &[
    "go",
    "goes",
    "went",
    "disappear",
    "disappears",
    "vanish",
    "vanishes",
    "fly",
    "flies",
    "flew",
    "melt",
    "melts",
    "slip",
    "slips",
    "pass",
    "passes",
    "passing",
];
/// Words for a stretch of time.
const STRETCHES: &[&str] = &[
    "time",
    "hours",
    "hour",
    "track",
    "afternoon",
    "afternoons",
    "morning",
    "mornings",
    "evening",
    "evenings",
    "day",
    "days",
    "night",
    "nights",
    "weekend",
    "weekends",
];

/// Whether `text` says time slips by unnoticed, in whatever words: losing or forgetting a
/// stretch of time a few words on ("lose the notion of time", "lost a whole afternoon",
/// "forget the hours"), or time itself going ("the hours just disappear", "time flies"). That
/// is the mark of what a person loves doing.
fn time_slips_by(text: &str) -> bool {
    let ws: Vec<String> = crate::offline::text::words(text)
        .into_iter()
        .map(|(_, w)| crate::offline::text::normalize(w))
        .collect();
    ws.iter().enumerate().any(|(i, w)| {
        let ahead = |n: usize| ws.iter().skip(i + 1).take(n);
        (LOSING.contains(&w.as_str()) && ahead(4).any(|a| STRETCHES.contains(&a.as_str())))
            || (matches!(w.as_str(), "time" | "hours")
                && ahead(2).any(|a| PASSING.contains(&a.as_str())))
    })
}

/// The parts that lead `scores`: one when it leads clearly, two when the first two are close,
/// none when nothing points anywhere.
#[must_use]
pub fn leaders(scores: &[(EditableField, f32)]) -> Vec<EditableField> {
    let mut sorted: Vec<(EditableField, f32)> = scores.to_vec();
    sorted.sort_by(|a, b| b.1.total_cmp(&a.1));
    match sorted[..] {
        [(_, top), ..] if top <= 0.0 => Vec::new(),
        [(first, top), (second, next), ..] if top - next < CLOSE => vec![first, second],
        [(first, _), ..] => vec![first],
        [] => Vec::new(),
    }
}

/// Two scores closer than this are equally likely.
const CLOSE: f32 = 0.25;

/// The parts `text` names outright ("my strengths", "the overlap", "who I want to help"),
/// in the lexicon's words or in the person's own ([`named_in_own_words`]).
#[must_use]
pub fn named(text: &str) -> Vec<EditableField> {
    let mut out = Vec::new();
    for (field, phrase, weight) in EVIDENCE {
        if *weight >= NAMED && find_phrase(text, phrase, 0).is_some() && !out.contains(field) {
            out.push(*field);
        }
    }
    if out.is_empty() {
        out = named_in_own_words(text);
    }
    out
}

/// Nouns people point at a part of the page with.
const PART_NOUNS: &[&str] = &[
    "section",
    "part",
    "bit",
    "piece",
    "paragraph",
    "box",
    "area",
];

/// A part named in the person's own words: "the how-it-fits section", "the money piece". The
/// words before the noun name a part when every one of them (by stem) is a word of that part's
/// names, and of no other part's.
fn named_in_own_words(text: &str) -> Vec<EditableField> {
    let ws: Vec<String> = words(text).into_iter().map(|(_, w)| normalize(w)).collect();
    let mut out = Vec::new();
    for (i, w) in ws.iter().enumerate() {
        if !PART_NOUNS.contains(&w.as_str()) {
            continue;
        }
        let start = ws[..i]
            .iter()
            .rposition(|d| matches!(d.as_str(), "the" | "my" | "your" | "that" | "this"))
            .filter(|d| i - d <= 5);
        let Some(start) = start else { continue };
        let wanted: BTreeSet<String> = ws[start + 1..i]
            .iter()
            .filter(|w| is_content_word(w))
            .map(|w| stem(w))
            .collect();
        if wanted.is_empty() {
            continue;
        }
        let fits: Vec<EditableField> = EditableField::ALL
            .into_iter()
            .filter(|field| wanted.is_subset(&name_stems(*field)))
            .collect();
        if let [field] = fits[..]
            && !out.contains(&field)
        {
            out.push(field);
        }
    }
    out
}

/// The stems of the words a part is named by.
fn name_stems(field: EditableField) -> BTreeSet<String> {
    EVIDENCE
        .iter()
        .filter(|(f, _, weight)| *f == field && *weight >= NAMED)
        .flat_map(|(_, phrase, _)| content_words(phrase))
        .map(|w| stem(&w))
        .collect()
}

/// Whether `text` names a goal without a horizon.
#[must_use]
pub fn names_a_goal(text: &str) -> bool {
    GOAL_WORDS.iter().any(|w| find_phrase(text, w, 0).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lead(text: &str) -> Vec<EditableField> {
        leaders(&scores(text))
    }

    #[test]
    fn the_kind_of_words_points_at_the_part() {
        assert_eq!(lead("on saturdays I lose track of time baking"), [Love]);
        assert_eq!(
            lead("neighbours always ask me to fix their fences"),
            [Strength]
        );
        assert_eq!(
            lead("I would love to help refugees learn to cook"),
            [Mission]
        );
        assert_eq!(lead("I could earn money tuning pianos"), [Vocation]);
        assert_eq!(lead("what ties together is patience"), [Overlap]);
        assert_eq!(lead("add it to my strengths"), [Strength]);
        assert_eq!(named("in the fits-together bit, add patience"), [Overlap]);
        assert_eq!(named("for the money piece: tuning pianos"), [Vocation]);
        assert!(named("the best part is the people").is_empty());
        assert_eq!(lead("I lose all sense of time when I carve spoons"), [Love]);
        assert_eq!(lead("knitting, the hours just vanish"), [Love]);
        assert!(!lead("I lost my job in March").contains(&Love));
    }

    #[test]
    fn nothing_or_a_tie_leaves_the_choice_open() {
        assert!(lead("add chess somewhere").is_empty());
        assert_eq!(
            leaders(&[(Love, 2.0), (Strength, 1.9), (Mission, 0.0)]),
            [Love, Strength]
        );
        assert_eq!(leaders(&[(Love, 2.0), (Strength, 1.0)]), [Love]);
    }
}
