//! The delivery worker's use case: claim what is due, attempt each delivery once (all of a claim
//! at once), and store each outcome with its next attempt on the contract's schedule. A worker
//! that dies mid-attempt loses nothing: its claim's lease ends and another worker tries again,
//! with the same event id.

use std::time::Duration;

use futures_util::future::join_all;
use serde::Deserialize;

use crate::clock::Clock;
use crate::error::RepoError;
use crate::ids::CheckInId;
use crate::notifications::{Channel, Delivery, DeliveryOutcome, DeliveryStatus};
use crate::ports::{
    CheckInMail, ClaimedDelivery, DeliveryQueue, DeliveryTarget, MailLinks, Mailer, QueueStats,
    WebhookRequest, WebhookSender,
};

/// How long a claim holds: longer than any attempt (10 s for a webhook, 30 s for a mail), so a
/// live worker never loses its claim, short enough that a dead one's is retried soon.
pub const LEASE: Duration = Duration::from_secs(120);

/// Attempts of one channel: delivered, and failed (to be retried, or failed for good).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tally {
    pub sent: u64,
    pub failed: u64,
}

/// What one pass did, by channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DeliveryReport {
    pub webhook: Tally,
    pub email: Tally,
}

impl DeliveryReport {
    #[must_use]
    pub const fn sent(&self) -> u64 {
        self.webhook.sent + self.email.sent
    }

    #[must_use]
    pub const fn failed(&self) -> u64 {
        self.webhook.failed + self.email.failed
    }

    fn count(&mut self, channel: Channel, status: DeliveryStatus) {
        let tally = match channel {
            Channel::Webhook(_) => &mut self.webhook,
            Channel::Email => &mut self.email,
        };
        match status {
            DeliveryStatus::Delivered => tally.sent += 1,
            DeliveryStatus::Failed | DeliveryStatus::Pending => tally.failed += 1,
        }
    }
}

impl std::ops::AddAssign for DeliveryReport {
    fn add_assign(&mut self, other: Self) {
        self.webhook.sent += other.webhook.sent;
        self.webhook.failed += other.webhook.failed;
        self.email.sent += other.email.sent;
        self.email.failed += other.email.failed;
    }
}

/// The delivery use case.
#[derive(Debug, Clone)]
pub struct DeliveryService<Q, W, M, L, K> {
    queue: Q,
    webhooks: W,
    /// `None` where the server sends no e-mail: e-mail deliveries then fail (and are retried).
    mailer: Option<M>,
    links: L,
    clock: K,
}

impl<Q, W, M, L, K> DeliveryService<Q, W, M, L, K>
where
    Q: DeliveryQueue,
    W: WebhookSender,
    M: Mailer,
    L: MailLinks,
    K: Clock,
{
    pub fn new(queue: Q, webhooks: W, mailer: Option<M>, links: L, clock: K) -> Self {
        Self {
            queue,
            webhooks,
            mailer,
            links,
            clock,
        }
    }

    /// Claims at most `limit` due deliveries, attempts each once (all at once) and stores the
    /// outcomes together: one commit per pass, not one per delivery.
    ///
    /// # Errors
    /// Storage failures (deliveries whose outcomes could not be stored are tried again after
    /// their lease, with the same event ids).
    pub async fn run_once(&self, limit: u32) -> Result<DeliveryReport, RepoError> {
        let claimed = self.queue.claim(self.clock.now(), limit, LEASE).await?;
        if claimed.is_empty() {
            return Ok(DeliveryReport::default());
        }
        let done = join_all(claimed.into_iter().map(|c| self.attempt(c))).await;
        self.queue.finish(&done, self.clock.now()).await?;
        let mut report = DeliveryReport::default();
        for delivery in &done {
            report.count(delivery.channel, delivery.status);
        }
        Ok(report)
    }

    /// Runs passes until nothing is due, or until `stopping` says so between two passes
    /// (`discovery-batch deliver` on SIGTERM): a pass that began always ends with its outcomes
    /// stored, so a graceful stop leaves no claim to wait out.
    ///
    /// # Errors
    /// [`RepoError::Busy`]: nothing was written, and the same call shortly may succeed.
    /// [`RepoError::Unavailable`]: the database did not answer, so whether it committed is unknown;
    /// the next drain picks up what is still due.
    /// [`RepoError::Unexpected`] is a bug or corrupt data: repeating will not help.
    pub async fn drain(
        &self,
        limit: u32,
        stopping: impl Fn() -> bool,
    ) -> Result<DeliveryReport, RepoError> {
        let mut total = DeliveryReport::default();
        while !stopping() {
            let pass = self.run_once(limit).await?;
            if pass == DeliveryReport::default() {
                break;
            }
            total += pass;
        }
        Ok(total)
    }

    /// # Errors
    /// [`RepoError::Busy`] or [`RepoError::Unavailable`] when the database had no room or did not
    /// answer: nothing changed, and asking again shortly may succeed (the API answers 503).
    /// [`RepoError::Unexpected`] is a bug or corrupt data: asking again will not help.
    pub async fn stats(&self) -> Result<QueueStats, RepoError> {
        self.queue.stats().await
    }

    /// One attempt; the delivery as it stands afterwards (not yet stored).
    async fn attempt(&self, claimed: ClaimedDelivery) -> Delivery {
        let ClaimedDelivery {
            delivery,
            user_id,
            payload,
            target,
        } = claimed;
        let now = self.clock.now();
        match target {
            DeliveryTarget::Webhook(None) => delivery.cancelled("the endpoint is disabled", now),
            DeliveryTarget::Email { enabled: false, .. } => {
                delivery.cancelled("check-ins by e-mail were turned off", now)
            }
            DeliveryTarget::Webhook(Some((url, secret))) => {
                let request = WebhookRequest {
                    url,
                    secret,
                    event_id: delivery.event_id,
                    timestamp: now,
                    payload,
                };
                let outcome = self.webhooks.send(&request).await;
                delivery.after_attempt(outcome, self.clock.now())
            }
            DeliveryTarget::Email { to, enabled: true } => {
                let outcome = match (&self.mailer, mail_of(&payload)) {
                    (None, _) => failed("this server sends no e-mail (SMTP_URL is not set)"),
                    (Some(_), None) => failed("the event is not a check-in"),
                    (Some(mailer), Some(checkin)) => {
                        let mail = CheckInMail {
                            to,
                            answer_url: self.links.checkin_url(checkin.id),
                            unsubscribe_url: self.links.unsubscribe_url(user_id),
                            message: checkin.message,
                            quoted_goals: checkin.quoted_goals,
                            observation: checkin.observation,
                        };
                        mailer.send_checkin(&mail).await
                    }
                };
                delivery.after_attempt(outcome, self.clock.now())
            }
        }
    }
}

fn failed(why: &str) -> DeliveryOutcome {
    DeliveryOutcome::Failed {
        response_status: None,
        error: why.to_owned(),
    }
}

/// The check-in of a `checkin.created` payload (`OutboxEvent::checkin_created`).
#[derive(Deserialize)]
struct CheckInData {
    id: CheckInId,
    message: String,
    quoted_goals: Vec<String>,
    observation: Option<String>,
}

fn mail_of(payload: &str) -> Option<CheckInData> {
    #[derive(Deserialize)]
    struct Payload {
        #[serde(rename = "type")]
        event_type: String,
        data: CheckInData,
    }
    let payload: Payload = serde_json::from_str(payload).ok()?;
    (payload.event_type == "checkin.created").then_some(payload.data)
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use futures::executor::block_on;
    use time::OffsetDateTime;
    use time::macros::datetime;

    use super::*;
    use crate::clock::MockClock;
    use crate::coaching::{CheckIn, CheckInOrigin};
    use crate::ids::{DeliveryId, UserId, WebhookId};
    use crate::notifications::{EventType, OutboxEvent, RETRY_SCHEDULE, WebhookSecret, WebhookUrl};
    use crate::ports::{MockDeliveryQueue, MockMailLinks, MockMailer, MockWebhookSender};

    const NOW: OffsetDateTime = datetime!(2026-11-26 10:00 UTC);

    fn clock() -> MockClock {
        let mut clock = MockClock::new();
        clock.expect_now().return_const(NOW);
        clock
    }

    fn checkin_event(user: UserId) -> OutboxEvent {
        OutboxEvent::checkin_created(&CheckIn {
            id: crate::ids::CheckInId::new(),
            user_id: user,
            message: "Does this still hold?".to_owned(),
            quoted_goals: vec!["Ride to work <b>daily</b>".to_owned()],
            observation: Some("Most of your time went to Vocation.".to_owned()),
            origin: CheckInOrigin::Batch,
            created_at: NOW,
            response: None,
        })
    }

    fn claimed(event: &OutboxEvent, channel: Channel, target: DeliveryTarget) -> ClaimedDelivery {
        ClaimedDelivery {
            delivery: Delivery {
                id: DeliveryId::new(),
                event_id: event.id,
                event_type: event.event_type,
                channel,
                attempt: 0,
                status: DeliveryStatus::Pending,
                response_status: None,
                error: None,
                created_at: NOW,
                last_attempt_at: None,
                next_attempt_at: Some(NOW),
            },
            user_id: event.user_id,
            payload: event.payload.clone(),
            target,
        }
    }

    fn endpoint() -> DeliveryTarget {
        DeliveryTarget::Webhook(Some((
            WebhookUrl::parse("https://hooks.example.com/x", false).unwrap(),
            WebhookSecret::new("whsec_c2VjcmV0".to_owned()),
        )))
    }

    /// A queue that hands out `claims` once and records what is finished.
    fn queue(claims: Vec<ClaimedDelivery>) -> (MockDeliveryQueue, Arc<Mutex<Vec<Delivery>>>) {
        let finished = Arc::new(Mutex::new(Vec::new()));
        let mut q = MockDeliveryQueue::new();
        let mut once = Some(claims);
        q.expect_claim()
            .withf(|now, limit, lease| *now == NOW && *limit == 50 && *lease == LEASE)
            .returning(move |_, _, _| Ok(once.take().unwrap_or_default()));
        let store = Arc::clone(&finished);
        q.expect_finish().times(1).returning(move |done, _| {
            store.lock().unwrap().extend_from_slice(done);
            Ok(())
        });
        (q, finished)
    }

    type Service =
        DeliveryService<MockDeliveryQueue, MockWebhookSender, MockMailer, MockMailLinks, MockClock>;

    fn service(
        q: MockDeliveryQueue,
        sender: MockWebhookSender,
        mailer: Option<MockMailer>,
    ) -> Service {
        let mut links = MockMailLinks::new();
        links
            .expect_checkin_url()
            .returning(|id| format!("https://d.example/coaching.html#checkin-{id}"));
        links.expect_unsubscribe_url().returning(|user| {
            format!("https://d.example/api/notifications/unsubscribe?token={user}")
        });
        DeliveryService::new(q, sender, mailer, links, clock())
    }

    #[test]
    fn a_webhook_is_sent_signed_with_the_event_id_and_stored_as_delivered() {
        let event = checkin_event(UserId::new());
        let (q, finished) = queue(vec![claimed(
            &event,
            Channel::Webhook(WebhookId::new()),
            endpoint(),
        )]);
        let mut sender = MockWebhookSender::new();
        let (id, payload) = (event.id, event.payload.clone());
        sender
            .expect_send()
            .withf(move |r| r.event_id == id && r.payload == payload && r.timestamp == NOW)
            .times(1)
            .returning(|_| DeliveryOutcome::Delivered {
                response_status: Some(204),
            });
        let report = block_on(service(q, sender, None).run_once(50)).unwrap();
        assert_eq!((report.sent(), report.failed()), (1, 0));
        assert_eq!(report.webhook.sent, 1);
        let done = finished.lock().unwrap();
        assert_eq!(done[0].status, DeliveryStatus::Delivered);
        assert_eq!(done[0].attempt, 1);
        assert_eq!(done[0].response_status, Some(204));
    }

    #[test]
    fn a_failed_attempt_is_due_again_after_the_first_wait() {
        let event = OutboxEvent::ping(UserId::new(), NOW);
        let (q, finished) = queue(vec![claimed(
            &event,
            Channel::Webhook(WebhookId::new()),
            endpoint(),
        )]);
        let mut sender = MockWebhookSender::new();
        sender.expect_send().returning(|_| DeliveryOutcome::Failed {
            response_status: Some(500),
            error: "the endpoint answered 500".to_owned(),
        });
        let report = block_on(service(q, sender, None).run_once(50)).unwrap();
        assert_eq!((report.sent(), report.failed()), (0, 1));
        let done = finished.lock().unwrap();
        assert_eq!(done[0].status, DeliveryStatus::Pending);
        assert_eq!(done[0].next_attempt_at, Some(NOW + RETRY_SCHEDULE[0]));
    }

    #[test]
    fn a_disabled_endpoint_or_e_mail_turned_off_gets_nothing() {
        let user = UserId::new();
        let event = checkin_event(user);
        let (q, finished) = queue(vec![
            claimed(
                &event,
                Channel::Webhook(WebhookId::new()),
                DeliveryTarget::Webhook(None),
            ),
            claimed(
                &event,
                Channel::Email,
                DeliveryTarget::Email {
                    to: "ada@example.org".to_owned(),
                    enabled: false,
                },
            ),
        ]);
        let mut sender = MockWebhookSender::new();
        sender.expect_send().never();
        let mut mailer = MockMailer::new();
        mailer.expect_send_checkin().never();
        block_on(service(q, sender, Some(mailer)).run_once(50)).unwrap();
        let done = finished.lock().unwrap();
        assert_eq!(done.len(), 2);
        assert!(
            done.iter()
                .all(|d| d.status == DeliveryStatus::Failed && d.next_attempt_at.is_none())
        );
    }

    #[test]
    fn a_check_in_mail_quotes_the_goals_verbatim_with_its_links() {
        let user = UserId::new();
        let event = checkin_event(user);
        let (q, finished) = queue(vec![claimed(
            &event,
            Channel::Email,
            DeliveryTarget::Email {
                to: "ada@example.org".to_owned(),
                enabled: true,
            },
        )]);
        let mut mailer = MockMailer::new();
        mailer
            .expect_send_checkin()
            .withf(move |m| {
                m.to == "ada@example.org"
                    && m.quoted_goals == ["Ride to work <b>daily</b>"]
                    && m.message == "Does this still hold?"
                    && m.observation.as_deref() == Some("Most of your time went to Vocation.")
                    && m.answer_url.contains("#checkin-")
                    && m.unsubscribe_url.ends_with(&user.to_string())
            })
            .times(1)
            .returning(|_| DeliveryOutcome::Delivered {
                response_status: None,
            });
        let report =
            block_on(service(q, MockWebhookSender::new(), Some(mailer)).run_once(50)).unwrap();
        assert_eq!(report.email, Tally { sent: 1, failed: 0 });
        assert_eq!(
            finished.lock().unwrap()[0].event_type,
            EventType::CheckinCreated
        );
    }

    #[test]
    fn without_smtp_an_e_mail_delivery_fails_and_waits_for_a_retry() {
        let event = checkin_event(UserId::new());
        let (q, finished) = queue(vec![claimed(
            &event,
            Channel::Email,
            DeliveryTarget::Email {
                to: "ada@example.org".to_owned(),
                enabled: true,
            },
        )]);
        block_on(service(q, MockWebhookSender::new(), None).run_once(50)).unwrap();
        let done = finished.lock().unwrap();
        assert_eq!(done[0].status, DeliveryStatus::Pending);
        assert!(done[0].error.as_deref().unwrap().contains("SMTP_URL"));
    }

    #[test]
    fn an_outcome_that_cannot_be_stored_is_an_error() {
        let event = OutboxEvent::ping(UserId::new(), NOW);
        let mut q = MockDeliveryQueue::new();
        let c = claimed(&event, Channel::Webhook(WebhookId::new()), endpoint());
        q.expect_claim()
            .returning(move |_, _, _| Ok(vec![c.clone()]));
        q.expect_finish()
            .returning(|_, _| Err(RepoError::Unavailable(anyhow::anyhow!("down"))));
        let mut sender = MockWebhookSender::new();
        sender
            .expect_send()
            .returning(|_| DeliveryOutcome::Delivered {
                response_status: Some(200),
            });
        assert!(block_on(service(q, sender, None).run_once(50)).is_err());
    }

    #[test]
    fn draining_runs_passes_until_nothing_is_due() {
        let mut q = MockDeliveryQueue::new();
        let mut passes = vec![
            vec![],
            vec![claimed(
                &OutboxEvent::ping(UserId::new(), NOW),
                Channel::Webhook(WebhookId::new()),
                endpoint(),
            )],
            vec![claimed(
                &OutboxEvent::ping(UserId::new(), NOW),
                Channel::Webhook(WebhookId::new()),
                endpoint(),
            )],
        ];
        q.expect_claim()
            .times(3)
            .returning(move |_, _, _| Ok(passes.pop().unwrap()));
        q.expect_finish().times(2).returning(|_, _| Ok(()));
        let mut sender = MockWebhookSender::new();
        sender
            .expect_send()
            .times(2)
            .returning(|_| DeliveryOutcome::Delivered {
                response_status: Some(200),
            });
        let report = block_on(service(q, sender, None).drain(50, || false)).unwrap();
        assert_eq!((report.sent(), report.failed()), (2, 0));
    }
}

#[cfg(test)]
mod stopping {
    use futures::executor::block_on;

    use super::*;
    use crate::clock::MockClock;
    use crate::ports::{MockDeliveryQueue, MockMailLinks, MockMailer, MockWebhookSender};

    #[test]
    fn a_stop_asked_for_before_a_pass_claims_nothing() {
        let mut q = MockDeliveryQueue::new();
        q.expect_claim().never();
        let service = DeliveryService::new(
            q,
            MockWebhookSender::new(),
            None::<MockMailer>,
            MockMailLinks::new(),
            MockClock::new(),
        );
        let report = block_on(service.drain(50, || true)).unwrap();
        assert_eq!(report, DeliveryReport::default());
    }
}
