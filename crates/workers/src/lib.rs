//! The background workers `discovery-api` runs beside its requests, each a loop over one domain
//! use case that finishes the step in flight when told to stop: delivery of the outbox's webhooks
//! and e-mails, and the re-classification jobs that rule changes queue.

pub mod delivery;
pub mod reclassify;

pub use delivery::DeliveryWorker;
pub use reclassify::ReclassifyWorker;

#[cfg(test)]
mod tests;
