//! The ports: every trait through which the use cases reach the outside world. Storage ports
//! are one per aggregate; each write method is one transaction. Adapters implement them; tests
//! use the mockall mocks (`MockXxx`, also exported under the `mock` feature).
//!
//! One file per aggregate (storage) or role (the model, the identity provider, sending).

mod activity;
mod api_keys;
mod check_ins;
mod conversation;
mod delivery_queue;
mod identity;
mod model;
mod notifications;
mod preferences;
mod profile;
mod reflection;
mod rules;
mod sending;
mod sessions;
mod task_mappings;
mod users;

pub use activity::*;
pub use api_keys::*;
pub use check_ins::*;
pub use conversation::*;
pub use delivery_queue::*;
pub use identity::*;
pub use model::*;
pub use notifications::*;
pub use preferences::*;
pub use profile::*;
pub use reflection::*;
pub use rules::*;
pub use sending::*;
pub use sessions::*;
pub use task_mappings::*;
pub use users::*;

pub use crate::clock::Clock;
#[cfg(any(test, feature = "mock"))]
pub use crate::clock::MockClock;
