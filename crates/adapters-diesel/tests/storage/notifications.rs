//! Notifications: events are written with the change that caused them (and not at all when it
//! fails), one delivery per subscribed channel; the e-mail setting; at most ten webhooks; pings
//! and the delivery log, owner-scoped.

use adapters_diesel::{
    Database, DieselCheckInRepository, DieselNotificationRepository, DieselProfileRepository,
};
use domain::RepoError;
use domain::ids::{UserId, WebhookId};
use domain::notifications::{
    Channel, DeliveryStatus, EventType, MAX_WEBHOOKS_PER_USER, NotificationSettings, OutboxEvent,
    Webhook, WebhookSecret, WebhookUrl,
};
use domain::pagination::PageLimit;
use domain::ports::{CheckInRepository, GuardedCheckIn, NotificationRepository, ProfileRepository};
use domain::profile::EditableField;
use secrecy::ExposeSecret;
use time::{Duration, OffsetDateTime};

use crate::checkins::checkin;
use crate::harness::{T0, count, user};
use crate::profiles::{edit, first_write};

fn webhook(user: UserId, events: &[EventType], at: OffsetDateTime) -> Webhook {
    Webhook {
        id: WebhookId::new(),
        user_id: user,
        url: WebhookUrl::parse("https://hooks.example.com/discovery?x=1", false).unwrap(),
        events: events.to_vec(),
        secret: WebhookSecret::new("whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTMyYg==".into()),
        created_at: at,
        disabled_at: None,
        failures_in_a_row: 0,
    }
}

async fn deliveries_of(db: &Database, event_type: &str, channel: &str) -> i64 {
    count(
        db,
        &format!(
            "deliveries d JOIN outbox_events e ON e.id = d.event_id \
             WHERE e.event_type = '{event_type}' AND d.channel = '{channel}'"
        ),
    )
    .await
}

dual_test!(
    a_profile_change_writes_its_events_and_a_delivery_per_subscribed_webhook,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let notes = DieselNotificationRepository::new(db.clone());
        let profiles = DieselProfileRepository::new(db.clone());
        let all = webhook(ada.id, &EventType::ALL, T0);
        let checkins_only = webhook(ada.id, &[EventType::CheckinCreated], T0);
        let mut disabled = webhook(ada.id, &EventType::ALL, T0);
        disabled.disabled_at = Some(T0);
        for w in [&all, &checkins_only, &disabled] {
            assert!(notes.create_webhook(w).await.unwrap());
        }

        let w = first_write(ada.id, T0);
        assert_eq!(w.events.len(), 1, "extraction records a revision");
        profiles.write(w).await.unwrap();

        assert_eq!(count(&db, "outbox_events").await, 1);
        assert_eq!(deliveries_of(&db, "profile.revised", "webhook").await, 1);
        let log = notes
            .deliveries(ada.id, all.id, PageLimit::new(10).unwrap(), None)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(log.items.len(), 1);
        let d = &log.items[0];
        assert_eq!(d.event_type, EventType::ProfileRevised);
        assert_eq!(d.channel, Channel::Webhook(all.id));
        assert_eq!((d.status, d.attempt), (DeliveryStatus::Pending, 0));
        assert_eq!(
            d.next_attempt_at,
            Some(domain::clock::truncate_to_micros(T0))
        );
        for quiet in [&checkins_only, &disabled] {
            let log = notes
                .deliveries(ada.id, quiet.id, PageLimit::new(10).unwrap(), None)
                .await
                .unwrap()
                .unwrap();
            assert!(log.items.is_empty(), "{:?}", quiet.events);
        }
    }
);

/// Ada, with a webhook for every event and her first profile written.
async fn written_with_a_webhook(db: &Database) -> (domain::account::User, DieselProfileRepository) {
    let ada = user(db, "ada@example.org").await;
    let notes = DieselNotificationRepository::new(db.clone());
    let profiles = DieselProfileRepository::new(db.clone());
    notes
        .create_webhook(&webhook(ada.id, &EventType::ALL, T0))
        .await
        .unwrap();
    profiles.write(first_write(ada.id, T0)).await.unwrap();
    (ada, profiles)
}

dual_test!(a_failed_change_writes_no_event, |db| {
    let (ada, profiles) = written_with_a_webhook(&db).await;
    let stored = profiles.get(ada.id).await.unwrap().unwrap();
    let before = (
        count(&db, "outbox_events").await,
        count(&db, "deliveries").await,
    );

    // Computed from a version that is no longer current: a Conflict, and nothing written.
    let mut stale = edit(
        &stored,
        EditableField::LoveSummary,
        Some("Bread."),
        T0 + Duration::hours(1),
    );
    assert!(!stale.events.is_empty());
    stale.expected_version = Some(stored.version - 1);
    assert!(matches!(
        profiles.write(stale).await,
        Err(RepoError::Conflict)
    ));

    assert_eq!(
        (
            count(&db, "outbox_events").await,
            count(&db, "deliveries").await
        ),
        before
    );
});

dual_test!(
    check_ins_write_their_events_with_email_only_for_people_who_turned_it_on,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let bob = user(&db, "bob@example.org").await;
        let notes = DieselNotificationRepository::new(db.clone());
        let checkins = DieselCheckInRepository::new(db.clone());
        notes
            .put_settings(
                NotificationSettings {
                    user_id: ada.id,
                    email_checkins: true,
                },
                T0,
            )
            .await
            .unwrap();
        assert!(notes.settings(ada.id).await.unwrap().email_checkins);
        assert!(!notes.settings(bob.id).await.unwrap().email_checkins);
        notes
            .create_webhook(&webhook(bob.id, &[EventType::CheckinCreated], T0))
            .await
            .unwrap();

        checkins.insert(&checkin(ada.id, T0)).await.unwrap();
        // A batch: bob gets one; ada already has a check-in after `since`, so hers is skipped,
        // and a skipped check-in has no event.
        let at = T0 + Duration::days(7);
        let batch = [ada.id, bob.id].map(|u| GuardedCheckIn {
            checkin: checkin(u, at),
            since: T0 - Duration::days(1),
        });
        assert_eq!(
            checkins.insert_unless_recent_batch(&batch).await.unwrap(),
            1
        );

        assert_eq!(count(&db, "outbox_events").await, 2);
        assert_eq!(deliveries_of(&db, "checkin.created", "email").await, 1);
        assert_eq!(deliveries_of(&db, "checkin.created", "webhook").await, 1);
        let payload_of_ada = count(
            &db,
            &format!(
                "outbox_events WHERE user_id = '{}' AND payload LIKE '%Open a music school%'",
                ada.id
            ),
        )
        .await;
        assert_eq!(payload_of_ada, 1, "the payload quotes the goals");

        // Turned off again: the next check-in is not e-mailed.
        notes
            .put_settings(
                NotificationSettings {
                    user_id: ada.id,
                    email_checkins: false,
                },
                at,
            )
            .await
            .unwrap();
        checkins
            .insert(&checkin(ada.id, at + Duration::days(7)))
            .await
            .unwrap();
        assert_eq!(deliveries_of(&db, "checkin.created", "email").await, 1);
    }
);

dual_test!(a_person_has_at_most_ten_webhooks, |db| {
    let ada = user(&db, "ada@example.org").await;
    let bob = user(&db, "bob@example.org").await;
    let notes = DieselNotificationRepository::new(db.clone());
    for n in 0..MAX_WEBHOOKS_PER_USER {
        let at = T0 + Duration::seconds(i64::try_from(n).unwrap());
        assert!(
            notes
                .create_webhook(&webhook(ada.id, &EventType::ALL, at))
                .await
                .unwrap()
        );
    }
    assert!(
        !notes
            .create_webhook(&webhook(ada.id, &EventType::ALL, T0))
            .await
            .unwrap()
    );
    assert!(
        notes
            .create_webhook(&webhook(bob.id, &EventType::ALL, T0))
            .await
            .unwrap(),
        "the limit is per person"
    );
    let listed = notes.webhooks(ada.id).await.unwrap();
    assert_eq!(listed.len(), MAX_WEBHOOKS_PER_USER);
    assert!(
        listed
            .windows(2)
            .all(|w| w[0].created_at >= w[1].created_at),
        "newest first"
    );
    assert_eq!(
        listed[0].secret.expose_secret(),
        webhook(ada.id, &[], T0).secret.expose_secret()
    );
});

dual_test!(
    pings_reach_one_webhook_and_only_its_owner_sees_or_deletes_it,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let eve = user(&db, "eve@example.org").await;
        let notes = DieselNotificationRepository::new(db.clone());
        let hook = webhook(ada.id, &[EventType::CheckinCreated], T0);
        let other = webhook(ada.id, &EventType::ALL, T0);
        notes.create_webhook(&hook).await.unwrap();
        notes.create_webhook(&other).await.unwrap();
        let limit = PageLimit::new(10).unwrap();

        let ping = OutboxEvent::ping(ada.id, T0);
        assert!(!notes.ping(eve.id, hook.id, &ping).await.unwrap());
        assert_eq!(count(&db, "outbox_events").await, 0);
        assert!(notes.ping(ada.id, hook.id, &ping).await.unwrap());

        let log = notes
            .deliveries(ada.id, hook.id, limit, None)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(log.items.len(), 1);
        assert_eq!(log.items[0].event_type, EventType::Ping);
        assert_eq!(log.items[0].event_id, ping.id);
        let others = notes
            .deliveries(ada.id, other.id, limit, None)
            .await
            .unwrap()
            .unwrap();
        assert!(others.items.is_empty(), "a ping goes to one endpoint");
        assert_eq!(
            notes
                .deliveries(eve.id, hook.id, limit, None)
                .await
                .unwrap(),
            None
        );

        assert!(!notes.delete_webhook(eve.id, hook.id).await.unwrap());
        assert!(notes.delete_webhook(ada.id, hook.id).await.unwrap());
        assert!(!notes.delete_webhook(ada.id, hook.id).await.unwrap());
        assert_eq!(count(&db, "deliveries").await, 0, "its log went with it");
        assert_eq!(notes.webhooks(ada.id).await.unwrap(), [other]);
    }
);

dual_test!(
    a_burst_of_revisions_past_ten_a_minute_leaves_one_waiting_event_with_the_latest_state,
    |db| {
        let (ada, profiles) = written_with_a_webhook(&db).await;
        // 99 edits within a minute: ten events queue as they come (the first write's among
        // them); past that, each new one replaces the latest, so the tenth carries the last edit.
        for n in 1..100 {
            let stored = profiles.get(ada.id).await.unwrap().unwrap();
            let text = format!("Bread, take {n}.");
            let at = T0 + Duration::milliseconds(n * 100);
            let w = edit(&stored, EditableField::LoveSummary, Some(&text), at);
            profiles.write(w).await.unwrap();
        }
        let revised = "outbox_events WHERE event_type = 'profile.revised'";
        assert_eq!(count(&db, revised).await, 10);
        assert_eq!(deliveries_of(&db, "profile.revised", "webhook").await, 10);
        let latest = count(
            &db,
            "outbox_events WHERE event_type = 'profile.revised' \
             AND payload LIKE '%Bread, take 99.%'",
        )
        .await;
        assert_eq!(latest, 1, "the waiting event holds the latest state");
        // A minute later the budget is back: an edit queues its own event again.
        let stored = profiles.get(ada.id).await.unwrap().unwrap();
        let later = T0 + Duration::minutes(3);
        let w = edit(&stored, EditableField::LoveSummary, Some("Rye."), later);
        profiles.write(w).await.unwrap();
        assert_eq!(count(&db, revised).await, 11);
    }
);
