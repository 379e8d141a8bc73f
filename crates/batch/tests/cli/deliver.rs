//! `deliver`: one pass over the due deliveries — a check-in's webhook reaches a real receiver,
//! the summary counts it at the top level as docs/api.md spells it, a second pass finds nothing, and
//! SIGTERM mid-attempt lets the attempt finish and be stored. Settings the service refuses
//! (an SMTP password in clear to another host) stop it before it sends anything.

use domain::ids::WebhookId;
use domain::notifications::{EventType, Webhook, WebhookSecret, WebhookUrl};
use domain::ports::{CheckInRepository, NotificationRepository};
use serde_json::json;
use time::OffsetDateTime;

use crate::harness::{Run, TestDb, batch, person};

async fn deliver(test_db: &TestDb, extra: &[(&str, &str)]) -> Run {
    let mut command = batch(test_db.url(), &["deliver"]);
    command
        .env("WEBHOOK_ALLOW_PRIVATE", "true")
        .env_remove("SMTP_URL")
        .env_remove("SMTP_FROM");
    for (name, value) in extra {
        command.env(name, value);
    }
    tokio::task::spawn_blocking(move || Run::from(command.output().unwrap()))
        .await
        .unwrap()
}

/// A person with a webhook to `url` for check-ins, and one check-in (so one delivery is due).
async fn seed_checkin_webhook(db: &adapters_diesel::Database, url: &str) {
    let ada = person(db, 1, true).await;
    let now = OffsetDateTime::now_utc();
    adapters_diesel::DieselNotificationRepository::new(db.clone())
        .create_webhook(&Webhook {
            id: WebhookId::new(),
            user_id: ada,
            url: WebhookUrl::parse(url, true).unwrap(),
            events: vec![EventType::CheckinCreated],
            secret: WebhookSecret::new("whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=".into()),
            created_at: now,
            disabled_at: None,
            failures_in_a_row: 0,
        })
        .await
        .unwrap();
    let checkin = domain::coaching::CheckIn {
        id: domain::ids::CheckInId::new(),
        user_id: ada,
        message: "Does this still hold?".into(),
        quoted_goals: vec!["Record an album".into()],
        observation: None,
        origin: domain::coaching::CheckInOrigin::Batch,
        created_at: now,
        response: None,
    };
    adapters_diesel::DieselCheckInRepository::new(db.clone())
        .insert(&checkin)
        .await
        .unwrap();
}

dual_test!(a_due_check_in_reaches_its_webhook_once, |test_db| {
    let db = test_db.db();
    let receiver = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(wiremock::ResponseTemplate::new(200))
        .mount(&receiver)
        .await;
    seed_checkin_webhook(&db, &receiver.uri()).await;

    let first = deliver(&test_db, &[]).await;
    assert!(first.success, "{first:?}");
    assert_eq!(first.summary["ok"], true);
    assert_eq!(first.summary["job"], "deliver");
    for (key, n) in [("sent", 1), ("failed", 0), ("pending", 0)] {
        assert_eq!(first.summary[key], n, "{key}: {first:?}");
        assert_eq!(first.summary["report"][key], n, "{key}: {first:?}");
    }
    let received = receiver.received_requests().await.unwrap();
    assert_eq!(received.len(), 1);
    let body: serde_json::Value = serde_json::from_slice(&received[0].body).unwrap();
    assert_eq!(body["type"], "checkin.created");
    assert_eq!(body["data"]["quoted_goals"], json!(["Record an album"]));

    let second = deliver(&test_db, &[]).await;
    assert_eq!(second.summary["sent"], 0, "{second:?}");
    assert_eq!(receiver.received_requests().await.unwrap().len(), 1);
});

dual_test!(
    e_mail_without_what_its_links_need_is_refused_by_name,
    |test_db| {
        let run = deliver(
            &test_db,
            &[
                ("SMTP_URL", "smtp://user:s3cret-pw@127.0.0.1:2525"),
                ("SMTP_FROM", "d@example.org"),
            ],
        )
        .await;
        assert!(!run.success);
        assert_eq!(run.summary["ok"], false);
        let error = run.summary["error"].as_str().unwrap();
        assert!(error.contains("JWT_SECRET"), "{error}");
        assert!(!run.stdout.contains("s3cret-pw") && !run.stderr.contains("s3cret-pw"));
    }
);

dual_test!(
    an_smtp_password_in_clear_to_another_host_is_refused_as_the_service_refuses_it,
    |test_db| {
        let db = test_db.db();
        let receiver = wiremock::MockServer::start().await;
        wiremock::Mock::given(wiremock::matchers::method("POST"))
            .respond_with(wiremock::ResponseTemplate::new(200))
            .mount(&receiver)
            .await;
        seed_checkin_webhook(&db, &receiver.uri()).await;

        // Everything else e-mail needs is there: SMTP_URL alone is what is refused.
        let run = deliver(
            &test_db,
            &[
                ("SMTP_URL", "smtp://user:s3cret-pw@mail.example.org:587"),
                ("SMTP_FROM", "d@example.org"),
                ("PUBLIC_BASE_URL", "https://discovery.example.org"),
                ("JWT_SECRET", "batch-test-jwt-secret-of-32-bytes!!"),
            ],
        )
        .await;
        assert!(!run.success, "{run:?}");
        assert_eq!(run.code, Some(1), "{run:?}");
        assert_eq!(run.summary["job"], "deliver");
        assert_eq!(run.summary["ok"], false);
        let error = run.summary["error"].as_str().unwrap();
        assert!(error.starts_with("SMTP_URL is not valid"), "{error}");
        assert!(!error.contains('\n'), "one line: {error}");
        assert!(
            !run.stdout.contains("s3cret-pw") && !run.stderr.contains("s3cret-pw"),
            "{run:?}"
        );
        // Nothing was sent: the webhook that was due is still pending, its receiver untouched.
        assert!(receiver.received_requests().await.unwrap().is_empty());
        assert_eq!(
            crate::harness::count(&db, "deliveries WHERE status = 'pending' AND attempt = 0").await,
            1
        );

        // A repeated `tls` (the mail library reads the first) is refused by the same reader.
        let run = deliver(
            &test_db,
            &[
                (
                    "SMTP_URL",
                    "smtp://user:s3cret-pw@mail.example.org:587?tls=opportunistic&tls=required",
                ),
                ("SMTP_FROM", "d@example.org"),
                ("PUBLIC_BASE_URL", "https://discovery.example.org"),
                ("JWT_SECRET", "batch-test-jwt-secret-of-32-bytes!!"),
            ],
        )
        .await;
        assert!(!run.success, "{run:?}");
        let error = run.summary["error"].as_str().unwrap();
        assert!(error.starts_with("SMTP_URL is not valid"), "{error}");
        assert!(error.contains("more than once"), "{error}");
        assert!(receiver.received_requests().await.unwrap().is_empty());

        // The same settings with TLS required go through (the webhook is delivered).
        let run = deliver(
            &test_db,
            &[
                (
                    "SMTP_URL",
                    "smtp://user:s3cret-pw@mail.example.org:587?tls=required",
                ),
                ("SMTP_FROM", "d@example.org"),
                ("PUBLIC_BASE_URL", "https://discovery.example.org"),
                ("JWT_SECRET", "batch-test-jwt-secret-of-32-bytes!!"),
            ],
        )
        .await;
        assert!(run.success, "{run:?}");
        assert_eq!(run.summary["sent"], 1, "{run:?}");
    }
);

dual_test!(
    sigterm_lets_the_attempt_in_flight_finish_and_be_stored,
    |test_db| {
        let db = test_db.db();
        let receiver = wiremock::MockServer::start().await;
        wiremock::Mock::given(wiremock::matchers::method("POST"))
            .respond_with(
                wiremock::ResponseTemplate::new(200).set_delay(std::time::Duration::from_secs(2)),
            )
            .mount(&receiver)
            .await;
        seed_checkin_webhook(&db, &receiver.uri()).await;

        let mut command = batch(test_db.url(), &["deliver"]);
        command.env("WEBHOOK_ALLOW_PRIVATE", "true");
        let child = command.spawn().unwrap();
        // Mid-attempt: the receiver has the request and answers in 2 s.
        for _ in 0..100 {
            if !receiver.received_requests().await.unwrap().is_empty() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        let killed = std::process::Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let run = tokio::task::spawn_blocking(move || Run::from(child.wait_with_output().unwrap()))
            .await
            .unwrap();

        assert!(run.success, "{run:?}");
        assert_eq!(run.summary["sent"], 1, "{run:?}");
        assert_eq!(
            crate::harness::count(
                &db,
                "deliveries WHERE status = 'delivered' AND lease_until IS NULL"
            )
            .await,
            1,
            "stored, its lease ended: nothing left to wait out"
        );
    }
);
