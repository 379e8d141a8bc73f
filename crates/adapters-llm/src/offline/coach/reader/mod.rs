//! The coach's reader: what a person's message claims, not which template it matches. The
//! message is cleaned of chat and slips ([`crate::offline::chat`]); its act is read from its own
//! evidence (a question, a removal, a swap, a contrast, an addition, a definition, a goal); the
//! part it is about is scored from several kinds of evidence together ([`evidence`], the
//! horizon of a time expression, where the words it points at stand in the profile). It asks
//! which part is meant only when two are equally likely or nothing points anywhere, and says
//! why it chose a part.

pub mod acts;
pub mod claims;
pub mod evidence;
pub mod horizon;
pub mod locate;

use domain::profile::{EditableField, Profile};

use crate::offline::chat;
use crate::offline::text::{content_words, normalize, words};

use self::claims::{Claim, Kind};
use EditableField::{LongTermGoalSummary as Long, NearTermGoalSummary as Near};

/// What the reader understood of a message.
#[derive(Debug, Clone, PartialEq)]
pub enum Understood {
    /// One change to one part.
    Change(Change),
    /// A change whose part cannot be told: the parts it may be about (none known: any).
    Ask(Vec<EditableField>),
    /// A question: it is answered, nothing changes.
    Question,
    /// The person says a goal is gone: only they can clear it, by editing.
    DeclinesGoal,
    /// No change is asked for.
    Nothing,
}

/// One change to one part, and why that part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub field: EditableField,
    pub op: Op,
    pub why: Why,
}

/// What the change does, in the person's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    Add(String),
    Replace { new: String, old: Option<String> },
    Remove(String),
    Swap { old: String, new: String },
}

/// Why the reader chose the part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// The person named it.
    Named,
    /// The words they point at stand there.
    Holds,
    /// A time expression gave its horizon.
    Horizon,
    /// What their words are about.
    About,
}

/// Reads `message` against the profile it would change.
#[must_use]
pub fn understand(message: &str, profile: &Profile) -> Understood {
    let known = profile_words(profile);
    let text = chat::clean(message, &known);
    if acts::is_question(&text) && !acts::is_request(&text) {
        return Understood::Question;
    }
    if declines_goal(&text) {
        return Understood::DeclinesGoal;
    }
    if let Some(removal) = acts::removal(&text) {
        return removal_of(&removal, profile);
    }
    if let Some(swap) = acts::swap(&text) {
        return swap_of(swap, profile);
    }
    match claims::read(&text) {
        Some(claim) => claim_of(claim, &text, profile),
        None => Understood::Nothing,
    }
}

/// Words that say a goal is gone rather than what it is.
const NO_GOAL: &[&str] = &[
    "don't have",
    "do not have",
    "haven't got",
    "no goal",
    "no longer",
    "not anymore",
    "anymore",
    "remove",
    "delete",
    "clear",
    "drop",
];

/// Whether `text` says a goal part is gone ("I don't have a long-term goal anymore", "remove
/// my near-term goal"), naming the goal itself rather than words in it.
fn declines_goal(text: &str) -> bool {
    let named_goal = evidence::named(text).iter().any(|f| f.is_nullable())
        || ["my goal", "the goal", "a goal"]
            .iter()
            .any(|g| crate::offline::text::find_phrase(text, g, 0).is_some());
    named_goal
        && NO_GOAL
            .iter()
            .any(|p| crate::offline::text::find_phrase(text, p, 0).is_some())
}

/// The words of the profile's text: the person's own, never respelled.
fn profile_words(profile: &Profile) -> Vec<String> {
    EditableField::ALL
        .into_iter()
        .filter_map(|f| profile.prose.get(f))
        .flat_map(|p| {
            words(p.as_str())
                .into_iter()
                .map(|(_, w)| normalize(w))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn removal_of(removal: &acts::Removal, profile: &Profile) -> Understood {
    let object = if acts::points_back(&removal.object) {
        removal.before.clone()
    } else {
        removal.object.clone()
    };
    let pointed = pointed_part(&removal.pointer);
    // "Remove everything about what I love": the whole part, which is never emptied.
    if let [field] = evidence::named(&object)[..]
        && names_only_a_part(&object)
    {
        return Understood::Ask(vec![field]);
    }
    let holding = locate::standing(profile, &object);
    let change = |field, why| {
        Understood::Change(Change {
            field,
            op: Op::Remove(object.clone()),
            why,
        })
    };
    match (&pointed[..], &holding[..]) {
        ([field], _) => change(*field, Why::Named),
        (_, [field]) => change(*field, Why::Holds),
        (_, [first, second, ..]) => Understood::Ask(vec![*first, *second]),
        _ => Understood::Ask(Vec::new()),
    }
}

/// The part a pointer names ("from my strengths", "in my work section"), when one leads.
fn pointed_part(pointer: &str) -> Vec<EditableField> {
    let scores = evidence::scores(pointer);
    let top = scores.iter().map(|(_, s)| *s).fold(0.0_f32, f32::max);
    if top >= 1.5 {
        evidence::leaders(&scores)
    } else {
        Vec::new()
    }
}

/// Whether words name a part and nothing in it ("everything about what I love").
fn names_only_a_part(object: &str) -> bool {
    let mut rest = object.to_lowercase();
    for name in [
        "what i love",
        "what i'm good at",
        "my strengths",
        "my mission",
        "everything",
        "all of",
        "about",
        "the part",
        "whole",
    ] {
        rest = rest.replace(name, " ");
    }
    content_words(&rest).is_empty()
}

fn swap_of(swap: acts::Swap, profile: &Profile) -> Understood {
    if let [field] = pointed_part(&swap.pointer)[..] {
        return Understood::Change(Change {
            field,
            op: Op::Swap {
                old: swap.old,
                new: swap.new,
            },
            why: Why::Named,
        });
    }
    match locate::standing(profile, &swap.old)[..] {
        [field] => Understood::Change(Change {
            field,
            op: Op::Swap {
                old: swap.old,
                new: swap.new,
            },
            why: Why::Holds,
        }),
        [first, second, ..] => Understood::Ask(vec![first, second]),
        [] => Understood::Ask(Vec::new()),
    }
}

fn claim_of(claim: Claim, text: &str, profile: &Profile) -> Understood {
    let (field, why) = match part_of_claim(&claim, text, profile) {
        Ok(found) => found,
        Err(candidates) => {
            // A contrast or definition pointing nowhere is a remark, not a request.
            return if claim.kind == Kind::Replace && candidates.is_empty() {
                Understood::Nothing
            } else {
                Understood::Ask(candidates)
            };
        }
    };
    let op = match claim.kind {
        Kind::Add => Op::Add(claim.content),
        Kind::Replace => Op::Replace {
            new: claim.content,
            old: claim.old,
        },
    };
    Understood::Change(Change { field, op, why })
}

/// The part a claim is about: a goal by its horizon; otherwise the evidence of the pointer
/// (twice), of the new words, of the whole message (half), where the replaced words stand, and
/// the profile's own words.
fn part_of_claim(
    claim: &Claim,
    text: &str,
    profile: &Profile,
) -> Result<(EditableField, Why), Vec<EditableField>> {
    let named_here = evidence::named(&claim.pointer);
    let horizon = horizon::find(text);
    let goalish =
        claim.wish || evidence::names_a_goal(text) || horizon::find(&claim.pointer).is_some();
    let non_goal_named = named_here.iter().any(|f| !f.is_nullable());
    if let Some(h) = horizon
        && goalish
        && !non_goal_named
    {
        return Ok((h.field, Why::Horizon));
    }
    if let [field] = named_here[..] {
        return Ok((field, Why::Named));
    }
    // The head of a definition names its part ("what I could earn money with is ...").
    let pointed = pointed_part(&claim.pointer);
    if let [field] = pointed[..]
        && (goalish || !field.is_nullable())
    {
        return Ok((field, Why::Named));
    }
    // Where the replaced words stand: in the profile's text, else in the person's answers
    // (a summary leaves some of what they wrote out).
    let held = claim
        .old
        .as_deref()
        .map(|old| match locate::holding(profile, old) {
            held if held.is_empty() => locate::answered(profile, old),
            held => held,
        })
        .unwrap_or_default();
    // What the new words are about decides first; then how the person describes what they
    // correct ("it's not training people I'm best at"); then where the old words stand.
    let clear = |scores: &[(EditableField, f32)]| match evidence::leaders(scores)[..] {
        [field] if scores.iter().any(|(_, s)| *s >= 1.5) && (goalish || !field.is_nullable()) => {
            Some(field)
        }
        _ => None,
    };
    if let Some(field) = clear(&evidence::scores(&claim.content)) {
        return Ok((field, Why::About));
    }
    let described = format!("{} {}", claim.pointer, claim.old.as_deref().unwrap_or(""));
    if let Some(field) = clear(&evidence::scores(&described)) {
        return Ok((field, Why::About));
    }
    match held[..] {
        [field] => return Ok((field, Why::Holds)),
        // "It's not calm, it's patient" where two parts say calm: which one?
        [first, second, ..] if claim.kind == Kind::Replace && named_here.is_empty() => {
            return Err(vec![first, second]);
        }
        _ => {}
    }
    if evidence::names_a_goal(text) && horizon.is_none() {
        return Err(vec![Near, Long]);
    }
    let scores = weighed(claim, text, profile, goalish);
    // A replacement needs more than the profile's own words to go on.
    let floor = if claim.kind == Kind::Replace {
        1.0
    } else {
        0.5
    };
    let top = scores.iter().map(|(_, s)| *s).fold(0.0_f32, f32::max);
    match evidence::leaders(&scores)[..] {
        [field] if top >= floor => Ok((field, Why::About)),
        [_] => Err(Vec::new()),
        ref open => Err(open.to_vec()),
    }
}

/// Every kind of evidence weighed together: the new words, the pointer (twice), the whole
/// message, where the replaced words stand even in part, and the profile's own words (half). A
/// goal needs a wish or a horizon: words about being paid are no goal by themselves.
fn weighed(
    claim: &Claim,
    text: &str,
    profile: &Profile,
    goalish: bool,
) -> Vec<(EditableField, f32)> {
    let mut scores = evidence::scores(&claim.content);
    for (slot, (_, s)) in scores.iter_mut().zip(evidence::scores(&claim.pointer)) {
        slot.1 += 2.0 * s;
    }
    for (slot, (_, s)) in scores.iter_mut().zip(evidence::scores(text)) {
        slot.1 += s;
    }
    // Where the replaced words stand, even in part, is evidence too.
    if let Some(old) = &claim.old {
        for (field, n) in locate::kinship(profile, old) {
            if let Some(slot) = scores.iter_mut().find(|(f, _)| *f == field) {
                #[allow(clippy::cast_precision_loss)]
                let share = n.min(3) as f32;
                slot.1 += share;
            }
        }
    }
    for (field, n) in locate::kinship(profile, &claim.content) {
        if let Some(slot) = scores.iter_mut().find(|(f, _)| *f == field) {
            #[allow(clippy::cast_precision_loss)]
            let share = n.min(3) as f32 * 0.5;
            slot.1 += share;
        }
    }
    for slot in &mut scores {
        if slot.0.is_nullable() && !goalish {
            slot.1 = 0.0;
        }
    }
    scores
}

/// Whether `text` holds a content word at all (a message of only "ok!" or emoji does not).
#[must_use]
pub fn says_anything(text: &str) -> bool {
    !content_words(text).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A profile made by the offline engine from answers of our own.
    pub fn profile() -> Profile {
        let input = domain::discovery::ExtractionInput {
            love: "I love fishing, chess and golf.".into(),
            strength: "I am good at welding. Neighbours ask me to fix fences.".into(),
            mission: "I want to help kids from my street.".into(),
            vocation: "I could be paid for welding or fixing fences.".into(),
            drives: "I want things done right. Under stress I get angry.".into(),
            near_term_goal: Some("Get my welding ticket.".into()),
            long_term_goal: Some("Open a small workshop by the river.".into()),
        };
        let draft = crate::offline::extraction::draft(&input)
            .expect("a draft")
            .0;
        let text = serde_json::to_string(&draft).expect("json");
        let extraction = domain::discovery::ExtractionDraft::parse(&text)
            .expect("parses")
            .guard(&input)
            .expect("passes the guard");
        Profile::extracted(
            domain::ids::UserId::new(),
            extraction,
            time::OffsetDateTime::UNIX_EPOCH,
        )
        .profile
    }

    #[test]
    fn no_message_makes_the_reader_panic() {
        let p = profile();
        let pieces = [
            "—",
            "é",
            "😅",
            "’",
            ":",
            ",",
            "not",
            "also",
            "less",
            "more",
            "take",
            "out",
            "rather than",
            "by june",
            "I",
            "ñandú",
            "…",
        ];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let message = format!("{a} golf {b} welding{c} kids {a}{b}");
                    let _ = understand(&message, &p);
                }
            }
        }
    }
}
