//! The profile state machine: unlocked -> (edit | reflection | re-extraction | restore) ->
//! unlocked, each recorded as a revision; affirm -> locked; reopen -> unlocked again; any other
//! change to a locked profile is refused. Type and triad are set by extraction only.

use serde::Serialize;
use time::OffsetDateTime;

use super::{
    EnneagramType, NewRevision, ProfileEdit, ProseFields, Revision, RevisionOrigin, Snapshot,
    Sources, Triad,
};
use crate::discovery::Extraction;
use crate::ids::{ProfileId, RevisionId, UserId};
use crate::text::Note;

/// A person's discovery profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Profile {
    pub id: ProfileId,
    pub user_id: UserId,
    pub enneagram_type: EnneagramType,
    pub prose: ProseFields,
    /// The person's own words each field rests on (empty for a field they wrote by hand).
    pub sources: Sources,
    pub locked: bool,
    #[serde(with = "time::serde::rfc3339::option")]
    pub affirmed_at: Option<OffsetDateTime>,
    /// Starts at 1 and grows by one on every change (optimistic concurrency, `If-Match`).
    pub version: i64,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
}

/// Something that may happen to a profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProfileEvent {
    /// The person edited fields by hand: those fields rest on no quote any more.
    ManualEdit(ProfileEdit),
    /// The coach proposed these (already filtered) changes during reflection, each field with
    /// the verified quotes of the person's it rests on.
    Reflection {
        edit: ProfileEdit,
        note: Option<Note>,
        sources: Sources,
    },
    /// The answers were extracted again while the profile is still unlocked.
    Reextraction(Extraction),
    /// The person affirmed the profile: it is locked from now on.
    Affirm,
    /// The person reopened an affirmed profile to revisit it: it is unlocked again. Nothing in
    /// the prose changes, so no revision is recorded (like affirming).
    Reopen,
    /// The person brought back an earlier revision: the seven fields and their sources become
    /// that revision's, recorded as a `manual_edit` revision noted "restored revision N". Type
    /// and triad stay as they are (only extraction sets them).
    Restore(Revision),
}

/// The refusal of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TransitionError {
    #[error("the profile is affirmed and can no longer change")]
    ProfileLocked,
}

/// The outcome of an accepted event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    pub profile: Profile,
    /// The revision to record; `None` when nothing in the prose, type or triad changed.
    pub revision: Option<NewRevision>,
}

impl Transition {
    /// Whether the event changed anything (and so bumped `version`).
    #[must_use]
    pub fn changed(&self, before: &Profile) -> bool {
        self.profile.version != before.version
    }
}

impl Profile {
    /// A new profile from a first extraction, with its revision number 1.
    #[must_use]
    pub fn extracted(user_id: UserId, extraction: Extraction, now: OffsetDateTime) -> Transition {
        let profile = Self {
            id: ProfileId::new(),
            user_id,
            enneagram_type: extraction.enneagram_type,
            prose: extraction.prose,
            sources: extraction.sources,
            locked: false,
            affirmed_at: None,
            version: 1,
            created_at: now,
            updated_at: now,
        };
        let revision = profile.revision(RevisionOrigin::Extraction, None, now);
        Transition {
            profile,
            revision: Some(revision),
        }
    }

    #[must_use]
    pub const fn triad(&self) -> Triad {
        self.enneagram_type.triad()
    }

    /// The profile as a revision snapshot.
    #[must_use]
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            enneagram_type: self.enneagram_type,
            triad: self.triad(),
            prose: self.prose.clone(),
            sources: self.sources.clone(),
        }
    }

    /// Applies an event.
    ///
    /// # Errors
    /// [`TransitionError::ProfileLocked`] for any event but `Affirm` and `Reopen` on a locked
    /// profile.
    pub fn apply(
        self,
        event: ProfileEvent,
        now: OffsetDateTime,
    ) -> Result<Transition, TransitionError> {
        if self.locked {
            return match event {
                ProfileEvent::Affirm => Ok(self.unchanged()),
                ProfileEvent::Reopen => {
                    let mut next = self;
                    next.locked = false;
                    next.affirmed_at = None;
                    next.bump(now);
                    Ok(Transition {
                        profile: next,
                        revision: None,
                    })
                }
                _ => Err(TransitionError::ProfileLocked),
            };
        }
        Ok(match event {
            ProfileEvent::Reopen => self.unchanged(),
            ProfileEvent::Restore(revision) => self.restored(&revision, now),
            ProfileEvent::ManualEdit(edit) => {
                let sources = self.sources_after(&edit, &Sources::default());
                let prose = self.prose.with(&edit);
                self.with_prose(prose, sources, RevisionOrigin::ManualEdit, None, now)
            }
            ProfileEvent::Reflection {
                edit,
                note,
                sources,
            } => {
                let sources = self.sources_after(&edit, &sources);
                let prose = self.prose.with(&edit);
                self.with_prose(prose, sources, RevisionOrigin::Reflection, note, now)
            }
            ProfileEvent::Reextraction(extraction) => {
                let mut next = self;
                next.enneagram_type = extraction.enneagram_type;
                next.prose = extraction.prose;
                next.sources = extraction.sources;
                next.bump(now);
                let revision = next.revision(RevisionOrigin::Extraction, None, now);
                Transition {
                    profile: next,
                    revision: Some(revision),
                }
            }
            ProfileEvent::Affirm => {
                let mut next = self;
                next.locked = true;
                next.affirmed_at = Some(now);
                next.bump(now);
                Transition {
                    profile: next,
                    revision: None,
                }
            }
        })
    }

    /// The profile as it is: nothing to record, `version` unchanged.
    fn unchanged(self) -> Transition {
        Transition {
            profile: self,
            revision: None,
        }
    }

    /// The seven fields and their sources as `revision` left them; restoring what the profile
    /// already holds changes nothing.
    fn restored(self, revision: &Revision, now: OffsetDateTime) -> Transition {
        let snapshot = &revision.snapshot;
        if snapshot.prose == self.prose && snapshot.sources == self.sources {
            return self.unchanged();
        }
        let mut next = self;
        next.prose = snapshot.prose.clone();
        next.sources = snapshot.sources.clone();
        next.bump(now);
        let note = Note::capped(&format!("restored revision {}", revision.number));
        let revision = next.revision(RevisionOrigin::ManualEdit, Some(note), now);
        Transition {
            profile: next,
            revision: Some(revision),
        }
    }

    /// The sources once `edit` is applied: each field it changes rests on `given`'s quotes for
    /// that field (none for a manual edit); the others keep theirs.
    fn sources_after(&self, edit: &ProfileEdit, given: &Sources) -> Sources {
        let mut sources = self.sources.clone();
        for (field, _) in edit.changes() {
            sources.set(field, given.get(field).to_vec());
        }
        sources
    }

    /// An edit that changes no text leaves the profile (and its version) as it was.
    fn with_prose(
        self,
        prose: ProseFields,
        sources: Sources,
        origin: RevisionOrigin,
        note: Option<Note>,
        now: OffsetDateTime,
    ) -> Transition {
        if prose == self.prose {
            return self.unchanged();
        }
        let mut next = self;
        next.prose = prose;
        next.sources = sources;
        next.bump(now);
        let revision = next.revision(origin, note, now);
        Transition {
            profile: next,
            revision: Some(revision),
        }
    }

    fn bump(&mut self, now: OffsetDateTime) {
        self.version += 1;
        self.updated_at = now;
    }

    fn revision(
        &self,
        origin: RevisionOrigin,
        note: Option<Note>,
        now: OffsetDateTime,
    ) -> NewRevision {
        NewRevision {
            id: RevisionId::new(),
            profile_id: self.id,
            origin,
            snapshot: self.snapshot(),
            note,
            created_at: now,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::EditableField;
    use crate::text::Prose;
    use time::macros::datetime;

    const T0: OffsetDateTime = datetime!(2026-11-01 09:00 UTC);
    const T1: OffsetDateTime = datetime!(2026-11-02 09:00 UTC);

    fn prose(s: &str) -> Prose {
        Prose::new(s).unwrap()
    }

    fn extraction(type_: i64, love: &str) -> Extraction {
        Extraction {
            enneagram_type: EnneagramType::new(type_).unwrap(),
            prose: ProseFields {
                love_summary: prose(love),
                strength_summary: prose("strength"),
                mission_summary: prose("mission"),
                vocation_summary: prose("vocation"),
                overlap_narrative: prose("overlap"),
                near_term_goal_summary: Some(prose("run a marathon")),
                long_term_goal_summary: None,
            },
            sources: Sources::default(),
        }
    }

    fn unlocked() -> Profile {
        Profile::extracted(UserId::new(), extraction(5, "love"), T0).profile
    }

    fn locked() -> Profile {
        unlocked().apply(ProfileEvent::Affirm, T0).unwrap().profile
    }

    fn edit(field: EditableField, value: &str) -> ProfileEdit {
        ProfileEdit::new([(field, Some(prose(value)))]).unwrap()
    }

    /// Revision 1 of a profile extracted from `extraction`, as storage returns it.
    fn first_revision_of(extraction: Extraction) -> Revision {
        let t = Profile::extracted(UserId::new(), extraction, T0);
        recorded(t.revision.unwrap(), 1)
    }

    fn recorded(r: NewRevision, number: u32) -> Revision {
        Revision {
            id: r.id,
            profile_id: r.profile_id,
            number,
            origin: r.origin,
            snapshot: r.snapshot,
            note: r.note,
            created_at: r.created_at,
        }
    }

    #[test]
    fn a_first_extraction_gives_version_one_and_an_extraction_revision() {
        let t = Profile::extracted(UserId::new(), extraction(2, "love"), T0);
        assert_eq!(t.profile.version, 1);
        assert!(!t.profile.locked);
        assert_eq!(t.profile.triad(), Triad::Heart);
        let rev = t.revision.unwrap();
        assert_eq!(rev.origin, RevisionOrigin::Extraction);
        assert_eq!(rev.snapshot, t.profile.snapshot());
    }

    /// What a transition records: the revision's origin (if any), whether the profile is then
    /// locked, and its version.
    type Recorded = Result<(Option<RevisionOrigin>, bool, i64), TransitionError>;

    /// Rows of the state machine's table: each event against the profile `start` makes, and
    /// what it records.
    fn assert_table(
        state: &str,
        start: fn() -> Profile,
        rows: Vec<(&str, ProfileEvent, Recorded)>,
    ) {
        for (name, event, expected) in rows {
            let outcome = start().apply(event, T1).map(|t| {
                (
                    t.revision.map(|r| r.origin),
                    t.profile.locked,
                    t.profile.version,
                )
            });
            assert_eq!(outcome, expected, "{name} {state}");
        }
    }

    fn edit_love() -> ProfileEvent {
        ProfileEvent::ManualEdit(edit(EditableField::LoveSummary, "x"))
    }

    fn reflection(field: EditableField, value: &str) -> ProfileEvent {
        ProfileEvent::Reflection {
            edit: edit(field, value),
            note: None,
            sources: Sources::default(),
        }
    }

    fn reextract() -> ProfileEvent {
        ProfileEvent::Reextraction(extraction(5, "other"))
    }

    fn restore_earlier() -> ProfileEvent {
        ProfileEvent::Restore(first_revision_of(extraction(5, "earlier")))
    }

    /// Every event against an unlocked profile is allowed: what it records, and the version.
    #[test]
    fn an_unlocked_profile_follows_its_table() {
        use RevisionOrigin::{Extraction, ManualEdit, Reflection};
        let revised = |origin| -> Recorded { Ok((Some(origin), false, 2)) };
        let reflect = reflection(EditableField::OverlapNarrative, "y");
        assert_table(
            "unlocked",
            unlocked,
            vec![
                ("edit", edit_love(), revised(ManualEdit)),
                ("reflect", reflect, revised(Reflection)),
                ("re-extract", reextract(), revised(Extraction)),
                ("affirm", ProfileEvent::Affirm, Ok((None, true, 2))),
                ("reopen", ProfileEvent::Reopen, Ok((None, false, 1))),
                ("restore", restore_earlier(), revised(ManualEdit)),
            ],
        );
    }

    /// Against a locked profile only affirming again and reopening are allowed.
    #[test]
    fn a_locked_profile_follows_its_table() {
        let refused = Err(TransitionError::ProfileLocked);
        let reflect = reflection(EditableField::LoveSummary, "x");
        assert_table(
            "locked",
            locked,
            vec![
                ("edit", edit_love(), refused),
                ("reflect", reflect, refused),
                ("re-extract", reextract(), refused),
                ("affirm", ProfileEvent::Affirm, Ok((None, true, 2))),
                ("reopen", ProfileEvent::Reopen, Ok((None, false, 3))),
                ("restore", restore_earlier(), refused),
            ],
        );
    }

    #[test]
    fn edits_and_reflection_never_change_type_or_triad() {
        let before = unlocked();
        let all_fields =
            ProfileEdit::new(EditableField::ALL.map(|f| (f, Some(prose("rewritten"))))).unwrap();
        let after_edit = before
            .clone()
            .apply(ProfileEvent::ManualEdit(all_fields.clone()), T1)
            .unwrap()
            .profile;
        let after_reflection = before
            .clone()
            .apply(
                ProfileEvent::Reflection {
                    edit: all_fields,
                    note: None,
                    sources: Sources::default(),
                },
                T1,
            )
            .unwrap()
            .profile;
        for after in [after_edit, after_reflection] {
            assert_eq!(after.enneagram_type, before.enneagram_type);
            assert_eq!(after.triad(), before.triad());
            assert_eq!(after.prose.love_summary.as_str(), "rewritten");
        }
    }

    #[test]
    fn an_edit_that_changes_nothing_records_nothing() {
        let before = unlocked();
        let same = edit(
            EditableField::LoveSummary,
            before.prose.love_summary.as_str(),
        );
        let t = before
            .clone()
            .apply(ProfileEvent::ManualEdit(same), T1)
            .unwrap();
        assert_eq!(t.revision, None);
        assert_eq!(t.profile, before);
        assert!(!t.changed(&before));
    }

    #[test]
    fn affirming_sets_the_time_once_and_again_changes_nothing() {
        let once = unlocked().apply(ProfileEvent::Affirm, T0).unwrap().profile;
        assert_eq!(once.affirmed_at, Some(T0));
        let twice = once.clone().apply(ProfileEvent::Affirm, T1).unwrap();
        assert_eq!(twice.profile, once);
        assert!(!twice.changed(&once));
    }

    #[test]
    fn each_change_raises_the_version_by_one_and_stamps_updated_at() {
        let mut p = unlocked();
        for (i, text) in ["a", "b", "c"].iter().enumerate() {
            p = p
                .apply(
                    ProfileEvent::ManualEdit(edit(EditableField::VocationSummary, text)),
                    T1,
                )
                .unwrap()
                .profile;
            assert_eq!(p.version, 2 + i as i64);
            assert_eq!(p.updated_at, T1);
        }
    }

    #[test]
    fn a_reflection_revision_carries_its_note() {
        let note = Note::new("You said it is about teaching, not managing.").unwrap();
        let t = unlocked()
            .apply(
                ProfileEvent::Reflection {
                    edit: edit(EditableField::MissionSummary, "teaching"),
                    note: Some(note.clone()),
                    sources: Sources::default(),
                },
                T1,
            )
            .unwrap();
        assert_eq!(t.revision.unwrap().note, Some(note));
    }

    #[test]
    fn sources_follow_the_text_they_rest_on() {
        use crate::discovery::Step;
        use crate::profile::{Source, SourceOrigin};
        let quote = |step: i64, q: &str| Source {
            origin: SourceOrigin::Step(Step::new(step).unwrap()),
            quote: q.into(),
        };
        let mut first = extraction(5, "love");
        first
            .sources
            .set(EditableField::LoveSummary, vec![quote(1, "love")]);
        first
            .sources
            .set(EditableField::MissionSummary, vec![quote(3, "mission")]);
        let profile = Profile::extracted(UserId::new(), first, T0).profile;

        // A manual edit: the edited field is the person's own writing, the others keep theirs.
        let edited = profile
            .apply(
                ProfileEvent::ManualEdit(edit(EditableField::LoveSummary, "my words")),
                T1,
            )
            .unwrap();
        let p = edited.profile;
        assert!(p.sources.get(EditableField::LoveSummary).is_empty());
        assert_eq!(p.sources.get(EditableField::MissionSummary).len(), 1);
        assert_eq!(edited.revision.unwrap().snapshot.sources, p.sources);

        // A reflection: the revised field rests on the quotes given for it.
        let mut given = Sources::default();
        given.set(EditableField::MissionSummary, vec![quote(2, "strength")]);
        let reflected = p
            .apply(
                ProfileEvent::Reflection {
                    edit: edit(EditableField::MissionSummary, "teaching"),
                    note: None,
                    sources: given.clone(),
                },
                T1,
            )
            .unwrap()
            .profile;
        assert_eq!(
            reflected.sources.get(EditableField::MissionSummary),
            given.get(EditableField::MissionSummary)
        );

        // A new extraction replaces them all.
        let again = reflected
            .apply(ProfileEvent::Reextraction(extraction(5, "love")), T1)
            .unwrap()
            .profile;
        assert_eq!(again.sources.count(), 0);
    }

    #[test]
    fn reopening_unlocks_clears_the_affirmation_and_records_no_revision() {
        let affirmed = locked();
        let t = affirmed.clone().apply(ProfileEvent::Reopen, T1).unwrap();
        assert!(!t.profile.locked);
        assert_eq!(t.profile.affirmed_at, None);
        assert_eq!(t.profile.version, affirmed.version + 1);
        assert_eq!(t.profile.updated_at, T1);
        assert_eq!(t.profile.prose, affirmed.prose);
        assert_eq!(t.revision, None);
        assert!(t.changed(&affirmed));

        // Reopened, it takes edits again; reopening an unlocked profile changes nothing.
        let again = t.profile.clone().apply(ProfileEvent::Reopen, T1).unwrap();
        assert!(!again.changed(&t.profile));
        assert!(
            t.profile
                .apply(
                    ProfileEvent::ManualEdit(edit(EditableField::LoveSummary, "x")),
                    T1
                )
                .is_ok()
        );
    }

    #[test]
    fn restoring_brings_back_the_fields_and_sources_of_that_revision_and_notes_it() {
        use crate::discovery::Step;
        use crate::profile::{Source, SourceOrigin};
        let mut first = extraction(5, "love");
        first.sources.set(
            EditableField::LoveSummary,
            vec![Source {
                origin: SourceOrigin::Step(Step::new(1).unwrap()),
                quote: "love".into(),
            }],
        );
        let created = Profile::extracted(UserId::new(), first, T0);
        let revision_one = recorded(created.revision.unwrap(), 1);
        let edited = created
            .profile
            .apply(
                ProfileEvent::ManualEdit(edit(EditableField::LoveSummary, "my words")),
                T1,
            )
            .unwrap()
            .profile;
        // A later re-extraction changed the type: a restore keeps the current one.
        let reextracted = edited
            .apply(ProfileEvent::Reextraction(extraction(2, "again")), T1)
            .unwrap()
            .profile;

        let t = reextracted
            .clone()
            .apply(ProfileEvent::Restore(revision_one.clone()), T1)
            .unwrap();
        assert_eq!(t.profile.prose, revision_one.snapshot.prose);
        assert_eq!(t.profile.sources, revision_one.snapshot.sources);
        assert_eq!(t.profile.enneagram_type, reextracted.enneagram_type);
        assert_eq!(t.profile.version, reextracted.version + 1);
        let revision = t.revision.unwrap();
        assert_eq!(revision.origin, RevisionOrigin::ManualEdit);
        assert_eq!(
            revision.note.as_ref().map(Note::as_str),
            Some("restored revision 1")
        );
        assert_eq!(revision.snapshot, t.profile.snapshot());

        // Restoring what the profile already holds changes nothing.
        let same = t
            .profile
            .clone()
            .apply(ProfileEvent::Restore(revision_one), T1)
            .unwrap();
        assert_eq!(same.revision, None);
        assert!(!same.changed(&t.profile));
    }
}
