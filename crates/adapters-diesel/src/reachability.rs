//! Whether the database was last seen reachable. While it was not (a connection failed to open,
//! or broke), callers wait only briefly for a connection, so requests fail fast (503) instead of
//! each one waiting out the pool's whole connect timeout; the first connection that opens again
//! ends that at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

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

    /// A connection from `pool`, waiting up to the pool's own timeout while the database is
    /// reachable (the pool may just be busy) but never more than [`WAIT_WHILE_UNREACHABLE`]
    /// once it is not, including for a caller that began waiting before it was lost: the wait
    /// is taken in slices of that length, and the state is read again between them.
    ///
    /// # Errors
    /// The pool's, when no connection could be had in time.
    pub fn checkout<M: ManageConnection>(
        &self,
        pool: &Pool<M>,
    ) -> Result<PooledConnection<M>, diesel::r2d2::PoolError> {
        let deadline = Instant::now() + pool.connection_timeout();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match pool.get_timeout(left.min(WAIT_WHILE_UNREACHABLE)) {
                Ok(conn) => return Ok(conn),
                Err(e) if self.is_lost() || Instant::now() >= deadline => return Err(e),
                Err(_) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
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
    fn while_reachable_a_checkout_waits_the_pools_whole_timeout() {
        let pool = Pool::builder()
            .min_idle(Some(0))
            .connection_timeout(Duration::from_millis(900))
            .build_unchecked(Unreachable);
        // Nothing marked it lost (this manager does not report), so only the deadline ends it.
        let started = Instant::now();
        assert!(Reachability::default().checkout(&pool).is_err());
        assert!(
            started.elapsed() >= Duration::from_millis(900),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn a_caller_already_waiting_gives_up_soon_after_the_database_is_lost() {
        let pool = Pool::builder()
            .min_idle(Some(0))
            .connection_timeout(Duration::from_secs(60))
            .build_unchecked(Unreachable);
        let reachability = Reachability::default();
        let marker = reachability.clone();
        let lose = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            marker.lost();
        });
        let started = Instant::now();
        assert!(reachability.checkout(&pool).is_err());
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
        lose.join().unwrap();
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
