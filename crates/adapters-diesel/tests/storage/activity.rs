//! The activity log: recording, newest-first pages (per person or everyone's), the summary
//! counts and pruning.

use adapters_diesel::DieselActivityRepository;
use domain::account::{ActivityEntry, ActivityQuery, Source};
use domain::ids::{ActivityId, UserId};
use domain::pagination::PageLimit;
use domain::ports::ActivityRepository;
use time::macros::{date, datetime};
use time::{Duration, OffsetDateTime};

use crate::harness::{T0, TRICKY, count, user};

pub fn entry(
    user: Option<UserId>,
    at: OffsetDateTime,
    action: &str,
    source: Option<Source>,
) -> ActivityEntry {
    ActivityEntry {
        id: ActivityId::new(),
        user_id: user,
        at,
        action: action.into(),
        method: "POST".into(),
        path: format!("/discovery/profile/me?q={TRICKY}"),
        status: 201,
        source,
        duration_ms: 12,
        request_id: "req-1".into(),
        // Anonymous requests carry them too; entries without a source here carry none.
        ip: source.map(|_| "2001:db8::7".to_owned()),
        user_agent: source.map(|_| format!("Mozilla/5.0 (X11) {TRICKY}")),
    }
}

async fn list_all(repo: &DieselActivityRepository, mut query: ActivityQuery) -> Vec<ActivityEntry> {
    let mut all = Vec::new();
    loop {
        let page = repo.list(&query).await.unwrap();
        all.extend(page.items);
        match page.next_cursor {
            Some(c) => query.before = Some(c),
            None => return all,
        }
    }
}

dual_test!(activity_round_trips_and_pages_newest_first, |db| {
    let ada = user(&db, "ada@example.org").await;
    let bob = user(&db, "bob@example.org").await;
    let repo = DieselActivityRepository::new(db.clone());
    let mut entries: Vec<_> = (0..11)
        .map(|n| {
            entry(
                Some(ada.id),
                T0 + Duration::seconds(n / 2),
                "profile.edit",
                Some(Source::Web),
            )
        })
        .collect();
    entries.push(entry(Some(bob.id), T0, "profile.get", Some(Source::Api)));
    entries.push(entry(None, T0, "auth.login", None));
    repo.record(&entries).await.unwrap();
    repo.record(&[]).await.unwrap();

    let limit = PageLimit::new(4).unwrap();
    let ada_rows = list_all(
        &repo,
        ActivityQuery {
            user_id: Some(ada.id),
            limit,
            before: None,
        },
    )
    .await;
    let mut want: Vec<_> = entries
        .iter()
        .filter(|e| e.user_id == Some(ada.id))
        .cloned()
        .collect();
    want.sort_by_key(|e| std::cmp::Reverse((e.at, e.id)));
    assert_eq!(ada_rows, want);
    let everyone = list_all(
        &repo,
        ActivityQuery {
            user_id: None,
            limit,
            before: None,
        },
    )
    .await;
    assert_eq!(everyone.len(), 13);
});

dual_test!(large_batches_are_stored_row_for_row, |db| {
    // Batch lengths for the SQLite writer's statements of 64, 32, ... 1 rows: 150 (64 + 64 + 16
    // + 4 + 2), 128 (two of 64, re-bound), 127 (one of each size), then 1 and 3 (small ones,
    // re-bound). Every row of every batch must come back as it went in.
    let ada = user(&db, "ada@example.org").await;
    let repo = DieselActivityRepository::new(db.clone());
    let batch = |first: i64, len: i64| -> Vec<ActivityEntry> {
        (first..first + len)
            .map(|n| {
                let source = [Some(Source::Web), None, Some(Source::Mcp)][(n % 3) as usize];
                let mut e = entry(
                    source.map(|_| ada.id),
                    T0 + Duration::milliseconds(n),
                    &format!("action.{n}"),
                    source,
                );
                e.status = 200 + u16::try_from(n % 300).unwrap();
                e.duration_ms = n;
                e.request_id = format!("req-{n}");
                e
            })
            .collect()
    };
    let mut written = Vec::new();
    for len in [150, 128, 127, 1, 3] {
        let next = batch(i64::try_from(written.len()).unwrap(), len);
        assert_eq!(
            repo.record(&next).await.unwrap(),
            usize::try_from(len).unwrap()
        );
        written.extend(next);
    }
    let mut stored = list_all(
        &repo,
        ActivityQuery {
            user_id: None,
            limit: PageLimit::new(100).unwrap(),
            before: None,
        },
    )
    .await;
    stored.reverse();
    assert_eq!(stored, written);
});

dual_test!(the_summary_counts_by_action_source_and_utc_day, |db| {
    let ada = user(&db, "ada@example.org").await;
    let bob = user(&db, "bob@example.org").await;
    let repo = DieselActivityRepository::new(db.clone());
    let since = datetime!(2026-11-20 00:00 UTC);
    repo.record(&[
        entry(
            Some(ada.id),
            since - Duration::microseconds(1),
            "old",
            Some(Source::Web),
        ),
        entry(Some(ada.id), since, "profile.edit", Some(Source::Web)),
        entry(
            Some(ada.id),
            datetime!(2026-11-20 23:59:59.999_999 UTC),
            "profile.edit",
            Some(Source::Api),
        ),
        entry(
            Some(ada.id),
            datetime!(2026-11-21 00:00 UTC),
            "task.upsert",
            Some(Source::Mcp),
        ),
        entry(
            Some(bob.id),
            datetime!(2026-11-21 00:00 UTC),
            "bob.only",
            Some(Source::Web),
        ),
    ])
    .await
    .unwrap();
    let s = repo.summary(ada.id, since).await.unwrap();
    assert_eq!(
        s.by_action,
        [
            ("profile.edit".to_owned(), 2),
            ("task.upsert".to_owned(), 1)
        ]
        .into()
    );
    assert_eq!(
        s.by_source,
        [
            ("api".to_owned(), 1),
            ("mcp".to_owned(), 1),
            ("web".to_owned(), 1)
        ]
        .into()
    );
    assert_eq!(
        s.by_day,
        [(date!(2026 - 11 - 20), 2), (date!(2026 - 11 - 21), 1)]
    );
});

dual_test!(pruning_deletes_only_older_entries, |db| {
    let ada = user(&db, "ada@example.org").await;
    let repo = DieselActivityRepository::new(db.clone());
    let cutoff = T0 - Duration::days(90);
    repo.record(&[
        entry(Some(ada.id), cutoff - Duration::days(1), "a", None),
        entry(None, cutoff - Duration::microseconds(1), "b", None),
        entry(Some(ada.id), cutoff, "c", None),
        entry(Some(ada.id), T0, "d", None),
    ])
    .await
    .unwrap();
    assert_eq!(repo.prune(cutoff).await.unwrap(), 2);
    assert_eq!(repo.prune(cutoff).await.unwrap(), 0);
    assert_eq!(count(&db, "activity_log").await, 2);
});

// Migration 009 dropped the foreign key; an instance from before it still deletes people by the
// cascade, leaving their entries. Pruning deletes those too, whatever their age.
dual_test!(
    pruning_also_deletes_entries_of_people_who_no_longer_exist,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let repo = DieselActivityRepository::new(db.clone());
        repo.record(&[
            entry(Some(ada.id), T0, "a", Some(Source::Web)),
            entry(None, T0, "b", None),
        ])
        .await
        .unwrap();
        let gone = UserId::new();
        crate::harness::execute(
            &db,
            format!(
                "INSERT INTO activity_log (id, user_id, at, action, method, path, status, source, \
             duration_ms, request_id) VALUES ('{}', '{gone}', '2026-11-21 10:00:00', 'c', 'GET', \
             '/', 200, 'api', 1, 'r')",
                ActivityId::new()
            ),
        )
        .await;
        assert_eq!(count(&db, "activity_log").await, 3);
        assert_eq!(repo.prune(T0 - Duration::days(90)).await.unwrap(), 1);
        assert_eq!(count(&db, "activity_log").await, 2);
        assert_eq!(
            count(&db, &format!("activity_log WHERE user_id = '{gone}'")).await,
            0
        );
    }
);

dual_test!(request_details_round_trip_present_or_absent, |db| {
    let ada = user(&db, "ada@example.org").await;
    let repo = DieselActivityRepository::new(db.clone());
    let mut both = entry(Some(ada.id), T0, "profile.get", Some(Source::Web));
    both.ip = Some("203.0.113.9".into());
    both.user_agent = Some(format!("curl/8.5 {TRICKY}"));
    let mut ip_only = entry(
        Some(ada.id),
        T0 + Duration::seconds(1),
        "a",
        Some(Source::Api),
    );
    ip_only.user_agent = None;
    let mut agent_only = entry(None, T0 + Duration::seconds(2), "auth.login", None);
    agent_only.user_agent = Some("Mozilla/5.0".into());
    let neither = entry(None, T0 + Duration::seconds(3), "healthz", None);
    assert_eq!(
        (neither.ip.as_deref(), neither.user_agent.as_deref()),
        (None, None)
    );
    let all = [both, ip_only, agent_only, neither];
    repo.record(&all).await.unwrap();
    let mut stored = list_all(
        &repo,
        ActivityQuery {
            user_id: None,
            limit: PageLimit::new(10).unwrap(),
            before: None,
        },
    )
    .await;
    stored.reverse();
    assert_eq!(stored, all);
});

// A batch naming an account that is gone keeps everything else: the entries of nobody and of
// people who exist are stored, the missing person's skipped (and counted out).
dual_test!(
    a_batch_naming_a_missing_account_skips_only_its_entries,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let repo = DieselActivityRepository::new(db.clone());
        let gone = UserId::new();
        let batch = [
            entry(Some(ada.id), T0, "auth.login", Some(Source::Web)),
            entry(Some(gone), T0, "auth.login", Some(Source::Web)),
            entry(None, T0 + Duration::seconds(1), "GET /healthz", None),
            entry(
                Some(gone),
                T0 + Duration::seconds(2),
                "profile.get",
                Some(Source::Api),
            ),
        ];
        assert_eq!(repo.record(&batch).await.unwrap(), 2);
        assert_eq!(count(&db, "activity_log").await, 2);
        assert_eq!(
            count(&db, &format!("activity_log WHERE user_id = '{gone}'")).await,
            0
        );
        assert_eq!(
            repo.record(&batch[1..2]).await.unwrap(),
            0,
            "a batch of the gone only"
        );
        assert_eq!(repo.record(&[]).await.unwrap(), 0);
    }
);

// The activity log has no foreign key: deleting people while batches of their entries are being
// written must still leave none of their entries behind, whichever commits first.
dual_test!(
    deleting_people_while_their_activity_is_written_leaves_none_of_it,
    |db| {
        use adapters_diesel::DieselUserRepository;
        use domain::ports::UserRepository;

        let repo = DieselActivityRepository::new(db.clone());
        let users = DieselUserRepository::new(db.clone());
        let kept = user(&db, "kept@example.org").await;
        let mut tasks = Vec::new();
        for n in 0..24 {
            let person = user(&db, &format!("p{n}@example.org")).await;
            let batch: Vec<_> = (0..40)
                .map(|k| {
                    let who = if k % 2 == 0 { person.id } else { kept.id };
                    entry(
                        Some(who),
                        T0 + Duration::milliseconds(k),
                        "x",
                        Some(Source::Api),
                    )
                })
                .collect();
            let (repo, users) = (repo.clone(), users.clone());
            tasks.push(tokio::spawn(async move {
                let (stored, deleted) = tokio::join!(repo.record(&batch), users.delete(person.id));
                (stored.unwrap(), deleted.unwrap())
            }));
        }
        for task in tasks {
            let (stored, deleted) = task.await.unwrap();
            assert!(deleted);
            // The batch either went first (all 40, the person's deleted after) or second (20).
            assert!(stored == 40 || stored == 20, "stored {stored}");
        }
        assert_eq!(
            count(
                &db,
                "activity_log WHERE user_id IS NOT NULL AND user_id NOT IN (SELECT id FROM users)"
            )
            .await,
            0,
            "no entry of a deleted person"
        );
        assert_eq!(
            count(&db, &format!("activity_log WHERE user_id = '{}'", kept.id)).await,
            24 * 20
        );
    }
);
