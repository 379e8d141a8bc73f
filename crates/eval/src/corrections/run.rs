//! One phrasing through the offline coach, judged: which part it changed and how, whether the
//! change kept what it had to keep, and whether it passes the service's checks (the quote is
//! verified against the person's turn, the new sentences rest on the person's words).

use adapters_llm::offline::coach::{Act, reply_and_act};
use adapters_llm::offline::grounding::is_grounded;
use adapters_llm::offline::text::sentences;
use domain::coaching::CoachingStyle;
use domain::ports::CoachRequest;
use domain::profile::{EditableField, Profile};
use domain::reflection::{
    Author, CoachReply, CoachReplyDraft, ReflectionMessage, ReflectionTurn, person_words,
};
use domain::text::MessageText;

use super::corpus::{Case, Effect};
use crate::phrase::contains_phrase;

/// What the coach did with one phrasing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome<'a> {
    pub case: &'a Case,
    /// The effect the coach had.
    pub effect: Effect,
    /// The fields it changed, as the service would store them (after the guard).
    pub changed: Vec<EditableField>,
    /// Changed fields the phrasing is not about.
    pub unmentioned: usize,
    /// Why the outcome is not what the case expects (empty: it is).
    pub failures: Vec<String>,
}

impl Outcome<'_> {
    #[must_use]
    pub fn right(&self) -> bool {
        self.failures.is_empty()
    }

    /// A change expected, and exactly the expected field changed.
    #[must_use]
    pub fn right_field(&self) -> bool {
        self.case.effect.changes()
            && self.changed == self.case.field.into_iter().collect::<Vec<_>>()
    }
}

/// Runs `case` against `profile` and judges it.
#[must_use]
pub fn run<'a>(profile: &Profile, case: &'a Case) -> Outcome<'a> {
    let Ok(text) = MessageText::new(case.say.clone()) else {
        return Outcome {
            case,
            effect: Effect::None,
            changed: Vec::new(),
            unmentioned: 0,
            failures: vec!["the phrasing is not a valid message".to_owned()],
        };
    };
    let turn = ReflectionTurn::Message(text);
    let request = CoachRequest {
        profile: profile.clone(),
        dialogue: Vec::new(),
        style: CoachingStyle::Direct,
        turn: turn.clone(),
        feedback: None,
    };
    let (draft, act) = reply_and_act(&request);
    let said = ReflectionMessage::new(
        profile.user_id,
        Author::Person,
        case.say.clone(),
        profile.created_at,
    );
    let guarded = draft.clone().guard(&turn, &person_words(&[], Some(&said)));
    let changed: Vec<EditableField> = guarded.edit.changes().map(|(f, _)| f).collect();
    let effect = match act {
        Act::Asked => Effect::Ask,
        Act::Replied => Effect::None,
        Act::Revised => draft
            .revisions
            .first()
            .map_or(Effect::None, |r| effect_of(profile, &r.field, &r.value)),
    };
    let mut failures = check_failures(profile, case, &draft, &guarded);
    let unmentioned = changed.iter().filter(|f| Some(**f) != case.field).count();
    if unmentioned > 0 {
        failures.push(format!("changed a field it is not about: {changed:?}"));
    }
    failures.extend(effect_failure(case, effect, &changed));
    failures.extend(wording_failures(case, &draft));
    Outcome {
        case,
        effect,
        changed,
        unmentioned,
        failures,
    }
}

/// Where the draft fails the service's checks: a revision the guard refused, a new sentence
/// resting neither on the person's turn nor on the field's old text, a revision without a
/// verified source.
fn check_failures(
    profile: &Profile,
    case: &Case,
    draft: &CoachReplyDraft,
    guarded: &CoachReply,
) -> Vec<String> {
    let mut failures = Vec::new();
    if guarded.edit.len() != draft.revisions.len() {
        failures.push("a revision did not pass the service's guard".to_owned());
    }
    for revision in &draft.revisions {
        let old = old_text(profile, &revision.field);
        for sentence in sentences(&revision.value) {
            if !old.contains(sentence) && !is_grounded(sentence, &[case.say.as_str(), &old]) {
                failures.push(format!("not grounded in the person's words: {sentence:?}"));
            }
        }
        if guarded.sources.count() == 0 {
            failures.push("no verified source".to_owned());
        }
    }
    failures
}

/// The effect is not the expected one, or the expected change was made to other fields.
fn effect_failure(case: &Case, effect: Effect, changed: &[EditableField]) -> Option<String> {
    if effect != case.effect {
        Some(format!(
            "{} instead of {}",
            effect.name(),
            case.effect.name()
        ))
    } else if case.effect.changes() && changed != case.field.into_iter().collect::<Vec<_>>() {
        Some(format!("changed {changed:?}, not {:?}", case.field))
    } else {
        None
    }
}

/// The first revision's text lacks the words it must have or keep, or still holds the words it
/// must lose.
fn wording_failures(case: &Case, draft: &CoachReplyDraft) -> Vec<String> {
    let Some(value) = draft.revisions.first().map(|r| r.value.as_str()) else {
        return Vec::new();
    };
    let checks = [
        (&case.has, true, "lacks"),
        (&case.keeps, true, "lost"),
        (&case.gone, false, "still holds"),
    ];
    let mut failures = Vec::new();
    for (words, wanted, verb) in checks {
        if let Some(words) = words
            && contains_phrase(value, words) != wanted
        {
            failures.push(format!("{verb} {words:?}: {value:?}"));
        }
    }
    failures
}

fn old_text(profile: &Profile, field: &str) -> String {
    field
        .parse::<EditableField>()
        .ok()
        .and_then(|f| profile.prose.get(f))
        .map(|p| p.as_str().to_owned())
        .unwrap_or_default()
}

/// How a revision changed its field: a goal field is a goal; the old text with more after it is
/// an addition; fewer sentences, all of them old, or a shorter text is a removal; else a
/// replacement.
fn effect_of(profile: &Profile, field: &str, value: &str) -> Effect {
    let Ok(parsed) = field.parse::<EditableField>() else {
        return Effect::None;
    };
    if parsed.is_nullable() {
        return Effect::Goal;
    }
    let old = old_text(profile, field);
    let words = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let (old_words, new_words) = (words(&old), words(value));
    if value.starts_with(old.trim()) && value.len() > old.trim().len() {
        Effect::Add
    } else if new_words.len() < old_words.len() && new_words.iter().all(|w| old_words.contains(w)) {
        Effect::Remove
    } else {
        Effect::Replace
    }
}
