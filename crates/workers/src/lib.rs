//! The background workers `discovery-api` runs beside its requests, each a loop over one domain
//! use case that finishes the step in flight when told to stop: delivery of the outbox's webhooks
//! and e-mails, and the re-classification jobs that rule changes queue. Both run the one loop
//! of `worker_loop` (stop, idle wait, back-off after a failed database).

pub mod delivery;
pub mod reclassify;
pub mod worker_loop;

pub use delivery::DeliveryWorker;
pub use reclassify::ReclassifyWorker;

#[cfg(test)]
mod loop_tests;
#[cfg(test)]
mod tests;
