//! Deliveries: one per event and channel, attempted until delivered or out of retries, on the
//! contract's schedule (about 30 s, 2 min, 10 min, 1 h, 6 h and 24 h after a failure).

use std::time::Duration;

use time::OffsetDateTime;

use super::EventType;
use crate::ids::{DeliveryId, EventId, WebhookId};

/// The waits after the 1st, 2nd, ... failed attempt; after the last, the delivery has failed.
pub const RETRY_SCHEDULE: [Duration; 6] = [
    Duration::from_secs(30),
    Duration::from_secs(2 * 60),
    Duration::from_secs(10 * 60),
    Duration::from_secs(60 * 60),
    Duration::from_secs(6 * 60 * 60),
    Duration::from_secs(24 * 60 * 60),
];

/// Where a delivery goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Channel {
    Webhook(WebhookId),
    Email,
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeliveryStatus {
    Pending,
    Delivered,
    Failed,
}

impl DeliveryStatus {
    pub const ALL: [Self; 3] = [Self::Pending, Self::Delivered, Self::Failed];

    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Delivered => "delivered",
            Self::Failed => "failed",
        }
    }

    #[must_use]
    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.key() == key)
    }
}

/// One event's delivery over one channel, as the delivery log lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub id: DeliveryId,
    pub event_id: EventId,
    pub event_type: EventType,
    pub channel: Channel,
    /// Attempts made so far (0 before the first).
    pub attempt: u32,
    pub status: DeliveryStatus,
    /// The HTTP status of the last attempt's answer (webhooks; `None` without an answer).
    pub response_status: Option<u16>,
    /// Why the last attempt failed, in a few words (never a secret or the person's words).
    pub error: Option<String>,
    pub created_at: OffsetDateTime,
    pub last_attempt_at: Option<OffsetDateTime>,
    /// When the next attempt is due; `None` once delivered or failed.
    pub next_attempt_at: Option<OffsetDateTime>,
}

/// What one attempt came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeliveryOutcome {
    /// A 2xx answer (webhooks), or the mail server took the message.
    Delivered { response_status: Option<u16> },
    /// Anything else: an answer outside 2xx, a timeout, a refused address, a mail server down.
    Failed {
        response_status: Option<u16>,
        error: String,
    },
}

impl Delivery {
    /// The delivery after an attempt at `at` (this attempt counted): delivered, due again after
    /// the schedule's wait, or failed for good after the last retry.
    #[must_use]
    pub fn after_attempt(mut self, outcome: DeliveryOutcome, at: OffsetDateTime) -> Self {
        self.attempt += 1;
        self.last_attempt_at = Some(at);
        match outcome {
            DeliveryOutcome::Delivered { response_status } => {
                self.status = DeliveryStatus::Delivered;
                self.response_status = response_status;
                self.error = None;
                self.next_attempt_at = None;
            }
            DeliveryOutcome::Failed {
                response_status,
                error,
            } => {
                self.response_status = response_status;
                self.error = Some(error);
                match retry_wait(self.attempt) {
                    Some(wait) => {
                        self.status = DeliveryStatus::Pending;
                        self.next_attempt_at = Some(at + wait);
                    }
                    None => {
                        self.status = DeliveryStatus::Failed;
                        self.next_attempt_at = None;
                    }
                }
            }
        }
        self
    }
}

impl Delivery {
    /// The delivery ended without an attempt: its channel is gone for good (the endpoint was
    /// disabled, or the person turned e-mail off after the event was queued).
    #[must_use]
    pub fn cancelled(mut self, why: &str, at: OffsetDateTime) -> Self {
        self.status = DeliveryStatus::Failed;
        self.error = Some(why.to_owned());
        self.last_attempt_at = Some(at);
        self.next_attempt_at = None;
        self
    }
}

/// The wait after the `attempt`-th failed attempt (1-based); `None` after the last.
#[must_use]
pub fn retry_wait(attempt: u32) -> Option<Duration> {
    let index = usize::try_from(attempt).ok()?.checked_sub(1)?;
    RETRY_SCHEDULE.get(index).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(at: OffsetDateTime) -> Delivery {
        Delivery {
            id: DeliveryId::new(),
            event_id: EventId::new(),
            event_type: EventType::Ping,
            channel: Channel::Email,
            attempt: 0,
            status: DeliveryStatus::Pending,
            response_status: None,
            error: None,
            created_at: at,
            last_attempt_at: None,
            next_attempt_at: Some(at),
        }
    }

    fn failed() -> DeliveryOutcome {
        DeliveryOutcome::Failed {
            response_status: Some(500),
            error: "the endpoint answered 500".to_owned(),
        }
    }

    #[test]
    fn failures_are_retried_on_the_schedule_then_the_delivery_fails() {
        let start = time::macros::datetime!(2026-11-26 10:00 UTC);
        let mut delivery = pending(start);
        let mut at = start;
        for wait in RETRY_SCHEDULE {
            delivery = delivery.after_attempt(failed(), at);
            assert_eq!(delivery.status, DeliveryStatus::Pending);
            assert_eq!(delivery.next_attempt_at, Some(at + wait));
            assert_eq!(delivery.response_status, Some(500));
            at += wait;
        }
        delivery = delivery.after_attempt(failed(), at);
        assert_eq!(delivery.attempt, 7, "the first try and six retries");
        assert_eq!(delivery.status, DeliveryStatus::Failed);
        assert_eq!(delivery.next_attempt_at, None);
    }

    #[test]
    fn a_success_ends_the_delivery_and_clears_the_error() {
        let at = time::macros::datetime!(2026-11-26 10:00 UTC);
        let delivery = pending(at).after_attempt(failed(), at).after_attempt(
            DeliveryOutcome::Delivered {
                response_status: Some(204),
            },
            at + RETRY_SCHEDULE[0],
        );
        assert_eq!(delivery.status, DeliveryStatus::Delivered);
        assert_eq!(delivery.attempt, 2);
        assert_eq!(delivery.error, None);
        assert_eq!(delivery.next_attempt_at, None);
        assert_eq!(delivery.last_attempt_at, Some(at + RETRY_SCHEDULE[0]));
    }

    #[test]
    fn the_statuses_read_back_from_their_keys() {
        for status in DeliveryStatus::ALL {
            assert_eq!(DeliveryStatus::from_key(status.key()), Some(status));
        }
        assert_eq!(DeliveryStatus::from_key("lost"), None);
    }
}
