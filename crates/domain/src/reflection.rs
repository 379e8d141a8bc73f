//! Reflection: the dialogue between the person and the coach, and the strict reading of a
//! coach reply (`{message, revisions, revision_note}`) into changes the profile may take.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::discovery::ClaimedSource;
use crate::ids::{ReflectionMessageId, UserId};
use crate::model_output::{ModelOutputError, parse_first_object};
use crate::profile::provenance::{Quotable, push_unique, supports_goal, verify};
use crate::profile::{EditableField, ProfileEdit, SourceOrigin, Sources};
use crate::text::{MessageText, Note, Prose, Text};

/// Who wrote a reflection message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Author {
    Coach,
    Person,
}

impl Author {
    pub const ALL: [Self; 2] = [Self::Coach, Self::Person];

    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            Self::Coach => "coach",
            Self::Person => "person",
        }
    }
}

/// Which engine wrote a coach's message: the language model, or the offline coach (the
/// service's own engine, or standing in for a model reply that told the person something
/// about themselves resting on nothing they wrote: `crate::reply_grounding`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplyEngine {
    Offline,
    Model,
}

impl ReplyEngine {
    pub const ALL: [Self; 2] = [Self::Offline, Self::Model];

    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            Self::Offline => "offline",
            Self::Model => "model",
        }
    }
}

/// A coach's message: capped at the same length as a person's.
pub type CoachText = Text<4_000>;

/// One stored turn of the dialogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReflectionMessage {
    pub id: ReflectionMessageId,
    pub user_id: UserId,
    pub author: Author,
    pub text: String,
    pub created_at: OffsetDateTime,
    /// The engine that wrote a coach's message (`None` for the person's, and for coach messages
    /// stored before engines were recorded).
    pub engine: Option<ReplyEngine>,
}

impl ReflectionMessage {
    #[must_use]
    pub fn new(user_id: UserId, author: Author, text: String, created_at: OffsetDateTime) -> Self {
        Self {
            id: ReflectionMessageId::new(),
            user_id,
            author,
            text,
            created_at,
            engine: None,
        }
    }

    /// The same message, recorded as written by `engine`.
    #[must_use]
    pub fn by(self, engine: ReplyEngine) -> Self {
        Self {
            engine: Some(engine),
            ..self
        }
    }
}

/// What the person sends to the coach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReflectionTurn {
    /// Ask the coach to open: it mirrors the profile back and proposes nothing.
    Opener,
    /// The person's own words.
    Message(MessageText),
}

/// A revision as a model proposes it: any field name, any text, and the person's words it says
/// the change rests on. A `null` value (a model trying to clear a field, a goal perhaps) is read
/// as empty and so dropped by the guard: the coach never clears a field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposedRevision {
    pub field: String,
    #[serde(deserialize_with = "null_as_empty")]
    pub value: String,
    /// Read leniently (a bare string, `{"quote"}` items, `null`): each is verified anyway.
    #[serde(
        default,
        deserialize_with = "claimed_quotes",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub quotes: Vec<String>,
}

fn null_as_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(Option::<String>::deserialize(d)?.unwrap_or_default())
}

fn claimed_quotes<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let value = serde_json::Value::deserialize(d)?;
    Ok(ClaimedSource::read_list(&value)
        .into_iter()
        .map(|c| c.quote)
        .collect())
}

/// A coach reply exactly as the model must shape it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoachReplyDraft {
    pub message: String,
    #[serde(default)]
    pub revisions: Vec<ProposedRevision>,
    #[serde(default)]
    pub revision_note: Option<String>,
}

/// A coach reply after the guards: capped text, changes to the editable fields only, and for
/// each changed field the person's words it rests on, verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoachReply {
    pub message: CoachText,
    pub edit: ProfileEdit,
    pub sources: Sources,
    pub revision_note: Option<Note>,
}

impl CoachReplyDraft {
    /// Reads a draft from a model's raw reply.
    ///
    /// # Errors
    /// [`ModelOutputError`] when the reply has no object of the draft's shape or an empty message.
    pub fn parse(raw: &str) -> Result<Self, ModelOutputError> {
        let draft: Self = parse_first_object(raw)?;
        if draft.message.trim().is_empty() {
            return Err(ModelOutputError::new("message must not be empty"));
        }
        Ok(draft)
    }

    /// Keeps only revisions of the seven editable fields (the last one wins per field), caps
    /// every text, verifies each quote against the person's own turns (`person_words`), and
    /// drops all revisions from an opener. A goal is revised only on a verified quote of at
    /// least three of the person's words: a coach never puts a goal in their mouth.
    #[must_use]
    pub fn guard(self, turn: &ReflectionTurn, person_words: &[Quotable<'_>]) -> CoachReply {
        let mut sources = Sources::default();
        let mut changes: Vec<(EditableField, Option<Prose>)> = Vec::new();
        if matches!(turn, ReflectionTurn::Message(_)) {
            for revision in self.revisions {
                let Ok(field) = revision.field.parse::<EditableField>() else {
                    continue;
                };
                let value = Prose::capped(revision.value.trim());
                if value.is_blank() {
                    continue;
                }
                let mut verified = Vec::new();
                for quote in &revision.quotes {
                    if let Some(source) = verify(quote, None, person_words) {
                        push_unique(&mut verified, source);
                    }
                }
                if field.is_nullable() && !supports_goal(&verified, |_| true) {
                    continue;
                }
                changes.retain(|(f, _)| *f != field);
                changes.push((field, Some(value)));
                sources.set(field, verified);
            }
        }
        // Only non-null values reach `ProfileEdit::new`, so it cannot refuse them.
        let edit = ProfileEdit::new(changes).unwrap_or_default();
        let revision_note = if edit.is_empty() {
            None
        } else {
            self.revision_note
                .map(|n| Note::capped(n.trim()))
                .filter(|n| !n.is_blank())
        };
        CoachReply {
            message: CoachText::capped(self.message.trim()),
            edit,
            sources,
            revision_note,
        }
    }
}

/// The person's turns (among `dialogue`, and `current`, the turn being answered), as text the
/// coach's quotes are checked against.
#[must_use]
pub fn person_words<'a>(
    dialogue: &'a [ReflectionMessage],
    current: Option<&'a ReflectionMessage>,
) -> Vec<Quotable<'a>> {
    dialogue
        .iter()
        .chain(current)
        .filter(|m| m.author == Author::Person)
        .map(|m| Quotable {
            origin: SourceOrigin::Reflection(m.id),
            text: &m.text,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::UserId;

    fn message() -> ReflectionTurn {
        ReflectionTurn::Message(MessageText::new("Actually, it's teaching.").unwrap())
    }

    #[test]
    fn a_reply_is_parsed_strictly() {
        assert!(CoachReplyDraft::parse("{\"message\": \"Hi\"}").is_ok());
        assert!(CoachReplyDraft::parse("{\"message\": 3}").is_err());
        assert!(CoachReplyDraft::parse("{\"message\": \"  \"}").is_err());
        assert!(CoachReplyDraft::parse("{\"revisions\": []}").is_err());
        assert!(
            CoachReplyDraft::parse("{\"message\": \"Hi\", \"revisions\": [{\"field\": 1}]}")
                .is_err()
        );
        assert!(CoachReplyDraft::parse("not json").is_err());
    }

    #[test]
    fn revisions_are_filtered_to_the_editable_fields() {
        let raw = r#"{"message": "Noted.", "revisions": [
            {"field": "triad", "value": "gut"},
            {"field": "enneagram_type", "value": "8"},
            {"field": "mission_summary", "value": "Teaching"},
            {"field": "nonsense", "value": "x"}
        ], "revision_note": "You named teaching."}"#;
        let reply = CoachReplyDraft::parse(raw).unwrap().guard(&message(), &[]);
        let fields: Vec<_> = reply.edit.changes().map(|(f, _)| f).collect();
        assert_eq!(fields, [EditableField::MissionSummary]);
        assert_eq!(reply.revision_note.unwrap().as_str(), "You named teaching.");
    }

    #[test]
    fn an_opener_never_carries_revisions() {
        let raw = r#"{"message": "Here is what I heard.", "revisions": [{"field": "love_summary", "value": "x"}], "revision_note": "n"}"#;
        let reply = CoachReplyDraft::parse(raw)
            .unwrap()
            .guard(&ReflectionTurn::Opener, &[]);
        assert!(reply.edit.is_empty());
        assert_eq!(reply.revision_note, None);
    }

    #[test]
    fn texts_are_capped() {
        let draft = CoachReplyDraft {
            message: "m".repeat(9_000),
            revisions: vec![ProposedRevision {
                field: "love_summary".into(),
                value: "v".repeat(9_000),
                quotes: Vec::new(),
            }],
            revision_note: Some("n".repeat(9_000)),
        };
        let reply = draft.guard(&message(), &[]);
        assert_eq!(reply.message.as_str().chars().count(), 4_000);
        let (_, value) = reply.edit.changes().next().unwrap();
        assert_eq!(value.as_ref().unwrap().as_str().chars().count(), 4_000);
        assert_eq!(reply.revision_note.unwrap().as_str().chars().count(), 2_000);
    }

    #[test]
    fn a_revision_that_clears_a_field_is_dropped() {
        let raw = r#"{"message": "I removed your goal.", "revisions": [
            {"field": "near_term_goal_summary", "value": null},
            {"field": "love_summary", "value": "   "}
        ], "revision_note": "Cleared."}"#;
        let reply = CoachReplyDraft::parse(raw).unwrap().guard(&message(), &[]);
        assert!(reply.edit.is_empty());
        assert_eq!(reply.revision_note, None, "no note without a change");
    }

    #[test]
    fn only_exact_field_names_count() {
        let raw = r#"{"message": "m", "revisions": [
            {"field": "Love_Summary", "value": "a"},
            {"field": " mission_summary", "value": "b"},
            {"field": "locked", "value": "false"},
            {"field": "version", "value": "1"},
            {"field": "vocation_summary", "value": "c"}
        ]}"#;
        let reply = CoachReplyDraft::parse(raw).unwrap().guard(&message(), &[]);
        let fields: Vec<_> = reply.edit.changes().map(|(f, _)| f).collect();
        assert_eq!(fields, [EditableField::VocationSummary]);
    }

    fn said(text: &str) -> ReflectionMessage {
        ReflectionMessage::new(
            UserId::new(),
            Author::Person,
            text.to_owned(),
            OffsetDateTime::UNIX_EPOCH,
        )
    }

    #[test]
    fn a_revision_keeps_only_the_quotes_the_person_wrote() {
        let earlier = said("I restore old bicycles with my daughter on Sundays.");
        let now = said("Actually, it's teaching kids to fix them.");
        let coach = ReflectionMessage::new(
            UserId::new(),
            Author::Coach,
            "It's all about purpose and giving back".into(),
            OffsetDateTime::UNIX_EPOCH,
        );
        let dialogue = [earlier.clone(), coach];
        let words = person_words(&dialogue, Some(&now));
        assert_eq!(
            words.len(),
            2,
            "the coach's own turns are not the person's words"
        );
        let raw = r#"{"message": "Noted.", "revisions": [{"field": "love_summary",
            "value": "Teaching kids to fix bicycles.",
            "quotes": ["teaching kids to fix them", "restore old bicycles",
                       "It's all about purpose and giving back", "plastic pollution"]}]}"#;
        let reply = CoachReplyDraft::parse(raw)
            .unwrap()
            .guard(&message(), &words);
        let kept = reply.sources.get(EditableField::LoveSummary);
        assert_eq!(kept.len(), 2, "{kept:?}");
        assert_eq!(kept[0].origin, SourceOrigin::Reflection(now.id));
        assert_eq!(kept[0].quote, "teaching kids to fix them");
        assert_eq!(kept[1].origin, SourceOrigin::Reflection(earlier.id));
        assert_eq!(reply.edit.len(), 1);
    }

    #[test]
    fn a_goal_is_revised_only_on_three_verified_words_of_the_person() {
        let now = said("My goal this year is to finish the thesis.");
        let words = person_words(&[], Some(&now));
        let raw = r#"{"message": "m", "revisions": [
            {"field": "near_term_goal_summary", "value": "Finish the thesis.", "quotes": ["finish the thesis"]},
            {"field": "long_term_goal_summary", "value": "Become CEO.", "quotes": ["become CEO"]}
        ]}"#;
        let reply = CoachReplyDraft::parse(raw)
            .unwrap()
            .guard(&message(), &words);
        let fields: Vec<_> = reply.edit.changes().map(|(f, _)| f).collect();
        assert_eq!(fields, [EditableField::NearTermGoalSummary]);
        let raw = r#"{"message": "m", "revisions": [
            {"field": "near_term_goal_summary", "value": "Finish the thesis.", "quotes": "the thesis"}]}"#;
        let reply = CoachReplyDraft::parse(raw)
            .unwrap()
            .guard(&message(), &words);
        assert!(reply.edit.is_empty(), "two words are not enough");
    }
}
