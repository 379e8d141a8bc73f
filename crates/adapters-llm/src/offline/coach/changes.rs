//! A change the reader understood, made and said in one line: what changed, in words ("I added
//! small engine repair to what you can be paid for."), with the part's new text below it and
//! the person's message quoted as the source.

use domain::profile::provenance::QUOTE_MAX_CHARS;
use domain::profile::{EditableField, Profile};
use domain::reflection::{CoachReplyDraft, ProposedRevision};
use domain::text::{Note, Prose};

use super::Act;
use super::edit::{Edited, apply};
use super::reader::{Change, Op, Why};
use super::voice::{Voice, part_heading, part_label};
use crate::offline::mirror::{lower_first, turn_pronouns};
use crate::offline::text::{cut, cut_words, verbatim_prefix};

/// How much of the new words the one line names.
const NAMED_WORDS: usize = 10;
const NAMED_CHARS: usize = 90;
/// How much of a part's new text the reply shows.
const PREVIEW_CHARS: usize = 300;

/// The reply that makes `change`, or `None` when it changes nothing (the words are not there).
#[must_use]
pub fn make(
    profile: &Profile,
    voice: &Voice,
    change: &Change,
    message: &str,
) -> Option<(CoachReplyDraft, Act)> {
    let field = change.field;
    let current = profile.prose.get(field).map(Prose::as_str);
    let value = match apply(field, current, &change.op) {
        Edited::Text(value) => value,
        Edited::WouldEmpty if field.is_nullable() => {
            return Some((plain(voice.goal_clear), Act::Replied));
        }
        Edited::WouldEmpty => return Some((plain(&voice.would_empty(field)), Act::Asked)),
        Edited::Unchanged => return None,
    };
    let quote = verbatim_prefix(message.trim(), QUOTE_MAX_CHARS);
    let note_room = Note::MAX - NOTE_LEAD.chars().count() - 2;
    let lines = [
        said(field, &change.op, change.why),
        format!("{}: {}", part_heading(field), cut(&value, PREVIEW_CHARS)),
        voice.revised_question.to_owned(),
    ];
    let draft = CoachReplyDraft {
        message: lines.join("\n"),
        revisions: vec![ProposedRevision {
            field: field.name().to_owned(),
            value,
            quotes: vec![quote],
        }],
        revision_note: Some(format!("{NOTE_LEAD}“{}”", cut(message.trim(), note_room))),
    };
    Some((draft, Act::Revised))
}

/// The frame of a revision note; the person's message follows it.
const NOTE_LEAD: &str = "You said: ";

fn plain(message: &str) -> CoachReplyDraft {
    CoachReplyDraft {
        message: message.to_owned(),
        revisions: Vec::new(),
        revision_note: None,
    }
}

/// What changed, in one line, and why that part.
#[must_use]
pub fn said(field: EditableField, op: &Op, why: Why) -> String {
    let part = part_label(field);
    let short = |words: &str| {
        let turned = cut_words(&turn_pronouns(words.trim()), NAMED_WORDS, NAMED_CHARS);
        if words.trim().starts_with(char::is_lowercase) {
            lower_first(&turned)
        } else {
            turned
        }
    };
    let what = match op {
        Op::Add(new) => format!("I added “{}” to {part}", short(new)),
        Op::Replace { new, .. } => format!("I rewrote {part} with your words: “{}”", short(new)),
        // A long object is the person's explanation ("I sold it so take that off"): not named.
        Op::Remove(old) if old.split_whitespace().count() > 6 => {
            format!("I took that out of {part}")
        }
        Op::Remove(old) => format!("I took “{}” out of {part}", short(old)),
        Op::Swap { old, new } => {
            format!("I changed “{}” to “{}” in {part}", short(old), short(new))
        }
    };
    let because = match why {
        Why::Named => ", the part you named.",
        Why::Holds => ", where those words stood.",
        Why::Horizon => ", by the time you gave.",
        Why::About => ".",
    };
    format!("{what}{because}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_says_what_changed_and_why() {
        assert_eq!(
            said(
                EditableField::VocationSummary,
                &Op::Add("could get paid doing tiling".into()),
                Why::About
            ),
            "I added “could get paid doing tiling” to what you can be paid for."
        );
        assert_eq!(
            said(
                EditableField::LoveSummary,
                &Op::Remove("my chess".into()),
                Why::Holds
            ),
            "I took “your chess” out of what you love, where those words stood."
        );
    }
}
