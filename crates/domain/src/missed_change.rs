//! A change a model let pass: when a person's message asks for a change the offline coach reads
//! and lands, and the model's reply (once grounded) does not change that part, the offline
//! coach's reply is the turn's answer. So the corrections that land with a model behind the
//! coach are at least those that land without one; a model that makes the change (whatever else
//! it also says or changes), or finds none where the offline coach finds none either, keeps its
//! reply.

use std::collections::BTreeSet;

use crate::profile::EditableField;
use crate::reflection::CoachReply;

/// `reply`, or the offline coach's (`mirror`) when that one changes a part `reply` leaves
/// alone; and whether it was taken.
#[must_use]
pub fn take_missed_change(
    reply: CoachReply,
    mirror: impl FnOnce() -> Option<CoachReply>,
) -> (CoachReply, bool) {
    let Some(stand_in) = mirror() else {
        return (reply, false);
    };
    let changed: BTreeSet<EditableField> = reply.edit.changes().map(|(f, _)| f).collect();
    if stand_in.edit.changes().any(|(f, _)| !changed.contains(&f)) {
        (stand_in, true)
    } else {
        (reply, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{EditableField, ProfileEdit, Sources};
    use crate::reflection::CoachText;
    use crate::text::Prose;

    fn reply(message: &str, change: Option<&str>) -> CoachReply {
        let edit = change
            .map(|text| {
                ProfileEdit::new(vec![(
                    EditableField::LoveSummary,
                    Some(Prose::new(text).expect("prose")),
                )])
                .expect("an edit")
            })
            .unwrap_or_default();
        CoachReply {
            message: CoachText::new(message).expect("a message"),
            edit,
            sources: Sources::default(),
            revision_note: None,
        }
    }

    #[test]
    fn a_model_that_changed_nothing_gives_way_to_the_offline_coach_s_change() {
        let (taken, stood_in) = take_missed_change(reply("Tell me more.", None), || {
            Some(reply(
                "I added chess to what you love.",
                Some("You love chess."),
            ))
        });
        assert!(stood_in);
        assert_eq!(taken.message.as_str(), "I added chess to what you love.");
        assert!(!taken.edit.is_empty());
    }

    #[test]
    fn a_model_that_changed_the_same_part_keeps_its_reply() {
        let model = reply("So chess it is.", Some("You love chess and go."));
        let (kept, stood_in) = take_missed_change(model.clone(), || {
            Some(reply(
                "I added chess to what you love.",
                Some("You love chess."),
            ))
        });
        assert!(!stood_in);
        assert_eq!(kept, model);
    }

    #[test]
    fn a_model_that_changed_another_part_gives_way() {
        let mut model = reply("So you are patient.", None);
        model.edit = ProfileEdit::new(vec![(
            EditableField::StrengthSummary,
            Some(Prose::new("You are patient.").expect("prose")),
        )])
        .expect("an edit");
        let (taken, stood_in) = take_missed_change(model, || {
            Some(reply(
                "I added chess to what you love.",
                Some("You love chess."),
            ))
        });
        assert!(stood_in);
        assert_eq!(taken.message.as_str(), "I added chess to what you love.");
    }

    #[test]
    fn where_neither_finds_a_change_the_model_s_reply_stands() {
        let model = reply("What draws you to chess?", None);
        let (kept, stood_in) =
            take_missed_change(model.clone(), || Some(reply("Which part?", None)));
        assert!(!stood_in);
        assert_eq!(kept, model);
    }
}
