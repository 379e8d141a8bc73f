//! `checkins`: the due check-ins are written once, a second run writes none, and two processes
//! started at once on one PostgreSQL write exactly one per due person between them.

use std::process::Child;

use domain::ids::UserId;
use serde_json::json;
use time::{Duration, OffsetDateTime};

use crate::harness::{
    Run, TestDb, batch, checkin_at, count, people_with_duplicates, person, run_ok,
};

async fn checkins_of(db: &adapters_diesel::Database, user: UserId) -> i64 {
    count(db, &format!("coaching_checkin WHERE user_id = '{user}'")).await
}

dual_test!(
    checkins_twice_in_a_row_creates_nothing_the_second_time,
    |test_db| {
        let db = test_db.db();
        let now = OffsetDateTime::now_utc();
        let mut never = Vec::new();
        for n in 0..5 {
            never.push(person(&db, n, true).await);
        }
        // Weekly cadence (type 9, no stored preferences): two days ago is recent, eight is not.
        let recent = person(&db, 5, true).await;
        checkin_at(&db, recent, now - Duration::days(2)).await;
        let old = person(&db, 6, true).await;
        checkin_at(&db, old, now - Duration::days(8)).await;
        let unlocked = person(&db, 7, false).await;

        let first = run_ok(test_db.url(), &["checkins"]).await;
        assert_eq!(first, json!({"considered": 7, "created": 6}));
        let second = run_ok(test_db.url(), &["checkins"]).await;
        assert_eq!(second, json!({"considered": 7, "created": 0}));

        for who in &never {
            assert_eq!(checkins_of(&db, *who).await, 1);
        }
        assert_eq!(checkins_of(&db, recent).await, 1, "not due: nothing added");
        assert_eq!(checkins_of(&db, old).await, 2, "due: one added");
        assert_eq!(checkins_of(&db, unlocked).await, 0, "not affirmed");
        assert_eq!(
            count(&db, "coaching_checkin WHERE origin = 'batch'").await,
            6
        );
    }
);

/// Waits for a child started with [`batch`].
async fn finish(child: Child) -> Run {
    tokio::task::spawn_blocking(move || Run::from(child.wait_with_output().unwrap()))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_at_once_on_postgres_write_one_check_in_per_due_person() {
    let Some(test_db) = TestDb::postgres() else {
        eprintln!("skipped: TEST_DATABASE_URL is not set");
        return;
    };
    let db = test_db.db();
    let now = OffsetDateTime::now_utc();
    // Three pages of the run (500 each); every tenth person checked in yesterday.
    let people = 1_200;
    let mut seeding = tokio::task::JoinSet::new();
    for worker in 0..8 {
        let db = db.clone();
        seeding.spawn(async move {
            for n in (worker..people).step_by(8) {
                let who = person(&db, n, true).await;
                if n % 10 == 0 {
                    checkin_at(&db, who, now - Duration::days(1)).await;
                }
            }
        });
    }
    seeding.join_all().await;
    let due = people - people / 10;

    let a = batch(test_db.url(), &["checkins"]).spawn().unwrap();
    let b = batch(test_db.url(), &["checkins"]).spawn().unwrap();
    let (a, b) = (finish(a).await, finish(b).await);
    let mut created = 0;
    for run in [&a, &b] {
        assert!(run.success, "{run:?}");
        assert_eq!(run.summary["ok"], true, "{run:?}");
        assert_eq!(run.summary["report"]["considered"], people, "{run:?}");
        created += run.summary["report"]["created"].as_u64().unwrap();
    }
    eprintln!(
        "created: {} + {}",
        a.summary["report"]["created"], b.summary["report"]["created"]
    );
    assert_eq!(created, due as u64, "together, one per due person");
    assert_eq!(
        count(&db, "coaching_checkin WHERE origin = 'batch'").await,
        due as i64
    );
    assert_eq!(people_with_duplicates(&db).await, 0);
}
