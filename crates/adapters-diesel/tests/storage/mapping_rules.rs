//! Mapping rules: entries without a foundation decided by the first matching rule, rules kept
//! at positions 1..n, every change committed at once and re-applied by the re-classification
//! job it queues (a failed step changes nothing), unmapped time in the rollup and the unmapped
//! view. The job's own properties (scope, resuming, old rows) are in `reclassification.rs`.

use std::num::NonZeroU32;

use adapters_diesel::{Backend, DieselRuleRepository, DieselTaskMappingRepository};
use domain::account::TimeZone;
use domain::foundation::Foundation;
use domain::ids::{RuleId, UserId};
use domain::integration::{
    ExternalTaskId, FoundationFilter, MAX_RULES_PER_USER, MappedBy, MatchKind, Minutes, NewRule,
    Pattern, ReclassifyStep, RuleChangeError, RuleMatch, Tags, TaskLabel, TaskMapping,
    TaskMappingInput, TaskMappingQuery, UnmappedQuery, Window,
};
use domain::pagination::PageLimit;
use domain::ports::{RuleRepository, TaskMappingRepository};
use time::{Duration, OffsetDateTime};

use crate::harness::{T0, count, execute, user};

fn entry(id: &str, label: &str, tags: &[&str], foundation: Option<Foundation>) -> TaskMappingInput {
    TaskMappingInput::new(
        ExternalTaskId::new(id).unwrap(),
        Some(TaskLabel::new(label).unwrap()),
        foundation,
        Tags::new(tags.iter().map(|t| (*t).to_owned())).unwrap(),
        Minutes::new(30).unwrap(),
        T0,
    )
    .unwrap()
}

pub fn rule(kind: MatchKind, pattern: &str, foundation: Foundation, at: Option<u32>) -> NewRule {
    NewRule {
        matcher: RuleMatch::new(kind, Pattern::non_blank(pattern).unwrap()),
        foundation,
        position: at.and_then(NonZeroU32::new),
    }
}

/// Every entry of the person, by external id: (foundation, mapped_by).
async fn mapped(
    tasks: &DieselTaskMappingRepository,
    user: UserId,
) -> Vec<(String, Option<Foundation>, Option<MappedBy>)> {
    let mut rows: Vec<TaskMapping> = tasks
        .list(
            user,
            &TaskMappingQuery {
                limit: PageLimit::new(1_000).unwrap(),
                ..Default::default()
            },
        )
        .await
        .unwrap()
        .items;
    rows.sort_by(|a, b| a.external_task_id.cmp(&b.external_task_id));
    rows.into_iter()
        .map(|m| (m.external_task_id, m.foundation, m.mapped_by))
        .collect()
}

/// Runs the person's queued re-classification to its end, a step at a time as the worker
/// does; returns how many steps it took.
pub async fn reclassify(rules: &DieselRuleRepository, user: UserId, now: OffsetDateTime) -> u32 {
    let mut steps = 0;
    while rules.reclassify_step(user, now).await.unwrap() != ReclassifyStep::Finished {
        steps += 1;
        assert!(steps < 100_000, "the job never ends");
    }
    steps
}

fn row(
    id: &str,
    f: Option<Foundation>,
    by: Option<MappedBy>,
) -> (String, Option<Foundation>, Option<MappedBy>) {
    (id.to_owned(), f, by)
}

dual_test!(
    the_first_rule_decides_a_missing_foundation_and_every_change_re_applies,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let tasks = DieselTaskMappingRepository::new(db.clone());
        let rules = DieselRuleRepository::new(db.clone());
        let deep = rules
            .create(
                ada.id,
                &rule(MatchKind::Tag, "Deep", Foundation::Vocation, None),
                T0,
            )
            .await
            .unwrap();
        assert_eq!(deep.position, 1);
        let batch = [
            entry("a", "Code review", &["deep"], None),
            entry("b", "Lunch with Sam", &[], None),
            entry("c", "Code review", &["deep"], Some(Foundation::Love)),
        ];
        tasks
            .upsert_batch(ada.id, batch.to_vec(), T0)
            .await
            .unwrap();
        let single = entry("d", "Café planning", &[], None);
        tasks.upsert(ada.id, &single, T0).await.unwrap();
        assert_eq!(
            mapped(&tasks, ada.id).await,
            [
                row("a", Some(Foundation::Vocation), Some(MappedBy::Rule)),
                row("b", None, None),
                row("c", Some(Foundation::Love), Some(MappedBy::Client)),
                row("d", None, None),
            ]
        );

        // A rule put first takes over from the later one, for rule-mapped and unmapped entries
        // alike; the tracker's own foundation stays.
        let later = T0 + Duration::hours(1);
        let code = rules
            .create(
                ada.id,
                &rule(
                    MatchKind::LabelContains,
                    "CODE",
                    Foundation::Strength,
                    Some(1),
                ),
                later,
            )
            .await
            .unwrap();
        let cafe = rules
            .create(
                ada.id,
                &rule(
                    MatchKind::LabelEquals,
                    "cafe\u{301} planning",
                    Foundation::Mission,
                    None,
                ),
                later,
            )
            .await
            .unwrap();
        assert_eq!((code.position, cafe.position), (1, 3));
        assert_eq!(
            mapped(&tasks, ada.id).await[0],
            row("a", Some(Foundation::Vocation), Some(MappedBy::Rule)),
            "the rules are committed; the entries wait for the job"
        );
        assert!(rules.reclassification(ada.id).await.unwrap().running);
        reclassify(&rules, ada.id, later).await;
        assert!(!rules.reclassification(ada.id).await.unwrap().running);
        assert_eq!(
            rules
                .list(ada.id)
                .await
                .unwrap()
                .iter()
                .map(|r| (r.id, r.position))
                .collect::<Vec<_>>(),
            [(code.id, 1), (deep.id, 2), (cafe.id, 3)]
        );
        assert_eq!(
            mapped(&tasks, ada.id).await,
            [
                row("a", Some(Foundation::Strength), Some(MappedBy::Rule)),
                row("b", None, None),
                row("c", Some(Foundation::Love), Some(MappedBy::Client)),
                row("d", Some(Foundation::Mission), Some(MappedBy::Rule)),
            ]
        );
        let a = tasks
            .list(ada.id, &TaskMappingQuery::default())
            .await
            .unwrap()
            .items;
        let a = a.iter().find(|m| m.external_task_id == "a").unwrap();
        assert_eq!(
            (a.created_at, a.updated_at),
            (T0, later),
            "a re-mapped entry is updated"
        );
        assert_eq!(a.tags, ["deep"]);

        // Moved last, the label rule no longer decides "a"; deleted, "d" is unmapped again.
        let moved = rules
            .replace(
                ada.id,
                code.id,
                &rule(
                    MatchKind::LabelContains,
                    "code",
                    Foundation::Strength,
                    Some(9),
                ),
                later,
            )
            .await
            .unwrap();
        assert_eq!(moved.position, 3);
        assert_eq!(
            rules
                .list(ada.id)
                .await
                .unwrap()
                .iter()
                .map(|r| (r.id, r.position))
                .collect::<Vec<_>>(),
            [(deep.id, 1), (cafe.id, 2), (code.id, 3)]
        );
        rules.delete(ada.id, cafe.id, later).await.unwrap();
        reclassify(&rules, ada.id, later).await;
        assert_eq!(
            rules
                .list(ada.id)
                .await
                .unwrap()
                .iter()
                .map(|r| (r.id, r.position))
                .collect::<Vec<_>>(),
            [(deep.id, 1), (code.id, 2)]
        );
        assert_eq!(
            mapped(&tasks, ada.id).await,
            [
                row("a", Some(Foundation::Vocation), Some(MappedBy::Rule)),
                row("b", None, None),
                row("c", Some(Foundation::Love), Some(MappedBy::Client)),
                row("d", None, None),
            ]
        );

        // Sent again with a foundation, an entry is the tracker's; sent again without, the
        // rules take it back.
        tasks
            .upsert(
                ada.id,
                &entry("a", "Code review", &["deep"], Some(Foundation::Love)),
                later,
            )
            .await
            .unwrap();
        rules.delete(ada.id, deep.id, later).await.unwrap();
        reclassify(&rules, ada.id, later).await;
        assert_eq!(
            mapped(&tasks, ada.id).await[0],
            row("a", Some(Foundation::Love), Some(MappedBy::Client))
        );
        tasks
            .upsert(ada.id, &entry("a", "Code review", &["deep"], None), later)
            .await
            .unwrap();
        assert_eq!(
            mapped(&tasks, ada.id).await[0],
            row("a", Some(Foundation::Strength), Some(MappedBy::Rule))
        );
    }
);

dual_test!(rules_belong_to_their_owner, |db| {
    let ada = user(&db, "ada@example.org").await;
    let bob = user(&db, "bob@example.org").await;
    let tasks = DieselTaskMappingRepository::new(db.clone());
    let rules = DieselRuleRepository::new(db.clone());
    let adas = rules
        .create(
            ada.id,
            &rule(MatchKind::Tag, "deep", Foundation::Vocation, None),
            T0,
        )
        .await
        .unwrap();
    tasks
        .upsert(bob.id, &entry("b1", "x", &["deep"], None), T0)
        .await
        .unwrap();
    assert_eq!(
        mapped(&tasks, bob.id).await,
        [row("b1", None, None)],
        "Ada's rule is not Bob's"
    );
    let other = rule(MatchKind::Tag, "deep", Foundation::Love, None);
    assert!(matches!(
        rules.replace(bob.id, adas.id, &other, T0).await,
        Err(RuleChangeError::NotFound)
    ));
    assert!(matches!(
        rules.delete(bob.id, adas.id, T0).await,
        Err(RuleChangeError::NotFound)
    ));
    assert!(matches!(
        rules.delete(ada.id, RuleId::new(), T0).await,
        Err(RuleChangeError::NotFound)
    ));
    assert!(rules.list(bob.id).await.unwrap().is_empty());
    assert_eq!(rules.list(ada.id).await.unwrap(), [adas]);
});

dual_test!(
    the_rule_after_the_last_allowed_is_refused_and_changes_nothing,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let rules = DieselRuleRepository::new(db.clone());
        for n in 0..MAX_RULES_PER_USER {
            rules
                .create(
                    ada.id,
                    &rule(
                        MatchKind::LabelEquals,
                        &format!("label {n}"),
                        Foundation::Love,
                        None,
                    ),
                    T0,
                )
                .await
                .unwrap();
        }
        let refused = rules
            .create(
                ada.id,
                &rule(MatchKind::Tag, "one more", Foundation::Love, Some(1)),
                T0,
            )
            .await;
        assert!(matches!(refused, Err(RuleChangeError::TooMany)));
        let kept = rules.list(ada.id).await.unwrap();
        assert_eq!(kept.len(), MAX_RULES_PER_USER);
        assert!(
            kept.iter()
                .enumerate()
                .all(|(i, r)| r.position as usize == i + 1)
        );
    }
);

dual_test!(
    a_failed_step_changes_nothing_and_the_job_ends_as_one_pass_once_it_can,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let tasks = DieselTaskMappingRepository::new(db.clone());
        let rules = DieselRuleRepository::new(db.clone());
        let items: Vec<_> = (0..50)
            .map(|n| entry(&format!("e{n:02}"), "Code", &[], None))
            .collect();
        tasks.upsert_batch(ada.id, items.clone(), T0).await.unwrap();
        // The database refuses to re-map one entry in the middle, as a full disk or a lost
        // connection could at any row.
        let (trigger, untrigger) = match db.backend() {
            Backend::Sqlite => (
                "CREATE TRIGGER refuse_e25 BEFORE UPDATE ON task_mapping \
                 WHEN NEW.external_task_id = 'e25' BEGIN SELECT RAISE(ABORT, 'refused'); END;",
                "DROP TRIGGER refuse_e25;",
            ),
            Backend::Postgres => (
                "CREATE FUNCTION refuse_e25() RETURNS trigger LANGUAGE plpgsql AS \
                 $$ BEGIN RAISE EXCEPTION 'refused'; END; $$; \
                 CREATE TRIGGER refuse_e25 BEFORE UPDATE ON task_mapping FOR EACH ROW \
                 WHEN (NEW.external_task_id = 'e25') EXECUTE FUNCTION refuse_e25();",
                "DROP TRIGGER refuse_e25 ON task_mapping;",
            ),
        };
        execute(&db, trigger.to_owned()).await;
        let code = rules
            .create(
                ada.id,
                &rule(MatchKind::LabelEquals, "code", Foundation::Mission, None),
                T0,
            )
            .await
            .unwrap();
        assert_eq!(
            rules.list(ada.id).await.unwrap(),
            [code],
            "the rule commits at once"
        );
        for _ in 0..3 {
            let failed = rules.reclassify_step(ada.id, T0).await;
            assert!(failed.is_err(), "{failed:?}");
        }
        assert_eq!(
            count(&db, "task_mapping WHERE foundation IS NOT NULL").await,
            0,
            "a failed step re-maps no entry"
        );
        let progress = rules.reclassification(ada.id).await.unwrap();
        assert!(progress.running && progress.done == 0, "{progress:?}");

        execute(&db, untrigger.to_owned()).await;
        reclassify(&rules, ada.id, T0).await;
        assert_eq!(
            count(
                &db,
                "task_mapping WHERE foundation = 'mission' AND mapped_by = 'rule'"
            )
            .await,
            50
        );
    }
);

dual_test!(unmapped_time_is_its_own_sum_and_view, |db| {
    let ada = user(&db, "ada@example.org").await;
    let tasks = DieselTaskMappingRepository::new(db.clone());
    let at = |minutes_ago: i64, id: &str, label: &str, tags: &[&str], f, minutes| {
        let mut e = entry(id, label, tags, f);
        e.minutes = Minutes::new(minutes).unwrap();
        e.occurred_at = T0 - Duration::minutes(minutes_ago);
        e
    };
    let items = [
        at(10, "m1", "Write", &[], Some(Foundation::Vocation), 60),
        at(20, "u1", "Email", &["inbox"], None, 25),
        at(30, "u2", "Email", &["inbox"], None, 35),
        at(40, "u3", "Email", &[], None, 15),
        at(50, "u4", "Slack", &[], None, 20),
        // Outside a one-day window.
        at(60 * 30, "u5", "Email", &["inbox"], None, 500),
    ];
    tasks
        .upsert_batch(ada.id, items.to_vec(), T0)
        .await
        .unwrap();
    let window = Window::ending_at(T0, 1).unwrap();
    let days = tasks
        .daily_minutes(ada.id, &window, &TimeZone::utc())
        .await
        .unwrap();
    let mapped: i64 = days.iter().map(|d| d.minutes.total()).sum();
    let unmapped: i64 = days.iter().map(|d| d.unmapped).sum();
    assert_eq!((mapped, unmapped), (60, 95));
    let by_person = tasks
        .daily_minutes_of(&[ada.id], &window, &TimeZone::utc())
        .await
        .unwrap();
    assert_eq!(by_person[&ada.id], days);

    let groups = tasks
        .unmapped(
            ada.id,
            &UnmappedQuery {
                window,
                limit: PageLimit::DEFAULT,
            },
        )
        .await
        .unwrap();
    let seen: Vec<_> = groups
        .iter()
        .map(|g| {
            (
                g.task_label.as_deref().unwrap(),
                g.tags.clone(),
                g.minutes,
                g.entries,
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("Email", vec!["inbox".to_owned()], 60, 2),
            ("Slack", vec![], 20, 1),
            ("Email", vec![], 15, 1),
        ],
        "grouped by label and tags, most minutes first, the window only"
    );
    assert_eq!(groups[0].last_occurred_at, T0 - Duration::minutes(20));
    let one = tasks
        .unmapped(
            ada.id,
            &UnmappedQuery {
                window,
                limit: PageLimit::new(1).unwrap(),
            },
        )
        .await
        .unwrap();
    assert_eq!(one.len(), 1);

    let listed = tasks
        .list(
            ada.id,
            &TaskMappingQuery {
                foundation: Some(FoundationFilter::Unmapped),
                ..Default::default()
            },
        )
        .await
        .unwrap()
        .items;
    assert_eq!(listed.len(), 5);
    assert!(
        listed
            .iter()
            .all(|m| m.foundation.is_none() && m.mapped_by.is_none())
    );
});

dual_test!(
    a_rule_change_and_concurrent_upserts_never_leave_a_stale_foundation,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let tasks = DieselTaskMappingRepository::new(db.clone());
        let rules = DieselRuleRepository::new(db.clone());
        // Many single upserts without a foundation race one rule change that decides them all.
        let writers: Vec<_> = (0..200)
            .map(|n| {
                let tasks = tasks.clone();
                tokio::spawn(async move {
                    tasks
                        .upsert(
                            ada.id,
                            &entry(&format!("r{n:03}"), "Focus", &["deep"], None),
                            T0,
                        )
                        .await
                        .unwrap();
                })
            })
            .collect();
        let now: OffsetDateTime = T0 + Duration::seconds(1);
        rules
            .create(
                ada.id,
                &rule(MatchKind::Tag, "deep", Foundation::Vocation, None),
                now,
            )
            .await
            .unwrap();
        // The job runs while the writers still write, and only once: an upsert that read the
        // rules before the change must have committed before the change did (the locks), or
        // the job could pass its row before it exists and leave it unmapped.
        reclassify(&rules, ada.id, now).await;
        for w in writers {
            w.await.unwrap();
        }
        let all = mapped(&tasks, ada.id).await;
        assert_eq!(all.len(), 200);
        let stale: Vec<_> = all.iter().filter(|(_, f, _)| f.is_none()).collect();
        assert!(
            stale.is_empty(),
            "entries left unmapped after the rule committed: {stale:?}"
        );
    }
);
