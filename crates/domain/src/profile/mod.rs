//! The discovery profile: Enneagram type and triad, seven editable prose fields, its state
//! machine (edit, reflect, affirm, reopen, restore), the revisions every change leaves behind, and the person's
//! own words each field rests on.

pub mod enneagram;
pub mod fields;
pub mod grounding;
pub mod no_goal;
mod polarity;
pub mod provenance;
pub mod revision;
pub mod state;
mod words;

pub use enneagram::{EnneagramType, Triad};
pub use fields::{EditableField, ProfileEdit, ProfileEditError, ProseFields};
pub use no_goal::states_no_goal;
pub use provenance::{Source, SourceOrigin, Sources};
pub use revision::{NewRevision, Revision, RevisionOrigin, Snapshot};
pub use state::{Profile, ProfileEvent, Transition, TransitionError};
