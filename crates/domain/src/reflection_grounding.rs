//! The grounding guard over a coach's revisions (docs/api.md, "Provenance"): a revised field whose new
//! text has a sentence resting neither on the person's turns nor on the field's current text is
//! not applied as the coach wrote it. The offline coach's revision of that field stands in when
//! it makes one; otherwise the revision is dropped. The note says so.

use crate::profile::grounding::Grounding;
use crate::profile::provenance::Quotable;
use crate::profile::{EditableField, ProfileEdit, ProseFields, Source, Sources};
use crate::reflection::CoachReply;
use crate::text::{Note, Prose};

/// `reply` with every revision grounded, and how many of its sentences were not. `mirror` is the
/// offline coach's guarded reply to the same turn, asked for only when a revision fails.
#[must_use]
pub fn ground_revisions(
    reply: CoachReply,
    current: &ProseFields,
    person_words: &[Quotable<'_>],
    mirror: impl FnOnce() -> Option<CoachReply>,
) -> (CoachReply, usize) {
    let (failed, ungrounded) = failed_fields(&reply, current, person_words);
    if failed.is_empty() {
        return (reply, 0);
    }
    let regrounded = Regrounded::from(&reply, &failed, mirror().as_ref());
    let edit = ProfileEdit::new(regrounded.changes).unwrap_or_default();
    let revision_note = if edit.is_empty() {
        None
    } else {
        told_note(
            reply.revision_note.as_ref(),
            &regrounded.replaced,
            &regrounded.dropped,
        )
    };
    (
        CoachReply {
            edit,
            sources: regrounded.sources,
            revision_note,
            ..reply
        },
        ungrounded,
    )
}

/// The revised fields with a sentence resting neither on the person's turns nor on the field's
/// current text, and how many such sentences there are in all.
fn failed_fields(
    reply: &CoachReply,
    current: &ProseFields,
    person_words: &[Quotable<'_>],
) -> (Vec<EditableField>, usize) {
    let turns: Vec<&str> = person_words.iter().map(|q| q.text).collect();
    let rule = Grounding::for_material(&turns);
    let mut ungrounded = 0;
    let mut failed = Vec::new();
    for (field, value) in reply.edit.changes() {
        let Some(value) = value else { continue };
        let mut material = turns.clone();
        material.extend(current.get(field).map(|p| p.as_str()));
        let bad = rule.ungrounded(value.as_str(), &material).len();
        if bad > 0 {
            ungrounded += bad;
            failed.push(field);
        }
    }
    (failed, ungrounded)
}

/// The reply's changes once every failed field has taken the mirror's revision or been dropped,
/// with the names of the fields replaced and dropped (for the note).
#[derive(Default)]
struct Regrounded {
    changes: Vec<(EditableField, Option<Prose>)>,
    sources: Sources,
    replaced: Vec<&'static str>,
    dropped: Vec<&'static str>,
}

impl Regrounded {
    /// Keeps every grounded revision of `reply`; a failed one takes the mirror's revision of its
    /// field, or is dropped when the mirror makes none.
    fn from(reply: &CoachReply, failed: &[EditableField], mirror: Option<&CoachReply>) -> Self {
        let mut out = Self::default();
        for (field, value) in reply.edit.changes() {
            if !failed.contains(&field) {
                out.keep(reply, field, value);
                continue;
            }
            match mirror.and_then(|m| stand_in(m, field)) {
                // The offline coach wrote this very revision: it is its own stand-in.
                Some((v, _)) if v.as_ref() == value.as_ref() => out.keep(reply, field, value),
                Some((value, quotes)) => {
                    out.changes.push((field, value));
                    out.sources.set(field, quotes);
                    out.replaced.push(field.name());
                }
                None => out.dropped.push(field.name()),
            }
        }
        out
    }

    /// Keeps the reply's own revision of `field`, with its sources.
    fn keep(&mut self, reply: &CoachReply, field: EditableField, value: &Option<Prose>) {
        self.changes.push((field, value.clone()));
        self.sources.set(field, reply.sources.get(field).to_vec());
    }
}

/// The mirror's revision of `field` and its sources, when it revises that field.
fn stand_in(mirror: &CoachReply, field: EditableField) -> Option<(Option<Prose>, Vec<Source>)> {
    mirror
        .edit
        .changes()
        .find(|(f, _)| *f == field)
        .map(|(_, v)| (v.clone(), mirror.sources.get(field).to_vec()))
}

/// The coach's revision note, with what grounding replaced and dropped said after it (the note
/// as the coach wrote it when nothing was).
fn told_note(before: Option<&Note>, replaced: &[&str], dropped: &[&str]) -> Option<Note> {
    if replaced.is_empty() && dropped.is_empty() {
        return before.cloned();
    }
    let mut said = Vec::new();
    if !replaced.is_empty() {
        said.push(format!(
            "{}: the coach's words were not yours; your own words were used",
            replaced.join(", ")
        ));
    }
    if !dropped.is_empty() {
        said.push(format!(
            "{}: not changed, the coach's words were not yours",
            dropped.join(", ")
        ));
    }
    let line = format!("{}.", said.join("; "));
    Some(Note::capped(&before.map_or(line.clone(), |b| {
        format!("{} ({line})", b.as_str())
    })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::ReflectionMessageId;
    use crate::profile::{Source, SourceOrigin};
    use crate::reflection::CoachText;
    use crate::text::Prose;

    fn current() -> ProseFields {
        ProseFields {
            love_summary: Prose::capped("You love restoring old bicycles in your shed."),
            strength_summary: Prose::capped("You stay calm on the ward."),
            mission_summary: Prose::capped("Old people living alone."),
            vocation_summary: Prose::capped("You are a night nurse."),
            overlap_narrative: Prose::capped("All in all: bicycles and the ward."),
            near_term_goal_summary: None,
            long_term_goal_summary: None,
        }
    }

    fn reply(
        field: EditableField,
        value: &str,
        quote: &str,
        id: ReflectionMessageId,
    ) -> CoachReply {
        let mut sources = Sources::default();
        sources.set(
            field,
            vec![Source {
                origin: SourceOrigin::Reflection(id),
                quote: quote.into(),
            }],
        );
        CoachReply {
            message: CoachText::capped("Noted."),
            edit: ProfileEdit::new([(field, Some(Prose::capped(value)))]).unwrap(),
            sources,
            revision_note: Some(Note::capped("You said so.")),
        }
    }

    /// The person's one turn.
    fn said(id: ReflectionMessageId, text: &str) -> [Quotable<'_>; 1] {
        [Quotable {
            origin: SourceOrigin::Reflection(id),
            text,
        }]
    }

    const TURN: &str = "Actually, what I love most is teaching apprentices to true a wheel.";

    #[test]
    fn a_revision_in_the_person_s_words_is_applied_as_written() {
        let id = ReflectionMessageId::new();
        let words = said(id, TURN);
        let r = reply(
            EditableField::LoveSummary,
            "You love teaching apprentices to true a wheel.",
            TURN,
            id,
        );
        let (out, bad) = ground_revisions(r.clone(), &current(), &words, || panic!("not asked"));
        assert_eq!((out, bad), (r, 0));
    }

    #[test]
    fn a_revision_that_turns_her_words_around_is_not_applied() {
        // Issue 43: "You no longer love …" was applied after "I still love …".
        let id = ReflectionMessageId::new();
        let still = "I still love restoring old bicycles, even after a night shift.";
        let words = said(id, still);
        let love = |value| reply(EditableField::LoveSummary, value, still, id);
        let turned = love("You no longer love restoring old bicycles in your shed.");
        let offline = love("You still love restoring old bicycles, even after a night shift.");
        let (out, bad) =
            ground_revisions(turned.clone(), &current(), &words, || Some(offline.clone()));
        assert_eq!(bad, 1);
        assert_eq!(out.edit, offline.edit);
        let (out, _) = ground_revisions(turned, &current(), &words, || None);
        assert!(out.edit.is_empty(), "the field keeps what she said");
    }

    #[test]
    fn an_invented_revision_is_replaced_by_the_offline_coach_s_or_dropped() {
        let id = ReflectionMessageId::new();
        let words = said(id, TURN);
        let invented = reply(
            EditableField::LoveSummary,
            "You love baking bread for your neighbours.",
            TURN,
            id,
        );
        let offline = reply(
            EditableField::LoveSummary,
            "You love teaching apprentices to true a wheel most.",
            TURN,
            id,
        );
        let (out, bad) = ground_revisions(invented.clone(), &current(), &words, || {
            Some(offline.clone())
        });
        assert_eq!(bad, 1);
        assert_eq!(out.edit, offline.edit);
        let note = out.revision_note.unwrap();
        assert!(
            note.as_str().contains("were not yours"),
            "{}",
            note.as_str()
        );

        let (out, _) = ground_revisions(invented, &current(), &words, || None);
        assert!(
            out.edit.is_empty(),
            "nothing in the person's words to put there"
        );
        assert_eq!(out.revision_note, None);
        assert_eq!(out.message.as_str(), "Noted.");
    }
}
