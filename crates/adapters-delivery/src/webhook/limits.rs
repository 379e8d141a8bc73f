//! The bounds on one webhook attempt, in a file of their own so that the sender and the parts it
//! is built from (the resolver, the reading of answers) share them without importing each other.

use std::time::Duration;

/// The bound on one attempt, from connecting to the last byte read of the answer.
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// The bound on one name lookup, at registration and inside an attempt's [`TIMEOUT`] alike:
/// the time a name server that does not answer can hold a registration or a delivery.
pub const RESOLVE_TIMEOUT: Duration = Duration::from_secs(5);
/// The most of an answer's body that is read: only its status counts, and the body is read (up
/// to here) so the connection can be reused when the answer is short.
pub const MAX_ANSWER_BYTES: usize = 64 * 1024;
