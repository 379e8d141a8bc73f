//! Revisions: a numbered snapshot of the profile after each extraction, reflection or manual edit.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::{EnneagramType, ProseFields, Triad};
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

/// The profile as it stood after a change: all prose fields, type and triad.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    pub enneagram_type: EnneagramType,
    pub triad: Triad,
    #[serde(flatten)]
    pub prose: ProseFields,
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
