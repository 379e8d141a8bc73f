//! The offline coach: the opener mirrors the profile back; a person's turn is said back in the
//! second person with one question; a correction, addition, swap, removal, comparison or goal
//! becomes a revision of the one part it is about, said back in the person's own words and noted
//! with a quote of what they said. When the part cannot be told, the coach asks.

pub mod answers;
pub mod changes;
pub mod corrections;
pub mod cue_words;
pub mod cues;
pub mod edit;
pub mod parts;
pub mod reader;
pub mod revise;
pub mod voice;

use std::cmp::Reverse;

use domain::ports::CoachRequest;
use domain::profile::provenance::QUOTE_MAX_CHARS;
use domain::profile::{EditableField, Profile};
use domain::reflection::{Author, CoachReplyDraft, CoachText, ProposedRevision, ReflectionTurn};
use domain::text::{Note, Prose};

use self::corrections::{Correction, Reading, read, read_for};
use self::reader::Understood;
use self::revise::{Revised, apply};
use self::voice::{Voice, part_heading, voice};
use super::lexicon::LEXICON;
use super::mirror::{is_english, lower_first, mirror, reads_english};
use super::text::{
    contains_phrase, content_words, cut, cut_words, ends_with_terminator, sentences,
    verbatim_prefix, without_terminator,
};

/// How much of each summary the opener quotes (its first sentence, cut to this).
pub const OPENER_PREVIEW_CHARS: usize = 200;
/// How much of a new value a revision reply shows.
pub const REVISION_PREVIEW_CHARS: usize = 300;
/// The reflected sentence of a person's turn: at most this many words and characters.
pub const REFLECT_QUOTE_WORDS: usize = 25;
pub const REFLECT_QUOTE_CHARS: usize = 240;
/// A follow-up that only names the part ("My mission.") has at most this many words.
pub const FOLLOW_UP_MAX_WORDS: usize = 8;

/// The frame of a revision note; the quote of the person's sentences follows it.
pub const NOTE_LEAD: &str = "You said: ";

/// What the coach did with a turn (for the correction corpus of `discovery-eval`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    /// It proposed revisions.
    Revised,
    /// It could not tell which part was meant, or a removal would empty a part: it asked.
    Asked,
    /// It reflected, answered or declined, and changed nothing.
    Replied,
}

/// The coach's reply to one turn.
#[must_use]
pub fn reply(request: &CoachRequest) -> CoachReplyDraft {
    reply_and_act(request).0
}

/// The coach's reply to one turn, and what it did.
#[must_use]
pub fn reply_and_act(request: &CoachRequest) -> (CoachReplyDraft, Act) {
    let voice = voice(request.style);
    let (draft, act) = match &request.turn {
        ReflectionTurn::Opener => (plain(opener(&request.profile, voice)), Act::Replied),
        ReflectionTurn::Message(text) => respond(request, voice, text.as_str()),
    };
    let draft = CoachReplyDraft {
        message: cut(&draft.message, CoachText::MAX),
        ..draft
    };
    (draft, act)
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

fn respond(request: &CoachRequest, voice: &Voice, message: &str) -> (CoachReplyDraft, Act) {
    let coach_turns = request
        .dialogue
        .iter()
        .filter(|m| m.author == Author::Coach)
        .count();
    let question = voice.reflect_questions[coach_turns % voice.reflect_questions.len()];
    let replied = |message: String| (plain(message), Act::Replied);
    let older = read(message, &request.profile);
    if older == Reading::Protected {
        return replied(format!("{} {}", voice.protected, voice.opener_question));
    }
    if !reads_english(&super::chat::clean(message, &[]))
        && reader::evidence::scores(message)
            .iter()
            .all(|(_, s)| *s <= 0.0)
    {
        return replied(OTHER_LANGUAGE.to_owned());
    }
    match reader::understand(message, &request.profile) {
        Understood::Change(change) => {
            if let Some(reply) = changes::make(&request.profile, voice, &change, message) {
                return reply;
            }
        }
        Understood::Ask(candidates) => return (plain(voice.ask(&candidates)), Act::Asked),
        Understood::Question => {
            let line = type_line(&request.profile, voice);
            if let Some(answer) = answers::answer(message, &line) {
                return replied(format!("{answer} {question}"));
            }
            return replied(format!("{} {question}", voice.asked));
        }
        Understood::DeclinesGoal => return replied(voice.goal_clear.to_owned()),
        Understood::Nothing => {}
    }
    match older {
        Reading::Protected => replied(format!("{} {}", voice.protected, voice.opener_question)),
        Reading::Corrections(corrections) => {
            if corrections.iter().all(declines_goal) {
                return replied(format!("{} {question}", voice.goal_clear));
            }
            let kept: Vec<Correction<'_>> = corrections
                .into_iter()
                .filter(|c| !declines_goal(c))
                .collect();
            revise(&request.profile, voice, &kept, &[])
                .unwrap_or_else(|| replied(reflect(voice, message, question.to_owned())))
        }
        Reading::Ask { candidates, .. } => (plain(voice.ask(&candidates)), Act::Asked),
        Reading::Remark {
            part,
            mentions_type,
        } => {
            if let Some(reply) = part.and_then(|field| follow_up(request, voice, message, field)) {
                return reply;
            }
            if mentions_type {
                // A question about the type is answered with what the profile says about it.
                return replied(format!("{} {question}", type_line(&request.profile, voice)));
            }
            let ask = match part {
                Some(field) => voice.part_question(field),
                None => question.to_owned(),
            };
            replied(reflect(voice, message, ask))
        }
    }
}

/// The reply to a message the offline engine cannot read: it does not echo words it does not
/// understand.
pub const OTHER_LANGUAGE: &str = "The offline coach reads English only, so I have changed \
    nothing; your profile keeps your words as you wrote them. With a language model \
    (LLM_PROVIDER=openai) the coach reads other languages too.";

/// A short turn that only names a part, right after a turn whose part the coach asked about:
/// the earlier correction is applied to that part.
fn follow_up(
    request: &CoachRequest,
    voice: &Voice,
    message: &str,
    field: EditableField,
) -> Option<(CoachReplyDraft, Act)> {
    if message.split_whitespace().count() > FOLLOW_UP_MAX_WORDS {
        return None;
    }
    let earlier = request
        .dialogue
        .iter()
        .rev()
        .find(|m| m.author == Author::Person)?;
    let Reading::Ask { sentence, .. } = read(&earlier.text, &request.profile) else {
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

/// The reply that proposes the corrections, or `None` when none changes anything. A removal
/// that would empty a part is not made: the coach asks what to put there instead (for a goal,
/// it says how to empty it).
fn revise(
    profile: &Profile,
    voice: &Voice,
    corrections: &[Correction<'_>],
    also_quote: &[&str],
) -> Option<(CoachReplyDraft, Act)> {
    let mut revisions: Vec<ProposedRevision> = Vec::new();
    let mut quoted: Vec<&str> = Vec::new();
    let mut kept_whole: Option<EditableField> = None;
    for correction in corrections {
        let current = profile.prose.get(correction.field).map(Prose::as_str);
        let value = match apply(correction.field, current, &correction.edit) {
            Revised::Text(value) => value,
            Revised::WouldEmpty => {
                kept_whole = kept_whole.or(Some(correction.field));
                continue;
            }
            Revised::Unchanged => continue,
        };
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
        return kept_whole.map(|field| {
            if field.is_nullable() {
                (plain(voice.goal_clear.to_owned()), Act::Replied)
            } else {
                (plain(voice.would_empty(field)), Act::Asked)
            }
        });
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
            "{heading}: {}",
            cut(&revision.value, REVISION_PREVIEW_CHARS)
        ));
    }
    lines.push(voice.revised_question.to_owned());
    let draft = CoachReplyDraft {
        message: lines.join("\n"),
        revisions,
        revision_note: Some(format!("{NOTE_LEAD}“{quote}”")),
    };
    Some((draft, Act::Revised))
}

/// The person's richest sentence said back in the second person (a question is not said back,
/// and a short "that feels right" is acknowledged), then `ask`.
fn reflect(voice: &Voice, message: &str, ask: String) -> String {
    let best = sentences(message)
        .into_iter()
        .enumerate()
        .max_by_key(|(i, s)| (content_words(s).len(), Reverse(*i)))
        .map(|(_, s)| s);
    let Some(sentence) = best else {
        return format!("{} {ask}", voice.listening);
    };
    if agrees(message) {
        return format!("{} {ask}", voice.agreed);
    }
    if sentence.trim_end().ends_with('?') {
        return format!("{} {ask}", voice.asked);
    }
    let said = cut_words(sentence, REFLECT_QUOTE_WORDS, REFLECT_QUOTE_CHARS);
    // Only a clause of the person's own is said back ("ok" or "let you think" is not one).
    if content_words(&said).len() < REFLECT_MIN_CONTENT {
        return format!("{} {ask}", voice.listening);
    }
    if is_english(message) {
        format!(
            "{} {} {ask}",
            voice.reflect_lead,
            with_full_stop(&lower_first(&mirror(&said)))
        )
    } else {
        format!("{} “{said}” {ask}", voice.reflect_lead_quoted)
    }
}

/// A sentence is said back only when it holds at least this many content words.
const REFLECT_MIN_CONTENT: usize = 3;

/// Short turns that agree with what the coach said.
const AGREEMENT: &[&str] = &[
    "feels right",
    "sounds right",
    "sounds like me",
    "that's right",
    "that's me",
    "spot on",
    "exactly",
    "yes",
    "yep",
    "perfect",
    "looks good",
    "thanks",
    "thank you",
    "agreed",
];
/// A turn of at most this many words may be a plain agreement.
const AGREEMENT_MAX_WORDS: usize = 6;

fn agrees(message: &str) -> bool {
    message.split_whitespace().count() <= AGREEMENT_MAX_WORDS
        && AGREEMENT.iter().any(|a| contains_phrase(message, a))
}

fn with_full_stop(text: &str) -> String {
    if ends_with_terminator(text) {
        text.to_owned()
    } else {
        format!("{}.", without_terminator(text))
    }
}
