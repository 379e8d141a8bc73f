//! The seven editable prose fields of a profile and a validated set of edits to them.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::text::Prose;

/// The seven fields a person (or the coach, on their behalf) may change, by their API names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EditableField {
    LoveSummary,
    StrengthSummary,
    MissionSummary,
    VocationSummary,
    OverlapNarrative,
    NearTermGoalSummary,
    LongTermGoalSummary,
}

impl EditableField {
    pub const ALL: [Self; 7] = [
        Self::LoveSummary,
        Self::StrengthSummary,
        Self::MissionSummary,
        Self::VocationSummary,
        Self::OverlapNarrative,
        Self::NearTermGoalSummary,
        Self::LongTermGoalSummary,
    ];

    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::LoveSummary => "love_summary",
            Self::StrengthSummary => "strength_summary",
            Self::MissionSummary => "mission_summary",
            Self::VocationSummary => "vocation_summary",
            Self::OverlapNarrative => "overlap_narrative",
            Self::NearTermGoalSummary => "near_term_goal_summary",
            Self::LongTermGoalSummary => "long_term_goal_summary",
        }
    }

    /// Goal summaries may be `null` (no goal stated); the other five always hold text.
    #[must_use]
    pub const fn is_nullable(self) -> bool {
        matches!(self, Self::NearTermGoalSummary | Self::LongTermGoalSummary)
    }
}

impl fmt::Display for EditableField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A field name that is not one of the seven.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0} is not an editable field")]
pub struct NotEditable(pub String);

impl FromStr for EditableField {
    type Err = NotEditable;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| NotEditable(s.to_owned()))
    }
}

/// The prose of a profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProseFields {
    pub love_summary: Prose,
    pub strength_summary: Prose,
    pub mission_summary: Prose,
    pub vocation_summary: Prose,
    pub overlap_narrative: Prose,
    pub near_term_goal_summary: Option<Prose>,
    pub long_term_goal_summary: Option<Prose>,
}

impl ProseFields {
    /// The current value of one field.
    #[must_use]
    pub fn get(&self, field: EditableField) -> Option<&Prose> {
        match field {
            EditableField::LoveSummary => Some(&self.love_summary),
            EditableField::StrengthSummary => Some(&self.strength_summary),
            EditableField::MissionSummary => Some(&self.mission_summary),
            EditableField::VocationSummary => Some(&self.vocation_summary),
            EditableField::OverlapNarrative => Some(&self.overlap_narrative),
            EditableField::NearTermGoalSummary => self.near_term_goal_summary.as_ref(),
            EditableField::LongTermGoalSummary => self.long_term_goal_summary.as_ref(),
        }
    }

    /// The fields with `edit` applied. [`ProfileEdit`] guarantees nulls only reach goal fields.
    #[must_use]
    pub fn with(&self, edit: &ProfileEdit) -> Self {
        let mut next = self.clone();
        for (field, value) in edit.changes() {
            match (field, value.clone()) {
                (EditableField::NearTermGoalSummary, v) => next.near_term_goal_summary = v,
                (EditableField::LongTermGoalSummary, v) => next.long_term_goal_summary = v,
                (_, None) => {}
                (EditableField::LoveSummary, Some(v)) => next.love_summary = v,
                (EditableField::StrengthSummary, Some(v)) => next.strength_summary = v,
                (EditableField::MissionSummary, Some(v)) => next.mission_summary = v,
                (EditableField::VocationSummary, Some(v)) => next.vocation_summary = v,
                (EditableField::OverlapNarrative, Some(v)) => next.overlap_narrative = v,
            }
        }
        next
    }
}

/// Why a set of edits was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProfileEditError {
    #[error("{0} cannot be null")]
    NullNotAllowed(EditableField),
    /// One click must not lose a field's words: the five Ikigai and overlap fields always hold
    /// text.
    #[error("{0} must not be blank")]
    Blank(EditableField),
}

impl ProfileEditError {
    /// The field the edit was refused for.
    #[must_use]
    pub const fn field(&self) -> EditableField {
        match self {
            Self::NullNotAllowed(field) | Self::Blank(field) => *field,
        }
    }
}

/// A validated set of changes to the editable fields (each field at most once).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProfileEdit(BTreeMap<EditableField, Option<Prose>>);

impl ProfileEdit {
    /// The changes, each field at most once (the last one wins). A blank goal (empty or
    /// whitespace only) is read as `None`, "I have no such goal", as a cleared form field means.
    ///
    /// # Errors
    /// [`ProfileEditError::NullNotAllowed`] when a non-goal field is set to null, and
    /// [`ProfileEditError::Blank`] when it is set to blank text.
    pub fn new(
        changes: impl IntoIterator<Item = (EditableField, Option<Prose>)>,
    ) -> Result<Self, ProfileEditError> {
        let mut map = BTreeMap::new();
        for (field, value) in changes {
            let value = match value {
                Some(text) if text.is_blank() => {
                    if !field.is_nullable() {
                        return Err(ProfileEditError::Blank(field));
                    }
                    None
                }
                Some(text) => Some(text),
                None if !field.is_nullable() => {
                    return Err(ProfileEditError::NullNotAllowed(field));
                }
                None => None,
            };
            map.insert(field, value);
        }
        Ok(Self(map))
    }

    pub fn changes(&self) -> impl Iterator<Item = (EditableField, &Option<Prose>)> {
        self.0.iter().map(|(f, v)| (*f, v))
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prose(s: &str) -> Prose {
        Prose::new(s).unwrap()
    }

    #[test]
    fn field_names_are_exactly_the_seven_of_the_contract() {
        let names: Vec<_> = EditableField::ALL.iter().map(|f| f.name()).collect();
        assert_eq!(
            names,
            [
                "love_summary",
                "strength_summary",
                "mission_summary",
                "vocation_summary",
                "overlap_narrative",
                "near_term_goal_summary",
                "long_term_goal_summary"
            ]
        );
        for f in EditableField::ALL {
            assert_eq!(f.name().parse::<EditableField>(), Ok(f));
        }
        for other in ["triad", "enneagram_type", "locked", "version", ""] {
            assert!(other.parse::<EditableField>().is_err(), "{other}");
        }
    }

    #[test]
    fn only_goal_summaries_may_be_cleared() {
        assert!(ProfileEdit::new([(EditableField::NearTermGoalSummary, None)]).is_ok());
        assert!(ProfileEdit::new([(EditableField::LongTermGoalSummary, None)]).is_ok());
        assert_eq!(
            ProfileEdit::new([(EditableField::LoveSummary, None)]),
            Err(ProfileEditError::NullNotAllowed(EditableField::LoveSummary))
        );
    }

    #[test]
    fn a_blank_ikigai_or_overlap_field_is_refused_and_a_blank_goal_means_no_goal() {
        for field in EditableField::ALL.into_iter().filter(|f| !f.is_nullable()) {
            for blank in ["", " ", "\n\t  "] {
                assert_eq!(
                    ProfileEdit::new([(field, Some(prose(blank)))]),
                    Err(ProfileEditError::Blank(field)),
                    "{field} = {blank:?}"
                );
            }
            assert_eq!(ProfileEditError::Blank(field).field(), field);
        }
        let edit = ProfileEdit::new([
            (EditableField::NearTermGoalSummary, Some(prose("  "))),
            (EditableField::LongTermGoalSummary, Some(prose(""))),
            (EditableField::LoveSummary, Some(prose(" Soup. "))),
        ])
        .unwrap();
        let changes: Vec<_> = edit.changes().map(|(f, v)| (f, v.clone())).collect();
        assert_eq!(
            changes,
            [
                (EditableField::LoveSummary, Some(prose(" Soup. "))),
                (EditableField::NearTermGoalSummary, None),
                (EditableField::LongTermGoalSummary, None),
            ]
        );
    }

    #[test]
    fn applying_an_edit_changes_only_the_named_fields() {
        let before = ProseFields {
            love_summary: prose("love"),
            strength_summary: prose("strength"),
            mission_summary: prose("mission"),
            vocation_summary: prose("vocation"),
            overlap_narrative: prose("overlap"),
            near_term_goal_summary: Some(prose("near")),
            long_term_goal_summary: None,
        };
        let edit = ProfileEdit::new([
            (EditableField::MissionSummary, Some(prose("new mission"))),
            (EditableField::NearTermGoalSummary, None),
        ])
        .unwrap();
        let after = before.with(&edit);
        assert_eq!(after.mission_summary.as_str(), "new mission");
        assert_eq!(after.near_term_goal_summary, None);
        assert_eq!(after.love_summary, before.love_summary);
        assert_eq!(after.overlap_narrative, before.overlap_narrative);
    }
}
