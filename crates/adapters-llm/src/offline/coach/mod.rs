//! The offline coach: the opener mirrors the profile back; a person's turn is reflected back
//! with one question, and only an explicit correction or addition of a named part becomes a
//! revision, built from the person's own words and noted with a quote of what they said.

pub mod corrections;
pub mod voice;

use std::cmp::Reverse;

use domain::ports::CoachRequest;
use domain::profile::provenance::QUOTE_MAX_CHARS;
use domain::profile::{EditableField, Profile};
use domain::reflection::{Author, CoachReplyDraft, CoachText, ProposedRevision, ReflectionTurn};
use domain::text::{Note, Prose};

use self::corrections::{Change, Correction, Reading, read, read_for};
use self::voice::{Voice, part_heading, voice};
use super::lexicon::LEXICON;
use super::text::{
    capitalize_first, contains_phrase, content_words, cut, cut_words, find_phrase, join_sentences,
    sentences, verbatim_prefix,
};

/// How much of each summary the opener quotes (its first sentence, cut to this).
pub const OPENER_PREVIEW_CHARS: usize = 200;
/// How much of a new value a revision reply shows.
pub const REVISION_PREVIEW_CHARS: usize = 300;
/// The reflected quote of a person's turn: at most this many words and characters.
pub const REFLECT_QUOTE_WORDS: usize = 25;
pub const REFLECT_QUOTE_CHARS: usize = 240;
/// A follow-up that only names the part ("My mission.") has at most this many words.
pub const FOLLOW_UP_MAX_WORDS: usize = 8;

/// The frame of a revision note; the quote of the person's sentences follows it.
pub const NOTE_LEAD: &str = "You said: ";

/// The coach's reply to one turn.
#[must_use]
pub fn reply(request: &CoachRequest) -> CoachReplyDraft {
    let voice = voice(request.style);
    let draft = match &request.turn {
        ReflectionTurn::Opener => plain(opener(&request.profile, voice)),
        ReflectionTurn::Message(text) => respond(request, voice, text.as_str()),
    };
    CoachReplyDraft {
        message: cut(&draft.message, CoachText::MAX),
        ..draft
    }
}

fn plain(message: String) -> CoachReplyDraft {
    CoachReplyDraft {
        message,
        revisions: Vec::new(),
        revision_note: None,
    }
}

/// Type and triad in plain words, the first sentence of each summary, the stated goals (or that
/// none was stated), and an open question.
fn opener(profile: &Profile, voice: &Voice) -> String {
    let mut lines = vec![voice.opener_lead.to_owned(), type_line(profile, voice)];
    let show = |field: EditableField| {
        profile.prose.get(field).map(|value| {
            format!(
                "{}: “{}”",
                part_heading(field),
                first_sentence(value.as_str(), OPENER_PREVIEW_CHARS)
            )
        })
    };
    lines.extend(
        [
            EditableField::LoveSummary,
            EditableField::StrengthSummary,
            EditableField::MissionSummary,
            EditableField::VocationSummary,
        ]
        .into_iter()
        .filter_map(&show),
    );
    let goals: Vec<String> = [
        EditableField::NearTermGoalSummary,
        EditableField::LongTermGoalSummary,
    ]
    .into_iter()
    .filter_map(&show)
    .collect();
    if goals.is_empty() {
        lines.push(voice.no_goals.to_owned());
    } else {
        lines.extend(goals);
    }
    lines.push(voice.opener_question.to_owned());
    lines.join("\n")
}

fn type_line(profile: &Profile, voice: &Voice) -> String {
    let n = profile.enneagram_type.get();
    let gist = LEXICON
        .iter()
        .find(|l| l.enneagram_type == n)
        .map_or("", |l| l.gist);
    voice.type_line(n, profile.triad(), gist)
}

fn first_sentence(text: &str, max_chars: usize) -> String {
    let first = sentences(text).first().copied().unwrap_or(text.trim());
    cut(first, max_chars)
}

fn respond(request: &CoachRequest, voice: &Voice, message: &str) -> CoachReplyDraft {
    let coach_turns = request
        .dialogue
        .iter()
        .filter(|m| m.author == Author::Coach)
        .count();
    let question = voice.reflect_questions[coach_turns % voice.reflect_questions.len()];
    match read(message) {
        Reading::Protected => plain(format!("{} {}", voice.protected, voice.opener_question)),
        Reading::Corrections(mut corrections) => {
            let before = corrections.len();
            corrections.retain(|c| !declines_goal(c));
            if corrections.is_empty() && before > 0 {
                return plain(format!("{} {question}", voice.goal_clear));
            }
            revise(&request.profile, voice, &corrections, &[])
                .unwrap_or_else(|| plain(reflect(voice, message, question.to_owned())))
        }
        Reading::UnnamedCorrection(_) => plain(reflect(voice, message, voice.ask_part())),
        Reading::Remark {
            part,
            mentions_type,
        } => {
            if let Some(reply) = part.and_then(|field| follow_up(request, voice, message, field)) {
                return reply;
            }
            if mentions_type {
                // A question about the type is answered with what the profile says about it.
                return plain(format!("{} {question}", type_line(&request.profile, voice)));
            }
            let ask = match part {
                Some(field) => voice.part_question(field),
                None => question.to_owned(),
            };
            plain(reflect(voice, message, ask))
        }
    }
}

/// A short turn that only names a part, right after a correction that named none (the coach
/// asked which part was meant): the earlier correction is applied to that part.
fn follow_up(
    request: &CoachRequest,
    voice: &Voice,
    message: &str,
    field: EditableField,
) -> Option<CoachReplyDraft> {
    if message.split_whitespace().count() > FOLLOW_UP_MAX_WORDS {
        return None;
    }
    let earlier = request
        .dialogue
        .iter()
        .rev()
        .find(|m| m.author == Author::Person)?;
    let Reading::UnnamedCorrection(sentence) = read(&earlier.text) else {
        return None;
    };
    let correction = read_for(sentence, field).filter(|c| !declines_goal(c))?;
    revise(&request.profile, voice, &[correction], &[message.trim()])
}

/// Words that say a goal is gone rather than what it is: the coach never turns them into a goal,
/// and it cannot clear one (only the person can, by editing).
const NO_GOAL: &[&str] = &[
    "don't have",
    "do not have",
    "haven't got",
    "no goal",
    "no such",
    "no longer",
    "not anymore",
    "none",
    "remove",
    "delete",
    "clear it",
    "drop it",
];

fn declines_goal(correction: &Correction<'_>) -> bool {
    correction.field.is_nullable()
        && NO_GOAL
            .iter()
            .any(|p| contains_phrase(correction.sentence, p))
}

/// The reply that proposes the corrections, or `None` when none changes anything.
fn revise(
    profile: &Profile,
    voice: &Voice,
    corrections: &[Correction<'_>],
    also_quote: &[&str],
) -> Option<CoachReplyDraft> {
    let mut revisions: Vec<ProposedRevision> = Vec::new();
    let mut quoted: Vec<&str> = Vec::new();
    for correction in corrections {
        let current = profile
            .prose
            .get(correction.field)
            .map(Prose::as_str)
            .filter(|s| !s.trim().is_empty());
        let value = new_value(current, &correction.change);
        if value.trim().is_empty() || Some(value.as_str()) == current {
            continue;
        }
        // The last correction of a field wins, as in the domain's guard.
        revisions.retain(|r| r.field != correction.field.name());
        revisions.push(ProposedRevision {
            field: correction.field.name().to_owned(),
            value,
            // The person's sentence the change comes from: the words it rests on.
            quotes: vec![verbatim_prefix(correction.sentence, QUOTE_MAX_CHARS)],
        });
        if !quoted.contains(&correction.sentence) {
            quoted.push(correction.sentence);
        }
    }
    if revisions.is_empty() {
        return None;
    }
    quoted.extend(also_quote.iter().filter(|q| !q.is_empty()));
    let quote = cut(&quoted.join(" "), Note::MAX - NOTE_LEAD.chars().count() - 2);
    let mut lines = vec![voice.revised_lead.to_owned()];
    for revision in &revisions {
        let heading = revision
            .field
            .parse::<EditableField>()
            .map_or("", part_heading);
        lines.push(format!(
            "{heading}: “{}”",
            cut(&revision.value, REVISION_PREVIEW_CHARS)
        ));
    }
    lines.push(voice.revised_question.to_owned());
    Some(CoachReplyDraft {
        message: lines.join("\n"),
        revisions,
        revision_note: Some(format!("{NOTE_LEAD}“{quote}”")),
    })
}

/// The new text of a part: a replacement as given; an addition after the current text (the
/// current text is shortened, never the addition, when both exceed the cap); a swap of the old
/// words for the new ones where the part holds them, else the person's sentence.
fn new_value(current: Option<&str>, change: &Change) -> String {
    match change {
        Change::Replace(value) => cut(value, Prose::MAX),
        Change::Append(addition) => {
            let addition = cut(addition, Prose::MAX);
            let room = Prose::MAX.saturating_sub(addition.chars().count() + 1);
            match current {
                Some(current) if room > 1 => join_sentences(&[cut(current, room), addition]),
                _ => addition,
            }
        }
        Change::Swap { old, new, fallback } => match current {
            Some(current) if find_phrase(current, &old.to_lowercase(), 0).is_some() => {
                cut(&swap(current, &old.to_lowercase(), new), Prose::MAX)
            }
            _ => cut(fallback, Prose::MAX),
        },
    }
}

/// Every occurrence of `old` (lower case, on word boundaries) in `text` replaced by `new`,
/// capitalised where the occurrence was.
fn swap(text: &str, old: &str, new: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    while let Some((start, end)) = find_phrase(text, old, from) {
        out.push_str(&text[from..start]);
        if text[start..].chars().next().is_some_and(char::is_uppercase) {
            out.push_str(&capitalize_first(new));
        } else {
            out.push_str(new);
        }
        from = end;
    }
    out.push_str(&text[from..]);
    out
}

/// The person's richest sentence quoted back, then `ask`.
fn reflect(voice: &Voice, message: &str, ask: String) -> String {
    let best = sentences(message)
        .into_iter()
        .enumerate()
        .max_by_key(|(i, s)| (content_words(s).len(), Reverse(*i)))
        .map(|(_, s)| s);
    match best {
        Some(sentence) => format!(
            "{} “{}” {ask}",
            voice.reflect_lead,
            cut_words(sentence, REFLECT_QUOTE_WORDS, REFLECT_QUOTE_CHARS)
        ),
        None => format!("{} {ask}", voice.listening),
    }
}
