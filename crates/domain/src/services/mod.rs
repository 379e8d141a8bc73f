//! The use cases: services generic over the ports, one error enum per operation. Each service
//! method is one use case; each writes through one port call, so it commits or changes nothing.

pub mod account;
pub mod coaching;
pub mod delivery;
pub mod discovery;
pub mod integration;
mod model_retry;
pub mod notifications;
pub mod profile;

pub use account::AccountService;
pub use coaching::CoachingService;
pub use delivery::DeliveryService;
pub use discovery::DiscoveryService;
pub use integration::IntegrationService;
pub use model_retry::ModelFailure;
pub use notifications::NotificationService;
pub use profile::ProfileService;

#[cfg(test)]
pub(crate) mod fixtures;
