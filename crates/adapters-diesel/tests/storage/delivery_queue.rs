//! The delivery queue: claims lease due deliveries to one worker; a lease that runs out gives
//! them to another with the same event; attempts are stored with the endpoint's run of
//! failures, which disables it at twenty; workers on two pools never claim the same delivery.

use std::collections::HashSet;
use std::time::Duration as StdDuration;

use adapters_diesel::{
    Database, DieselCheckInRepository, DieselDeliveryQueue, DieselNotificationRepository,
};
use domain::ids::{UserId, WebhookId};
use domain::notifications::{
    DeliveryOutcome, DeliveryStatus, EventType, NotificationSettings, OutboxEvent, Webhook,
    WebhookSecret, WebhookUrl,
};
use domain::ports::{CheckInRepository, DeliveryQueue, DeliveryTarget, NotificationRepository};
use time::{Duration, OffsetDateTime};

use crate::checkins::checkin;
use crate::harness::{T0, count, user};

const LEASE: StdDuration = StdDuration::from_secs(120);

async fn endpoint(db: &Database, user: UserId) -> Webhook {
    let hook = Webhook {
        id: WebhookId::new(),
        user_id: user,
        url: WebhookUrl::parse("https://hooks.example.com/x", false).unwrap(),
        events: vec![EventType::CheckinCreated],
        secret: WebhookSecret::new("whsec_c2VjcmV0LXNlY3JldA==".into()),
        created_at: T0,
        disabled_at: None,
        failures_in_a_row: 0,
    };
    DieselNotificationRepository::new(db.clone())
        .create_webhook(&hook)
        .await
        .unwrap();
    hook
}

async fn ping(db: &Database, hook: &Webhook, at: OffsetDateTime) -> OutboxEvent {
    let event = OutboxEvent::ping(hook.user_id, at);
    assert!(
        DieselNotificationRepository::new(db.clone())
            .ping(hook.user_id, hook.id, &event)
            .await
            .unwrap()
    );
    event
}

fn failed() -> DeliveryOutcome {
    DeliveryOutcome::Failed {
        response_status: Some(500),
        error: "the endpoint answered 500".into(),
    }
}

dual_test!(
    a_claim_leases_due_deliveries_until_stored_or_the_lease_ends,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let hook = endpoint(&db, ada.id).await;
        let event = ping(&db, &hook, T0).await;
        let queue = DieselDeliveryQueue::new(db.clone());

        assert!(
            queue
                .claim(T0 - Duration::seconds(1), 10, LEASE)
                .await
                .unwrap()
                .is_empty(),
            "not due yet"
        );
        let claimed = queue.claim(T0, 10, LEASE).await.unwrap();
        assert_eq!(claimed.len(), 1);
        let c = &claimed[0];
        assert_eq!(c.delivery.event_id, event.id);
        assert_eq!(c.payload, event.payload);
        assert_eq!(c.user_id, ada.id);
        assert!(
            matches!(&c.target, DeliveryTarget::Webhook(Some((url, secret)))
        if url == &hook.url && secret == &hook.secret)
        );
        assert!(
            queue.claim(T0, 10, LEASE).await.unwrap().is_empty(),
            "leased"
        );

        // The worker died: after the lease the same delivery is claimed again, same event.
        let later = T0 + Duration::seconds(121);
        let again = queue.claim(later, 10, LEASE).await.unwrap();
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].delivery.id, c.delivery.id);
        assert_eq!(again[0].delivery.event_id, event.id);

        let stats = queue.stats().await.unwrap();
        assert_eq!(stats.pending, 1);
        assert_eq!(
            stats.oldest_pending_at,
            Some(domain::clock::truncate_to_micros(T0))
        );

        // Stored as failed once: due again after the schedule's first wait, unleased.
        let done = again[0].delivery.clone().after_attempt(failed(), later);
        queue
            .finish(std::slice::from_ref(&done), later)
            .await
            .unwrap();
        let retry = later + Duration::seconds(30);
        assert!(
            queue
                .claim(retry - Duration::seconds(1), 10, LEASE)
                .await
                .unwrap()
                .is_empty()
        );
        let third = queue.claim(retry, 10, LEASE).await.unwrap();
        assert_eq!(third[0].delivery.attempt, 1);
        assert_eq!(third[0].delivery.response_status, Some(500));
        let delivered = third[0].delivery.clone().after_attempt(
            DeliveryOutcome::Delivered {
                response_status: Some(204),
            },
            retry,
        );
        queue
            .finish(std::slice::from_ref(&delivered), retry)
            .await
            .unwrap();
        assert_eq!(queue.stats().await.unwrap().pending, 0);
        assert!(
            queue
                .claim(retry + Duration::days(2), 10, LEASE)
                .await
                .unwrap()
                .is_empty()
        );
        // A late finish of the first claim (its lease had run out) changes nothing.
        queue
            .finish(std::slice::from_ref(&done), retry)
            .await
            .unwrap();
        assert_eq!(
            count(&db, "deliveries WHERE status = 'delivered' AND attempt = 2").await,
            1
        );
    }
);

dual_test!(
    twenty_deliveries_failed_in_a_row_disable_the_endpoint,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let hook = endpoint(&db, ada.id).await;
        let queue = DieselDeliveryQueue::new(db.clone());
        let notes = DieselNotificationRepository::new(db.clone());
        let give_up = |d: domain::notifications::Delivery| d.cancelled("gave up", T0);

        // A success in between starts the count again.
        for n in 0..25 {
            ping(&db, &hook, T0).await;
            let claimed = queue.claim(T0, 10, LEASE).await.unwrap();
            assert_eq!(claimed.len(), 1, "round {n}");
            let done = if n == 4 {
                claimed[0].delivery.clone().after_attempt(
                    DeliveryOutcome::Delivered {
                        response_status: Some(200),
                    },
                    T0,
                )
            } else {
                give_up(claimed[0].delivery.clone())
            };
            queue.finish(std::slice::from_ref(&done), T0).await.unwrap();
            let stored = notes.webhooks(ada.id).await.unwrap().remove(0);
            // Failures after the success: rounds 5..=n.
            let expected_disabled = n >= 24;
            assert_eq!(
                stored.disabled_at.is_some(),
                expected_disabled,
                "round {n}: {stored:?}"
            );
        }
        // Disabled: a new delivery is claimed with no endpoint to send to.
        ping(&db, &hook, T0).await;
        let claimed = queue.claim(T0, 10, LEASE).await.unwrap();
        assert_eq!(claimed[0].target, DeliveryTarget::Webhook(None));
    }
);

dual_test!(
    an_e_mail_delivery_names_the_address_and_whether_it_is_still_wanted,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let notes = DieselNotificationRepository::new(db.clone());
        let on = |email_checkins| NotificationSettings {
            user_id: ada.id,
            email_checkins,
        };
        notes.put_settings(on(true), T0).await.unwrap();
        DieselCheckInRepository::new(db.clone())
            .insert(&checkin(ada.id, T0))
            .await
            .unwrap();
        notes.put_settings(on(false), T0).await.unwrap();
        let claimed = DieselDeliveryQueue::new(db.clone())
            .claim(T0, 10, LEASE)
            .await
            .unwrap();
        assert_eq!(claimed.len(), 1);
        assert_eq!(
            claimed[0].target,
            DeliveryTarget::Email {
                to: "ada@example.org".into(),
                enabled: false
            }
        );
        assert!(claimed[0].payload.contains("Open a music school"));
        assert_eq!(claimed[0].delivery.status, DeliveryStatus::Pending);
    }
);

dual_test!(
    workers_on_two_pools_never_claim_the_same_delivery,
    |db, url| {
        let ada = user(&db, "ada@example.org").await;
        let hook = endpoint(&db, ada.id).await;
        for _ in 0..300 {
            ping(&db, &hook, T0).await;
        }
        let other =
            tokio::task::spawn_blocking(move || Database::connect(&crate::harness::config(&url)))
                .await
                .unwrap()
                .unwrap();
        let queues = [
            DieselDeliveryQueue::new(db.clone()),
            DieselDeliveryQueue::new(other),
        ];
        let mut tasks = tokio::task::JoinSet::new();
        for n in 0..6 {
            let queue = queues[n % 2].clone();
            tasks.spawn(async move {
                let mut mine = Vec::new();
                loop {
                    let claimed = queue.claim(T0, 25, LEASE).await.unwrap();
                    if claimed.is_empty() {
                        return mine;
                    }
                    // A pass's outcomes are stored together, as the worker stores them.
                    let done: Vec<_> = claimed
                        .iter()
                        .map(|c| {
                            c.delivery.clone().after_attempt(
                                DeliveryOutcome::Delivered {
                                    response_status: Some(200),
                                },
                                T0,
                            )
                        })
                        .collect();
                    queue.finish(&done, T0).await.unwrap();
                    mine.extend(claimed.iter().map(|c| c.delivery.id));
                }
            });
        }
        let all: Vec<_> = tasks.join_all().await.into_iter().flatten().collect();
        let distinct: HashSet<_> = all.iter().collect();
        assert_eq!(all.len(), 300, "every delivery claimed");
        assert_eq!(distinct.len(), 300, "none twice");
        assert_eq!(
            count(&db, "deliveries WHERE status = 'delivered' AND attempt = 1").await,
            300
        );
    }
);

dual_test!(
    a_claim_takes_another_persons_ping_before_one_persons_backlog,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let bob = user(&db, "bob@example.org").await;
        let ada_hook = endpoint(&db, ada.id).await;
        let bob_hook = endpoint(&db, bob.id).await;
        for n in 0..120 {
            ping(&db, &ada_hook, T0 + Duration::milliseconds(n)).await;
        }
        let bobs = ping(&db, &bob_hook, T0 + Duration::seconds(1)).await;
        let queue = DieselDeliveryQueue::new(db.clone());
        let now = T0 + Duration::seconds(2);
        // Oldest first, Bob's ping would wait for three passes of Ada's; round-robin, it is in
        // the first, beside Ada's oldest.
        let first = queue.claim(now, 50, LEASE).await.unwrap();
        assert_eq!(first.len(), 50);
        assert!(first.iter().any(|c| c.delivery.event_id == bobs.id));
        assert_eq!(first.iter().filter(|c| c.user_id == ada.id).count(), 49);
        // Ada's backlog then goes on, all of it, in the next passes.
        let rest = queue.claim(now, 50, LEASE).await.unwrap().len()
            + queue.claim(now, 50, LEASE).await.unwrap().len();
        assert_eq!(rest, 71);
    }
);
