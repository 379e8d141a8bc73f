//! `prune-activity`: removes exactly the entries older than the window, from `--days` or from
//! `ACTIVITY_RETENTION_DAYS`, and refuses a window of zero days.

use adapters_diesel::{Database, DieselActivityRepository};
use domain::account::ActivityEntry;
use domain::ids::ActivityId;
use domain::ports::ActivityRepository;
use serde_json::json;
use time::{Duration, OffsetDateTime};

use crate::harness::{Run, batch, count, run, run_ok};

fn entry(at: OffsetDateTime) -> ActivityEntry {
    ActivityEntry {
        id: ActivityId::new(),
        user_id: None,
        at,
        action: "health".into(),
        method: "GET".into(),
        path: "/api/me".into(),
        status: 200,
        source: None,
        duration_ms: 3,
        request_id: "req".into(),
        ip: None,
        user_agent: None,
    }
}

/// Records one entry per instant; returns their ids in the same order.
async fn seed(db: &Database, at: &[OffsetDateTime]) -> Vec<ActivityId> {
    let entries: Vec<ActivityEntry> = at.iter().copied().map(entry).collect();
    DieselActivityRepository::new(db.clone())
        .record(&entries)
        .await
        .unwrap();
    entries.iter().map(|e| e.id).collect()
}

async fn present(db: &Database, id: ActivityId) -> bool {
    count(db, &format!("activity_log WHERE id = '{id}'")).await == 1
}

dual_test!(
    prune_activity_removes_exactly_the_entries_older_than_the_window,
    |test_db| {
        let db = test_db.db();
        let now = OffsetDateTime::now_utc();
        let window = Duration::days(30);
        // The binary reads the clock a moment after us, so "just inside" leaves it a minute.
        let outside = seed(
            &db,
            &[
                now - window - Duration::seconds(1),
                now - window - Duration::days(40),
            ],
        )
        .await;
        let inside = seed(
            &db,
            &[
                now - window + Duration::minutes(1),
                now - Duration::days(1),
                now,
            ],
        )
        .await;

        let report = run_ok(test_db.url(), &["prune-activity", "--days", "30"]).await;
        assert_eq!(report, json!({"days": 30, "deleted": 2}));
        for id in outside {
            assert!(!present(&db, id).await, "older than the window: deleted");
        }
        for id in &inside {
            assert!(present(&db, *id).await, "inside the window: kept");
        }
        let again = run_ok(test_db.url(), &["prune-activity", "--days", "30"]).await;
        assert_eq!(again, json!({"days": 30, "deleted": 0}));

        // Without --days the retention setting applies.
        let mut command = batch(test_db.url(), &["prune-activity"]);
        command.env("ACTIVITY_RETENTION_DAYS", "2");
        let by_setting = tokio::task::spawn_blocking(move || Run::from(command.output().unwrap()))
            .await
            .unwrap();
        assert!(by_setting.success, "{by_setting:?}");
        assert_eq!(
            by_setting.summary["report"],
            json!({"days": 2, "deleted": 1})
        );
        assert_eq!(count(&db, "activity_log").await, 2);

        let zero = run(test_db.url(), &["prune-activity", "--days", "0"]).await;
        assert_eq!(zero.code, Some(1), "{zero:?}");
        assert_eq!(zero.summary["ok"], false);
        assert_eq!(count(&db, "activity_log").await, 2, "nothing deleted");
    }
);
