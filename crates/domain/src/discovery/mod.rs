//! Discovery: the seven prompts, the conversation that collects the answers, and the guarded
//! result of extracting a profile from them.

pub mod conversation;
pub mod extraction;
pub mod grounded;
pub mod prompts;
pub mod source_audit;
pub mod type_rule;

pub use conversation::{Answer, Conversation, ConversationError, ConversationStatus};
pub use extraction::{
    ClaimedSource, Extraction, ExtractionDraft, ExtractionInput, ExtractionRejected,
};
pub use grounded::{Grounded, GroundingReport};
pub use prompts::{PROMPTS, Prompt, PromptKey, Step};
pub use source_audit::SourceAudit;
pub use type_rule::{TypeBasis, TypeDecider, TypeDecision};
