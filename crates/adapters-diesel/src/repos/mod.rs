//! The repositories: one file per domain port, each holding a clone of
//! [`Database`](crate::Database) and running every blocking diesel call on the blocking pool,
//! every write in one transaction.

mod activity;
mod api_key;
mod checkin;
mod coalesce;
mod conversation;
mod declare;
mod delivery_queue;
mod keyset;
mod mapping_rule;
mod notification;
mod outbox;
mod preferences;
mod profile;
mod reclassification;
mod reflection;
mod rule_application;
mod session;
mod sweep;
mod task_mapping;
mod user;

pub use activity::DieselActivityRepository;
pub use api_key::DieselApiKeyRepository;
pub use checkin::DieselCheckInRepository;
pub use conversation::DieselConversationRepository;
pub use delivery_queue::DieselDeliveryQueue;
pub use mapping_rule::DieselRuleRepository;
pub use notification::DieselNotificationRepository;
pub use preferences::DieselPreferencesRepository;
pub use profile::DieselProfileRepository;
pub use reflection::DieselReflectionRepository;
pub use session::DieselSessionRepository;
pub use task_mapping::DieselTaskMappingRepository;
pub use user::DieselUserRepository;
