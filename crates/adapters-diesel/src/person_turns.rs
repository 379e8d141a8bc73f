//! One person's changes of one kind (rule changes, bulk ingest), one at a time, queued in this
//! process before they take a connection.
//!
//! **Why.** A person's rule changes already run one at a time in the database (each takes a lock
//! on the person's row on PostgreSQL, the single writer on SQLite). But each waits for that lock
//! while holding a pooled connection: thirty rule changes sent at once by one person took every
//! connection of the pool, so another person's plain read waited for a permit behind them.
//! Queued here instead, as parked tasks, they hold one connection at a time and leave the rest
//! of the pool to everyone else. Bulk ingest is the same: sixteen 1,000-entry batches sent at
//! once by one person each held SQLite's single writer in turn (or a PostgreSQL connection
//! each), so another person's one-row write waited seconds behind them. In the person's turn,
//! a batch waits only for that person's earlier one, and another person's write waits at most
//! for the one batch being written.

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

use parking_lot::Mutex;
use tokio::sync::OwnedMutexGuard;

use crate::error::{StoreError, StoreResult};

/// What a turn is for: a person's changes of one kind never wait for those of another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Changes {
    /// Adding, moving and deleting mapping rules.
    Rules,
    /// Batches of task mappings.
    Ingest,
}

/// The turns of the people who have a change in flight.
#[derive(Debug, Default)]
pub(crate) struct PersonTurns {
    /// A person's entry lives as long as someone holds or awaits their turn.
    turns: Mutex<HashMap<(Changes, String), Weak<Queue>>>,
}

/// Where a person's changes of one kind wait for their turn.
type Queue = tokio::sync::Mutex<()>;

/// A person's turn, held until dropped.
pub(crate) type Turn = OwnedMutexGuard<()>;

impl PersonTurns {
    /// Waits at most `wait` for the person's turn at `changes`, else [`StoreError::Busy`].
    pub(crate) async fn take(
        &self,
        changes: Changes,
        person: &str,
        wait: Duration,
    ) -> StoreResult<Turn> {
        let turn = {
            let mut turns = self.turns.lock();
            turns.retain(|_, turn| turn.strong_count() > 0);
            let key = (changes, person.to_owned());
            match turns.get(&key).and_then(Weak::upgrade) {
                Some(turn) => turn,
                None => {
                    let turn = Arc::new(Queue::new(()));
                    turns.insert(key, Arc::downgrade(&turn));
                    turn
                }
            }
        };
        tokio::time::timeout(wait, turn.lock_owned())
            .await
            .map_err(|_| StoreError::Busy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WAIT: Duration = Duration::from_millis(50);

    #[tokio::test]
    async fn one_person_waits_for_their_own_turn_and_never_for_another_persons() {
        let turns = PersonTurns::default();
        let ada = turns.take(Changes::Rules, "ada", WAIT).await.unwrap();
        // Bob is not held up by Ada.
        let bob = turns.take(Changes::Rules, "bob", WAIT).await.unwrap();
        // Ada's second change waits, up to the bound, then is busy.
        assert!(matches!(
            turns.take(Changes::Rules, "ada", WAIT).await,
            Err(StoreError::Busy)
        ));
        drop(ada);
        drop(bob);
        assert!(turns.take(Changes::Rules, "ada", WAIT).await.is_ok());
    }

    #[tokio::test]
    async fn a_persons_batch_never_waits_for_their_rule_change() {
        let turns = PersonTurns::default();
        let _rule = turns.take(Changes::Rules, "ada", WAIT).await.unwrap();
        let batch = turns.take(Changes::Ingest, "ada", WAIT).await.unwrap();
        assert!(matches!(
            turns.take(Changes::Ingest, "ada", WAIT).await,
            Err(StoreError::Busy)
        ));
        drop(batch);
        assert!(turns.take(Changes::Ingest, "ada", WAIT).await.is_ok());
    }

    #[tokio::test]
    async fn a_person_with_nothing_in_flight_is_forgotten_at_the_next_take() {
        let turns = PersonTurns::default();
        drop(turns.take(Changes::Rules, "ada", WAIT).await.unwrap());
        drop(turns.take(Changes::Rules, "bob", WAIT).await.unwrap());
        assert_eq!(
            turns.turns.lock().len(),
            1,
            "ada, done, is gone; bob stays until the next take"
        );
    }
}
