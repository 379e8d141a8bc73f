//! Task mappings: idempotent upserts, all-or-nothing batches, filtered keyset pages and the
//! daily rollup's window boundaries and UTC dates.

use std::collections::BTreeMap;

use adapters_diesel::{Backend, DieselTaskMappingRepository};
use domain::RepoError;
use domain::account::TimeZone;
use domain::foundation::Foundation;
use domain::ids::UserId;
use domain::integration::{
    BatchOutcome, ExternalTaskId, FoundationFilter, Minutes, Tags, TaskLabel, TaskMapping,
    TaskMappingInput, TaskMappingQuery, UpsertOutcome, Weeks, Window,
};
use domain::pagination::PageLimit;
use domain::ports::TaskMappingRepository;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

use crate::harness::{T0, TRICKY, count, execute, user};

pub fn input(
    external: &str,
    foundation: Foundation,
    minutes: i64,
    at: OffsetDateTime,
) -> TaskMappingInput {
    TaskMappingInput::new(
        ExternalTaskId::new(external).unwrap(),
        Some(TaskLabel::new(TRICKY).unwrap()),
        Some(foundation),
        Tags::default(),
        Minutes::new(minutes).unwrap(),
        at,
    )
    .unwrap()
}

async fn list_all(
    repo: &DieselTaskMappingRepository,
    user: UserId,
    mut query: TaskMappingQuery,
) -> Vec<TaskMapping> {
    let mut all = Vec::new();
    loop {
        let page = repo.list(user, &query).await.unwrap();
        assert!(page.items.len() <= usize::from(query.limit.get()));
        all.extend(page.items);
        match page.next_cursor {
            Some(c) => query.before = Some(c),
            None => return all,
        }
    }
}

dual_test!(
    an_upsert_creates_then_updates_the_same_row_keeping_created_at,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let repo = DieselTaskMappingRepository::new(db.clone());
        let (created, outcome) = repo
            .upsert(ada.id, &input("toggl-1", Foundation::Love, 30, T0), T0)
            .await
            .unwrap();
        assert_eq!(outcome, UpsertOutcome::Created);
        assert_eq!(created.user_id, ada.id);
        assert_eq!(created.task_label.as_deref(), Some(TRICKY));
        assert_eq!(
            (
                created.minutes,
                created.occurred_at,
                created.created_at,
                created.updated_at
            ),
            (30, T0, T0, T0)
        );

        let later = T0 + Duration::hours(1);
        let mut changed = input("toggl-1", Foundation::Vocation, 45, later);
        changed.task_label = None;
        let (updated, outcome) = repo.upsert(ada.id, &changed, later).await.unwrap();
        assert_eq!(outcome, UpsertOutcome::Updated);
        assert_eq!(updated.id, created.id);
        assert_eq!(updated.created_at, T0, "created_at is kept");
        assert_eq!(updated.updated_at, later);
        assert_eq!(
            (
                updated.foundation,
                updated.minutes,
                updated.task_label.clone()
            ),
            (Some(Foundation::Vocation), 45, None)
        );
        let page = repo
            .list(ada.id, &TaskMappingQuery::default())
            .await
            .unwrap();
        assert_eq!(page.items, [updated]);
    }
);

dual_test!(
    a_batch_counts_created_and_updated_including_repeats_within_it,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let repo = DieselTaskMappingRepository::new(db.clone());
        repo.upsert(ada.id, &input("a", Foundation::Love, 10, T0), T0)
            .await
            .unwrap();
        let batch = [
            input("a", Foundation::Love, 11, T0),
            input("b", Foundation::Strength, 20, T0),
            input("c", Foundation::Mission, 30, T0),
            input("b", Foundation::Strength, 21, T0),
        ];
        assert_eq!(
            repo.upsert_batch(ada.id, batch.to_vec(), T0).await.unwrap(),
            BatchOutcome {
                created: 2,
                updated: 2
            }
        );
        let rows = repo
            .list(ada.id, &TaskMappingQuery::default())
            .await
            .unwrap()
            .items;
        let minutes: BTreeMap<_, _> = rows
            .iter()
            .map(|m| (m.external_task_id.as_str(), m.minutes))
            .collect();
        assert_eq!(minutes, BTreeMap::from([("a", 11), ("b", 21), ("c", 30)]));
        assert_eq!(
            repo.upsert_batch(ada.id, Vec::new(), T0).await.unwrap(),
            BatchOutcome::default()
        );
    }
);

dual_test!(
    a_batch_replaces_known_entries_keeping_their_id_and_created_at,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let repo = DieselTaskMappingRepository::new(db.clone());
        let (known, _) = repo
            .upsert(ada.id, &input("known", Foundation::Love, 10, T0), T0)
            .await
            .unwrap();
        let later = T0 + Duration::hours(2);
        let mut changed = input("known", Foundation::Vocation, 40, later);
        changed.task_label = None;
        let batch = vec![
            changed,
            input("fresh", Foundation::Mission, 5, later),
            input("fresh", Foundation::Strength, 6, later),
        ];
        // Known and new mixed: the insert leaves "known" alone, the update then replaces it.
        assert_eq!(
            repo.upsert_batch(ada.id, batch, later).await.unwrap(),
            BatchOutcome {
                created: 1,
                updated: 2
            }
        );
        let rows: BTreeMap<String, TaskMapping> =
            list_all(&repo, ada.id, TaskMappingQuery::default())
                .await
                .into_iter()
                .map(|m| (m.external_task_id.clone(), m))
                .collect();
        let replaced = &rows["known"];
        assert_eq!((replaced.id, replaced.created_at), (known.id, T0));
        assert_eq!(
            (
                replaced.foundation,
                replaced.minutes,
                replaced.task_label.as_deref(),
                replaced.occurred_at,
                replaced.updated_at
            ),
            (Some(Foundation::Vocation), 40, None, later, later)
        );
        let fresh = &rows["fresh"];
        assert_eq!(
            (
                fresh.foundation,
                fresh.minutes,
                fresh.created_at,
                fresh.updated_at
            ),
            (Some(Foundation::Strength), 6, later, later),
            "the last of a repeated id is kept"
        );
        assert_eq!(rows.len(), 2);
    }
);

dual_test!(a_batch_with_one_failing_item_stores_nothing, |db| {
    let ada = user(&db, "ada@example.org").await;
    let repo = DieselTaskMappingRepository::new(db.clone());
    repo.upsert(ada.id, &input("kept", Foundation::Love, 10, T0), T0)
        .await
        .unwrap();
    // The database refuses one item; the ports' types cannot build an invalid one.
    let trigger = match db.backend() {
        Backend::Sqlite => "CREATE TRIGGER poison BEFORE INSERT ON task_mapping \
             WHEN NEW.external_task_id = 'poison' BEGIN SELECT RAISE(ABORT, 'poisoned item'); END;"
            .to_owned(),
        Backend::Postgres => "CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$ \
             BEGIN IF NEW.external_task_id = 'poison' THEN RAISE EXCEPTION 'poisoned item'; END IF; \
             RETURN NEW; END $$; \
             CREATE TRIGGER poison BEFORE INSERT ON task_mapping FOR EACH ROW EXECUTE FUNCTION poison();"
            .to_owned(),
    };
    execute(&db, trigger).await;
    let batch = [
        input("new-1", Foundation::Love, 1, T0),
        input("kept", Foundation::Mission, 99, T0),
        input("poison", Foundation::Love, 1, T0),
        input("new-2", Foundation::Love, 1, T0),
    ];
    assert!(matches!(
        repo.upsert_batch(ada.id, batch.to_vec(), T0).await,
        Err(RepoError::Unexpected(_))
    ));
    let rows = repo
        .list(ada.id, &TaskMappingQuery::default())
        .await
        .unwrap()
        .items;
    assert_eq!(rows.len(), 1, "neither new row was kept");
    assert_eq!(
        (rows[0].foundation, rows[0].minutes),
        (Some(Foundation::Love), 10),
        "the update was rolled back"
    );
});

dual_test!(
    listing_filters_and_pages_without_repeating_or_losing_a_row,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let bob = user(&db, "bob@example.org").await;
        let repo = DieselTaskMappingRepository::new(db.clone());
        let mut inputs = Vec::new();
        for n in 0..25_i64 {
            // Triples share an instant, so ties are broken by id across page boundaries.
            let at = T0 + Duration::minutes(n / 3);
            let foundation = Foundation::ALL[usize::try_from(n % 3).unwrap()];
            inputs.push(input(&format!("t{n}"), foundation, n, at));
        }
        repo.upsert_batch(ada.id, inputs.clone(), T0).await.unwrap();
        repo.upsert_batch(bob.id, inputs[..5].to_vec(), T0)
            .await
            .unwrap();

        let limit = PageLimit::new(4).unwrap();
        let all = list_all(
            &repo,
            ada.id,
            TaskMappingQuery {
                limit,
                ..Default::default()
            },
        )
        .await;
        assert_eq!(all.len(), 25);
        let mut expected = all.clone();
        expected.sort_by_key(|m| std::cmp::Reverse((m.occurred_at, m.id)));
        assert_eq!(all, expected, "newest first, ties by id, nothing repeated");

        let (from, to) = (T0 + Duration::minutes(2), T0 + Duration::minutes(6));
        let query = TaskMappingQuery {
            from: Some(from),
            to: Some(to),
            foundation: Some(FoundationFilter::Is(Foundation::Strength)),
            limit: PageLimit::new(1).unwrap(),
            before: None,
        };
        let filtered = list_all(&repo, ada.id, query).await;
        let want: Vec<_> = all
            .iter()
            .filter(|m| {
                m.occurred_at >= from
                    && m.occurred_at < to
                    && m.foundation == Some(Foundation::Strength)
            })
            .cloned()
            .collect();
        assert_eq!(want.len(), 4, "from is inclusive, to exclusive");
        assert_eq!(filtered, want);
        assert!(
            list_all(&repo, bob.id, TaskMappingQuery::default())
                .await
                .iter()
                .all(|m| m.user_id == bob.id)
        );
    }
);

dual_test!(deleting_a_mapping_is_scoped_to_its_owner, |db| {
    let ada = user(&db, "ada@example.org").await;
    let bob = user(&db, "bob@example.org").await;
    let repo = DieselTaskMappingRepository::new(db.clone());
    repo.upsert(ada.id, &input("x", Foundation::Love, 5, T0), T0)
        .await
        .unwrap();
    assert!(!repo.delete(bob.id, "x").await.unwrap());
    assert!(repo.delete(ada.id, "x").await.unwrap());
    assert!(!repo.delete(ada.id, "x").await.unwrap());
    assert_eq!(count(&db, "task_mapping").await, 0);
});

dual_test!(
    daily_minutes_sum_by_utc_date_inside_the_half_open_window,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let bob = user(&db, "bob@example.org").await;
        let repo = DieselTaskMappingRepository::new(db.clone());
        let window = Window::ending_at(datetime!(2026-11-22 10:00:00.123_456 UTC), 14).unwrap();
        let micro = Duration::microseconds(1);
        let entries = [
            ("at-from", window.from, Foundation::Love, 1), // excluded
            ("after-from", window.from + micro, Foundation::Love, 2), // 2026-11-08
            (
                "late-1",
                datetime!(2026-11-15 23:59:59.999_999 UTC),
                Foundation::Mission,
                40,
            ),
            (
                "late-2",
                datetime!(2026-11-15 12:00 UTC),
                Foundation::Mission,
                5,
            ),
            (
                "late-3",
                datetime!(2026-11-15 08:00 UTC),
                Foundation::ShortTerm,
                7,
            ),
            (
                "early",
                datetime!(2026-11-16 00:00 UTC),
                Foundation::Mission,
                50,
            ),
            ("at-to", window.to, Foundation::LongTerm, 1440), // included
            ("after-to", window.to + micro, Foundation::LongTerm, 1000), // excluded
        ];
        for (id, at, foundation, minutes) in entries {
            repo.upsert(ada.id, &input(id, foundation, minutes, at), T0)
                .await
                .unwrap();
        }
        repo.upsert(
            bob.id,
            &input(
                "bob",
                Foundation::Love,
                600,
                datetime!(2026-11-15 12:00 UTC),
            ),
            T0,
        )
        .await
        .unwrap();

        let days: BTreeMap<_, _> = repo
            .daily_minutes(ada.id, &window, &TimeZone::utc())
            .await
            .unwrap()
            .into_iter()
            .map(|d| (d.date, Foundation::ALL.map(|f| d.minutes.get(f))))
            .collect();
        let expected = BTreeMap::from([
            (time::macros::date!(2026 - 11 - 08), [2, 0, 0, 0, 0, 0]),
            (time::macros::date!(2026 - 11 - 15), [0, 0, 45, 0, 7, 0]),
            (time::macros::date!(2026 - 11 - 16), [0, 0, 50, 0, 0, 0]),
            (time::macros::date!(2026 - 11 - 22), [0, 0, 0, 0, 0, 1440]),
        ]);
        assert_eq!(days, expected);
        let empty = Window::ending_at(datetime!(2020-01-01 00:00 UTC), 14).unwrap();
        assert!(
            repo.daily_minutes(ada.id, &empty, &TimeZone::utc())
                .await
                .unwrap()
                .is_empty()
        );
    }
);

// Europe/Berlin left summer time on 2026-10-25 at 01:00 UTC (03:00 CEST became 02:00 CET):
// that Sunday has 25 hours, and its last hour is still in the week that began on the 19th.
dual_test!(
    minutes_sum_by_local_day_and_local_week_across_a_change_of_offset,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let repo = DieselTaskMappingRepository::new(db.clone());
        let berlin = TimeZone::parse("Europe/Berlin").unwrap();
        let now = datetime!(2026-10-27 12:00 UTC);
        let micro = Duration::microseconds(1);
        let weeks = Weeks::ending_at(now, &berlin, 2).unwrap();
        assert_eq!(weeks.from, datetime!(2026-10-18 22:00 UTC));
        let entries = [
            ("before-weeks", weeks.from - micro, Foundation::Love, 100), // Sunday the 18th
            ("at-weeks", weeks.from, Foundation::Love, 200),             // Monday the 19th
            (
                "sat-late",
                datetime!(2026-10-24 21:59:59.999_999 UTC),
                Foundation::Love,
                1,
            ),
            (
                "sun-start",
                datetime!(2026-10-24 22:00 UTC),
                Foundation::Strength,
                2,
            ),
            (
                "before-change",
                datetime!(2026-10-25 00:59:59.999_999 UTC),
                Foundation::Mission,
                4,
            ),
            (
                "after-change",
                datetime!(2026-10-25 01:00 UTC),
                Foundation::Vocation,
                8,
            ),
            (
                "sun-late",
                datetime!(2026-10-25 22:59:59.999_999 UTC),
                Foundation::ShortTerm,
                16,
            ),
            (
                "mon-start",
                datetime!(2026-10-25 23:00 UTC),
                Foundation::LongTerm,
                32,
            ),
            ("at-now", now, Foundation::LongTerm, 64),
            ("after-now", now + micro, Foundation::LongTerm, 1000),
        ];
        for (id, at, foundation, minutes) in entries {
            repo.upsert(ada.id, &input(id, foundation, minutes, at), T0)
                .await
                .unwrap();
        }
        let by_date = |sums: Vec<domain::integration::DailyMinutes>| -> BTreeMap<_, _> {
            sums.into_iter()
                .map(|d| (d.date, Foundation::ALL.map(|f| d.minutes.get(f))))
                .collect()
        };

        let window = Window::ending_at(now, 7).unwrap();
        let days = by_date(repo.daily_minutes(ada.id, &window, &berlin).await.unwrap());
        assert_eq!(
            days,
            BTreeMap::from([
                (time::macros::date!(2026 - 10 - 24), [1, 0, 0, 0, 0, 0]),
                (time::macros::date!(2026 - 10 - 25), [0, 2, 4, 8, 16, 0]),
                (time::macros::date!(2026 - 10 - 26), [0, 0, 0, 0, 0, 32]),
                (time::macros::date!(2026 - 10 - 27), [0, 0, 0, 0, 0, 64]),
            ])
        );

        let weekly = by_date(repo.weekly_minutes(ada.id, &weeks, &berlin).await.unwrap());
        assert_eq!(
            weekly,
            BTreeMap::from([
                (time::macros::date!(2026 - 10 - 19), [201, 2, 4, 8, 16, 0]),
                (time::macros::date!(2026 - 10 - 26), [0, 0, 0, 0, 0, 96]),
            ])
        );

        // The same entries in UTC weeks: the 18th 22:00 UTC is before their first Monday, and
        // the 25th 23:00 UTC is still Sunday.
        let utc_weeks = Weeks::ending_at(now, &TimeZone::utc(), 2).unwrap();
        let weekly = by_date(
            repo.weekly_minutes(ada.id, &utc_weeks, &TimeZone::utc())
                .await
                .unwrap(),
        );
        assert_eq!(
            weekly,
            BTreeMap::from([
                (time::macros::date!(2026 - 10 - 19), [1, 2, 4, 8, 16, 32]),
                (time::macros::date!(2026 - 10 - 26), [0, 0, 0, 0, 0, 64]),
            ])
        );
    }
);

// Concurrent single upserts share commits (group commit); each caller must still get its own
// outcome, and a write that fails (here: an owner that does not exist) must fail alone.
dual_test!(
    concurrent_upserts_each_get_their_own_outcome_and_a_failure_stays_alone,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let ghost = UserId::new();
        let repo = DieselTaskMappingRepository::new(db.clone());
        // Writes 0..24 and 24..48 name the same 24 tasks; write 48 belongs to nobody.
        let writes: Vec<_> = (0..49_i64)
            .map(|n| {
                let repo = repo.clone();
                let owner = if n == 48 { ghost } else { ada.id };
                let task = input(&format!("task-{}", n % 24), Foundation::Love, n + 1, T0);
                tokio::spawn(async move { repo.upsert(owner, &task, T0).await })
            })
            .collect();
        let mut outcomes: BTreeMap<String, Vec<(UpsertOutcome, u16)>> = BTreeMap::new();
        for (n, write) in writes.into_iter().enumerate() {
            match write.await.unwrap() {
                Ok((stored, outcome)) => {
                    assert_eq!(stored.user_id, ada.id);
                    outcomes
                        .entry(stored.external_task_id)
                        .or_default()
                        .push((outcome, stored.minutes));
                }
                Err(e) => {
                    assert_eq!(n, 48, "write {n} failed: {e:?}");
                    assert!(matches!(e, RepoError::NotFound), "{e:?}");
                }
            }
        }
        assert_eq!(outcomes.len(), 24);
        for (task, seen) in &outcomes {
            let created = seen
                .iter()
                .filter(|(o, _)| *o == UpsertOutcome::Created)
                .count();
            assert_eq!((seen.len(), created), (2, 1), "{task}: {seen:?}");
        }
        assert_eq!(count(&db, "task_mapping").await, 24);
        assert_eq!(
            count(&db, &format!("task_mapping WHERE user_id = '{}'", ada.id)).await,
            24
        );
    }
);
