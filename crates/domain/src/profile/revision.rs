//! Revisions: a numbered snapshot of the profile after each extraction, reflection or manual edit.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::{EnneagramType, ProseFields, Sources, Triad};
use crate::ids::{ProfileId, RevisionId};
use crate::text::Note;

/// What caused a revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RevisionOrigin {
    Extraction,
    Reflection,
    ManualEdit,
}

impl RevisionOrigin {
    pub const ALL: [Self; 3] = [Self::Extraction, Self::Reflection, Self::ManualEdit];

    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            Self::Extraction => "extraction",
            Self::Reflection => "reflection",
            Self::ManualEdit => "manual_edit",
        }
    }
}

impl fmt::Display for RevisionOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// A string that names no revision origin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown revision origin {0:?}")]
pub struct UnknownOrigin(pub String);

impl FromStr for RevisionOrigin {
    type Err = UnknownOrigin;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "extraction" => Ok(Self::Extraction),
            "reflection" => Ok(Self::Reflection),
            "manual_edit" => Ok(Self::ManualEdit),
            other => Err(UnknownOrigin(other.to_owned())),
        }
    }
}

/// The profile as it stood after a change: all prose fields, type, triad and sources.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    pub enneagram_type: EnneagramType,
    pub triad: Triad,
    #[serde(flatten)]
    pub prose: ProseFields,
    /// Absent from snapshots recorded before provenance: read as none.
    #[serde(default)]
    pub sources: Sources,
}

/// A revision the domain asks storage to record; storage numbers it (1, 2, ... per profile).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRevision {
    pub id: RevisionId,
    pub profile_id: ProfileId,
    pub origin: RevisionOrigin,
    pub snapshot: Snapshot,
    pub note: Option<Note>,
    pub created_at: OffsetDateTime,
}

/// A recorded revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revision {
    pub id: RevisionId,
    pub profile_id: ProfileId,
    pub number: u32,
    pub origin: RevisionOrigin,
    pub snapshot: Snapshot,
    pub note: Option<Note>,
    pub created_at: OffsetDateTime,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_recorded_before_provenance_reads_with_no_sources() {
        let old = r#"{"enneagram_type": 5, "triad": "head", "love_summary": "l",
            "strength_summary": "s", "mission_summary": "m", "vocation_summary": "v",
            "overlap_narrative": "o", "near_term_goal_summary": null,
            "long_term_goal_summary": "Open a school."}"#;
        let snapshot: Snapshot = serde_json::from_str(old).unwrap();
        assert_eq!(snapshot.sources, Sources::default());
        let again = serde_json::to_value(&snapshot).unwrap();
        assert_eq!(again["sources"].as_object().unwrap().len(), 7);
        let back: Snapshot = serde_json::from_value(again).unwrap();
        assert_eq!(back, snapshot);
    }
}
