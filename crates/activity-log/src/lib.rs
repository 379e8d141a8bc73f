//! The activity log's writer, apart from HTTP: a bounded queue of request records and the task
//! that group-commits them through the domain's [`ActivityRepository`] port (so it is tested
//! with the port's mock). The binary's middleware describes each request and queues it here.
//!
//! [`ActivityRepository`]: domain::ports::ActivityRepository

mod queue;

pub use queue::{ActivityQueue, ActivityWriter, BATCH, CAPACITY, LINGER, PATIENCE};
