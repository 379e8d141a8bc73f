//! The re-classification job a rule change queues: it covers only the entries the change can
//! affect, resumes from where it was after a restart (another process on the same database),
//! restarts over both scopes when rules change mid-way, writes the folded keys of entries
//! stored before they existed, and ends exactly where one atomic pass with the final rules
//! would: the oracle is `first_match`, the rules applied one entry at a time in Rust.

use std::collections::BTreeMap;

use adapters_diesel::{Database, DieselRuleRepository, DieselTaskMappingRepository};
use domain::foundation::Foundation;
use domain::ids::UserId;
use domain::integration::{
    EntryFacts, ExternalTaskId, MappedBy, MatchKind, Minutes, ReclassifyStep, Tags, TaskLabel,
    TaskMappingInput, TaskMappingQuery, first_match,
};
use domain::pagination::PageLimit;
use domain::ports::{RuleRepository, TaskMappingRepository};
use time::Duration;

use crate::harness::{T0, config, count, execute, user};
use crate::mapping_rules::{reclassify, rule};

const LABELS: [&str; 6] = [
    "Code review",
    "Gym",
    "Deep work",
    "Email",
    "Café planning",
    "Ops",
];
const TAGS: [&str; 4] = ["deep", "Project:Website", "family", "inbox"];

/// Entry `n` of a varied set: labels, tags, ids and a client foundation on every seventh.
fn entry(n: usize) -> TaskMappingInput {
    let tags: Vec<String> = (0..n % 3)
        .map(|k| TAGS[(n + k) % TAGS.len()].to_owned())
        .collect();
    TaskMappingInput::new(
        ExternalTaskId::new(format!("{}:{n:05}", ["toggl", "CAL", "aw"][n % 3])).unwrap(),
        Some(TaskLabel::new(LABELS[n % LABELS.len()]).unwrap()),
        n.is_multiple_of(7).then_some(Foundation::Love),
        Tags::new(tags).unwrap(),
        Minutes::new(15).unwrap(),
        T0,
    )
    .unwrap()
}

type Mapped = BTreeMap<String, (Option<Foundation>, Option<MappedBy>)>;

/// Every entry of the person: external id -> (foundation, mapped_by).
async fn stored(tasks: &DieselTaskMappingRepository, user: UserId) -> Mapped {
    let mut all = Mapped::new();
    let mut before = None;
    loop {
        let page = tasks
            .list(
                user,
                &TaskMappingQuery {
                    limit: PageLimit::new(1_000).unwrap(),
                    before,
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        for m in page.items {
            all.insert(m.external_task_id, (m.foundation, m.mapped_by));
        }
        match page.next_cursor {
            Some(cursor) => before = Some(cursor),
            None => return all,
        }
    }
}

/// What one atomic pass with the person's current rules gives every entry.
async fn one_pass(
    rules: &DieselRuleRepository,
    user: UserId,
    entries: &[TaskMappingInput],
) -> Mapped {
    let current = rules.list(user).await.unwrap();
    entries
        .iter()
        .map(|e| {
            let decided = match e.foundation {
                Some(f) => (Some(f), Some(MappedBy::Client)),
                None => {
                    let facts = EntryFacts {
                        external_task_id: e.external_task_id.as_str(),
                        task_label: e.task_label.as_ref().map(TaskLabel::as_str),
                        tags: e.tags.as_slice(),
                    };
                    let f = first_match(&current, &facts);
                    (f, f.map(|_| MappedBy::Rule))
                }
            };
            (e.external_task_id.as_str().to_owned(), decided)
        })
        .collect()
}

/// Asserts that every entry of the person is where one atomic pass with the current rules
/// puts it.
async fn assert_one_pass(
    db: &Database,
    rules: &DieselRuleRepository,
    user: UserId,
    entries: &[TaskMappingInput],
) {
    let tasks = DieselTaskMappingRepository::new(db.clone());
    assert_eq!(
        stored(&tasks, user).await,
        one_pass(rules, user, entries).await
    );
}

async fn seed(db: &Database, user: UserId, n: usize) -> Vec<TaskMappingInput> {
    let tasks = DieselTaskMappingRepository::new(db.clone());
    let entries: Vec<TaskMappingInput> = (0..n).map(entry).collect();
    for chunk in entries.chunks(1_000) {
        tasks.upsert_batch(user, chunk.to_vec(), T0).await.unwrap();
    }
    entries
}

dual_test!(a_job_covers_only_the_entries_its_change_can_affect, |db| {
    let ada = user(&db, "ada@example.org").await;
    let bob = user(&db, "bob@example.org").await;
    // Enough that the scopes below hold more than one step's read.
    let entries = seed(&db, ada.id, 15_000).await;
    seed(&db, bob.id, 500).await;
    let rules = DieselRuleRepository::new(db.clone());
    rules
        .create(
            ada.id,
            &rule(MatchKind::LabelEquals, "GYM", Foundation::Strength, None),
            T0,
        )
        .await
        .unwrap();
    // Counted in the first step: the person's unmapped or rule-mapped "Gym" entries only.
    let gym = entries
        .iter()
        .filter(|e| e.foundation.is_none() && e.task_label.as_ref().unwrap().as_str() == "Gym")
        .count();
    let candidates = entries.iter().filter(|e| e.foundation.is_none()).count();
    assert!(gym > 2_000 && gym < candidates / 2, "{gym} of {candidates}");
    assert!(matches!(
        rules.reclassify_step(ada.id, T0).await.unwrap(),
        ReclassifyStep::More { .. }
    ));
    let progress = rules.reclassification(ada.id).await.unwrap();
    assert!(progress.running);
    assert_eq!(
        progress.total, gym as u64,
        "the job covers the entries the change can affect, not all {candidates}"
    );
    reclassify(&rules, ada.id, T0).await;
    assert_one_pass(&db, &rules, ada.id, &entries).await;
    assert_eq!(
        count(
            &db,
            &format!(
                "task_mapping WHERE user_id = '{}' AND mapped_by = 'rule'",
                bob.id
            )
        )
        .await,
        0,
        "another person's entries are not touched"
    );

    // A tag rule and an id-prefix rule: the scope is found by SQL on the folded keys.
    rules
        .create(
            ada.id,
            &rule(
                MatchKind::Tag,
                "project:website",
                Foundation::Mission,
                Some(1),
            ),
            T0,
        )
        .await
        .unwrap();
    rules
        .create(
            ada.id,
            &rule(
                MatchKind::ExternalTaskIdPrefix,
                "cal:",
                Foundation::ShortTerm,
                None,
            ),
            T0,
        )
        .await
        .unwrap();
    assert!(matches!(
        rules.reclassify_step(ada.id, T0).await.unwrap(),
        ReclassifyStep::More { .. }
    ));
    let covered = entries
        .iter()
        .filter(|e| {
            e.foundation.is_none()
                && (e.tags.as_slice().iter().any(|t| t == "Project:Website")
                    || e.external_task_id.as_str().starts_with("CAL:"))
        })
        .count();
    let progress = rules.reclassification(ada.id).await.unwrap();
    assert_eq!(progress.total, covered as u64, "{progress:?}");
    reclassify(&rules, ada.id, T0).await;
    assert_one_pass(&db, &rules, ada.id, &entries).await;
});

dual_test!(
    a_job_resumes_in_another_process_and_a_change_mid_way_restarts_it_over_both_scopes,
    |db, url| {
        let ada = user(&db, "ada@example.org").await;
        // More in scope than two steps read.
        let entries = seed(&db, ada.id, 15_000).await;
        let rules = DieselRuleRepository::new(db.clone());
        let later = T0 + Duration::hours(1);
        rules
            .create(
                ada.id,
                &rule(MatchKind::LabelContains, "o", Foundation::Vocation, None),
                T0,
            )
            .await
            .unwrap();
        // A few steps, then the process "dies": nothing of the job is in memory.
        for _ in 0..2 {
            assert!(matches!(
                rules.reclassify_step(ada.id, later).await.unwrap(),
                ReclassifyStep::More { decided } if decided > 0
            ));
        }
        let mid = rules.reclassification(ada.id).await.unwrap();
        assert!(
            mid.running && mid.done > 0 && mid.done < mid.total,
            "{mid:?}"
        );
        drop(rules);

        let restarted = Database::connect(&config(&url)).unwrap();
        let rules = DieselRuleRepository::new(restarted.clone());
        assert_eq!(
            rules.reclassification(ada.id).await.unwrap(),
            mid,
            "the job is where it was"
        );
        rules.reclassify_step(ada.id, later).await.unwrap();
        // A change mid-way: the job starts over, covering the old and the new condition.
        rules
            .create(
                ada.id,
                &rule(MatchKind::Tag, "family", Foundation::Love, Some(1)),
                later,
            )
            .await
            .unwrap();
        assert_eq!(rules.reclassification(ada.id).await.unwrap().done, 0);
        reclassify(&rules, ada.id, later).await;
        assert_one_pass(&restarted, &rules, ada.id, &entries).await;
        assert_eq!(
            count(
                &db,
                "task_mapping WHERE mapped_by = 'rule' AND updated_at = created_at"
            )
            .await,
            0,
            "every entry the job changed has a new updated_at"
        );
    }
);

dual_test!(two_workers_stepping_one_job_end_as_one_pass, |db| {
    let ada = user(&db, "ada@example.org").await;
    let entries = seed(&db, ada.id, 6_000).await;
    let rules = DieselRuleRepository::new(db.clone());
    rules
        .create(
            ada.id,
            &rule(MatchKind::LabelContains, "e", Foundation::Mission, None),
            T0,
        )
        .await
        .unwrap();
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let rules = rules.clone();
            tokio::spawn(async move { reclassify(&rules, ada.id, T0).await })
        })
        .collect();
    for w in workers {
        w.await.unwrap();
    }
    assert_one_pass(&db, &rules, ada.id, &entries).await;
});

dual_test!(
    entries_stored_before_the_keys_existed_get_them_and_are_decided,
    |db| {
        let ada = user(&db, "ada@example.org").await;
        let entries = seed(&db, ada.id, 40).await;
        // As migration 014 finds them: no keys.
        execute(
            &db,
            "UPDATE task_mapping SET match_label = NULL, match_tags = NULL, match_id = NULL;"
                .to_owned(),
        )
        .await;
        let rules = DieselRuleRepository::new(db.clone());
        // The job's scope is one condition on keys these rows lack: they are covered anyway.
        rules
            .create(
                ada.id,
                &rule(
                    MatchKind::LabelEquals,
                    "café PLANNING",
                    Foundation::Mission,
                    None,
                ),
                T0,
            )
            .await
            .unwrap();
        reclassify(&rules, ada.id, T0).await;
        assert_one_pass(&db, &rules, ada.id, &entries).await;
        assert_eq!(
            count(
                &db,
                "task_mapping WHERE match_tags IS NULL AND mapped_by IS DISTINCT FROM 'client'"
            )
            .await,
            0,
            "every candidate has its keys now"
        );
        assert!(
            count(&db, "task_mapping WHERE foundation = 'mission'").await > 0,
            "the rule met the old rows through their new keys"
        );
    }
);
