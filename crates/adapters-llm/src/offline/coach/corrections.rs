//! Reading a person's reflection turn: which sentences correct, add to, swap words in, remove
//! from or compare within a part of the profile, or state a goal, and which one part each is
//! about. When the part cannot be told, the turn asks instead of guessing; anything else is a
//! remark that changes nothing.

use domain::profile::{EditableField, Profile};

use super::cues::{Cue, Edit, Found, find, horizon};
use super::parts::{about, holding, named, strongly_named};
use crate::offline::text::{contains_phrase, sentences, without_terminator};

/// One correction: the part, the edit, and the person's sentence it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Correction<'a> {
    pub field: EditableField,
    pub edit: Edit,
    pub sentence: &'a str,
}

/// What a turn is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading<'a> {
    /// It asks to change the type or triad, or to ignore the coach's rules: nothing changes.
    Protected,
    /// Corrections, each of one part.
    Corrections(Vec<Correction<'a>>),
    /// A correction whose part cannot be told: the parts it may be about (two, or none known).
    Ask {
        sentence: &'a str,
        candidates: Vec<EditableField>,
    },
    /// A plain remark; the part it mentions, if any, and whether it mentions type or triad.
    Remark {
        part: Option<EditableField>,
        mentions_type: bool,
    },
}

/// Attempts to instruct the engine instead of talking to it: never followed.
const INJECTIONS: &[&str] = &[
    "ignore previous",
    "ignore all",
    "ignore the above",
    "ignore everything",
    "ignore your",
    "disregard",
    "previous instructions",
    "prior instructions",
    "system prompt",
    "system message",
    "developer message",
    "jailbreak",
    "you are now",
];

/// The parts reflection never changes.
const FIXED_PARTS: &[&str] = &[
    "triad",
    "enneagram",
    "enneagram_type",
    "my type",
    "type 1",
    "type 2",
    "type 3",
    "type 4",
    "type 5",
    "type 6",
    "type 7",
    "type 8",
    "type 9",
];

/// Verbs of a request to change something.
const CHANGE_VERBS: &[&str] = &[
    "set", "change", "switch", "make", "update", "replace", "turn", "edit",
];

/// Reads one turn of the person's against the profile it would change.
#[must_use]
pub fn read<'a>(message: &'a str, profile: &Profile) -> Reading<'a> {
    let found: Vec<(&str, Found)> = sentences(message)
        .into_iter()
        .map(|s| (s, find(s)))
        .collect();
    let has_cue = found.iter().any(|(_, f)| *f != Found::Nothing);
    let mentions_type = FIXED_PARTS.iter().any(|p| contains_phrase(message, p));
    let wants_change = has_cue || CHANGE_VERBS.iter().any(|v| contains_phrase(message, v));
    if INJECTIONS.iter().any(|p| contains_phrase(message, p)) || (mentions_type && wants_change) {
        return Reading::Protected;
    }
    let mut corrections = Vec::new();
    let mut ask = None;
    let mut carry: Option<EditableField> = None;
    let mut pending: Option<Option<EditableField>> = None;
    for (sentence, found) in found {
        let cue = match found {
            Found::Wrong => {
                let part = named(sentence).or(carry);
                pending = Some(part);
                carry = part;
                continue;
            }
            Found::Nothing => match pending.take() {
                // "You got my strengths wrong. I'm great with scared kids.": this says what is right.
                Some(part) => {
                    carry = part.or(carry);
                    Cue {
                        edit: Edit::Restate {
                            said: without_terminator(sentence).to_owned(),
                            anchor: None,
                        },
                        rest: String::new(),
                        horizon: None,
                    }
                }
                None => {
                    carry = named(sentence).or(carry);
                    continue;
                }
            },
            Found::Cue(cue) => {
                pending = None;
                cue
            }
        };
        match part_of(&cue, carry, profile) {
            Ok(field) => {
                carry = Some(field);
                corrections.push(Correction {
                    field,
                    edit: cue.edit,
                    sentence,
                });
            }
            Err(candidates) => {
                ask = ask.or(Some(Reading::Ask {
                    sentence,
                    candidates,
                }));
            }
        }
    }
    if !corrections.is_empty() {
        Reading::Corrections(corrections)
    } else if let Some(ask) = ask {
        ask
    } else {
        Reading::Remark {
            part: carry,
            mentions_type,
        }
    }
}

/// The correction in `sentence`, applied to `field` (the person named the part in a later turn,
/// after the coach asked which part they meant).
#[must_use]
pub fn read_for(sentence: &str, field: EditableField) -> Option<Correction<'_>> {
    match find(sentence) {
        Found::Cue(cue) => Some(Correction {
            field,
            edit: cue.edit,
            sentence,
        }),
        Found::Wrong | Found::Nothing => None,
    }
}

/// The one part a cue is about, or the candidates to ask about (none: any part).
///
/// A part the person names outside their new words decides (two named: ask). Otherwise what
/// their own words say decides for a restatement or an addition ("I'm best at ..." is about what
/// they are good at); a part named in an earlier sentence carries over; and for a swap or a
/// removal, the part whose text holds the old words (two of them: ask).
fn part_of(
    cue: &Cue,
    carry: Option<EditableField>,
    profile: &Profile,
) -> Result<EditableField, Vec<EditableField>> {
    if let Edit::Goal(_) = cue.edit {
        let goals = [
            EditableField::NearTermGoalSummary,
            EditableField::LongTermGoalSummary,
        ];
        return cue
            .horizon
            .or_else(|| match &cue.edit {
                Edit::Goal(said) => horizon(said),
                _ => None,
            })
            .ok_or_else(|| goals.to_vec());
    }
    let named_outside = strongly_named(&cue.rest);
    if let [first, second, ..] = named_outside[..] {
        return Err(vec![first, second]);
    }
    if let [only] = named_outside[..] {
        return Ok(only);
    }
    match &cue.edit {
        Edit::Restate { said: words, .. } | Edit::Add(words) => about(words)
            .or(cue.horizon)
            .or_else(|| named(&cue.rest))
            .or(carry)
            .ok_or_else(Vec::new),
        Edit::Swap { old: words, .. } | Edit::Remove(words) => {
            if let Some(field) = named(&cue.rest).or(carry) {
                return Ok(field);
            }
            match holding(profile, words)[..] {
                [only] => Ok(only),
                [first, second, ..] => Err(vec![first, second]),
                // "Remove my strengths": the words are the part's own name.
                [] => named(words).ok_or_else(Vec::new),
            }
        }
        Edit::Goal(_) => Err(Vec::new()),
    }
}
