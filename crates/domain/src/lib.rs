//! The pure core of the Discovery Service: every rule of the product, the use cases, and the
//! ports (traits) through which the use cases reach storage, language models and identity providers.
//!
//! Nothing here performs I/O or knows a framework. Adapters implement [`ports`]; binaries wire
//! adapters into [`services`].

pub mod account;
pub mod clock;
pub mod coaching;
pub mod discovery;
pub mod error;
pub mod foundation;
pub mod ids;
pub mod integration;
pub mod missed_change;
pub mod model_output;
pub mod notifications;
pub mod number;
pub mod pagination;
pub mod ports;
pub mod profile;
pub mod reflection;
pub mod reflection_grounding;
pub mod reply_grounding;
pub mod services;
pub mod text;

pub use error::RepoError;
pub use foundation::Foundation;
