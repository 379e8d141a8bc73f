//! The discovery profile: Enneagram type and triad, seven editable prose fields, its state
//! machine (edit, reflect, affirm) and the revisions every change leaves behind.

pub mod enneagram;
pub mod fields;
pub mod revision;
pub mod state;

pub use enneagram::{EnneagramType, Triad};
pub use fields::{EditableField, ProfileEdit, ProfileEditError, ProseFields};
pub use revision::{NewRevision, Revision, RevisionOrigin, Snapshot};
pub use state::{Profile, ProfileEvent, Transition, TransitionError};
