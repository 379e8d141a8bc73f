//! The HTTP contract's shapes, apart from any HTTP framework: the typed requests (`requests`),
//! read from JSON (`json`) and turned into the domain's inputs, the views (`views`) the answers
//! are serialized from, and the error body (`error`); each type also gives the OpenAPI document
//! its schema, so the document and the wire cannot drift.

pub mod error;
pub mod json;
pub mod requests;
pub mod views;
