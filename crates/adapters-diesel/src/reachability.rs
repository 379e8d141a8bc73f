//! Whether the database was last seen reachable. While it was not (a connection failed to open,
//! or broke), callers wait only briefly for a connection, so requests fail fast (503) instead of
//! each one waiting out the pool's whole connect timeout; the first connection that opens again
//! ends that at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use diesel::r2d2::{ManageConnection, Pool, PooledConnection};

/// How long a caller waits for a connection while the database is unreachable: enough to open
/// one on a healthy network, far less than the pool's timeout.
pub const WAIT_WHILE_UNREACHABLE: Duration = Duration::from_millis(250);

/// Shared by the connection manager (which sees connections open, fail and break) and the
/// callers that check connections out.
#[derive(Debug, Clone, Default)]
pub struct Reachability {
    lost: Arc<AtomicBool>,
}

impl Reachability {
    /// A connection failed to open or broke.
    pub fn lost(&self) {
        self.lost.store(true, Ordering::Relaxed);
    }

    /// A connection opened.
    pub fn found(&self) {
        self.lost.store(false, Ordering::Relaxed);
    }

    #[must_use]
    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Relaxed)
    }

    /// A connection from `pool`: waiting the pool's own timeout normally, and only
    /// [`WAIT_WHILE_UNREACHABLE`] while the database is unreachable.
    ///
    /// # Errors
    /// The pool's, when no connection could be had in time.
    pub fn checkout<M: ManageConnection>(
        &self,
        pool: &Pool<M>,
    ) -> Result<PooledConnection<M>, diesel::r2d2::PoolError> {
        if self.is_lost() {
            pool.get_timeout(WAIT_WHILE_UNREACHABLE)
        } else {
            pool.get()
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;

    /// A database that never answers.
    #[derive(Debug)]
    struct Unreachable;

    impl ManageConnection for Unreachable {
        type Connection = ();
        type Error = std::io::Error;

        fn connect(&self) -> Result<(), Self::Error> {
            Err(std::io::Error::from(std::io::ErrorKind::ConnectionRefused))
        }

        fn is_valid(&self, (): &mut ()) -> Result<(), Self::Error> {
            Ok(())
        }

        fn has_broken(&self, (): &mut ()) -> bool {
            false
        }
    }

    #[test]
    fn while_unreachable_a_checkout_gives_up_long_before_the_pools_timeout() {
        let pool = Pool::builder()
            .min_idle(Some(0))
            .connection_timeout(Duration::from_secs(60))
            .build_unchecked(Unreachable);
        let reachability = Reachability::default();
        reachability.lost();
        let started = Instant::now();
        assert!(reachability.checkout(&pool).is_err());
        // Without the short wait this would take the pool's 60 s.
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn lost_and_found_flip_the_state() {
        let reachability = Reachability::default();
        assert!(!reachability.is_lost());
        reachability.clone().lost();
        assert!(reachability.is_lost(), "clones share the state");
        reachability.found();
        assert!(!reachability.is_lost());
    }
}
