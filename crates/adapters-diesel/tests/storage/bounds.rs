//! Waits are bounded (issue 28): a request that cannot have a connection permit, or SQLite's
//! single writer, within `DbConfig::wait_timeout` is refused as busy (`RepoError::Busy`) having
//! written nothing, instead of waiting behind a long statement for as long as it takes.

use std::time::{Duration, Instant};

use adapters_diesel::testing::{TestDb, config};
use adapters_diesel::{DieselRuleRepository, DieselTaskMappingRepository};
use domain::RepoError;
use domain::foundation::Foundation;
use domain::integration::{
    ExternalTaskId, MatchKind, Minutes, NewRule, Pattern, RuleMatch, Tags, TaskMappingInput,
};
use domain::ports::{RuleRepository, TaskMappingRepository};

use crate::harness::{T0, count, execute, user};

const BOUND: Duration = Duration::from_millis(150);

fn a_rule() -> NewRule {
    NewRule {
        matcher: RuleMatch::new(MatchKind::Tag, Pattern::non_blank("deep").unwrap()),
        foundation: Foundation::Vocation,
        position: None,
    }
}

fn an_entry() -> TaskMappingInput {
    TaskMappingInput::new(
        ExternalTaskId::new("e-1").unwrap(),
        None,
        Some(Foundation::Love),
        Tags::default(),
        Minutes::new(30).unwrap(),
        T0,
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_write_that_cannot_have_the_writer_in_time_is_busy_and_writes_nothing() {
    let guard = TestDb::sqlite_with(|url| {
        let mut c = config(url);
        c.wait_timeout = BOUND;
        c
    });
    let db = guard.db();
    let ada = user(&db, "ada@example.org").await;
    let bob = user(&db, "bob@example.org").await;
    // A rule change that holds the writer for far longer than the bound: its trigger counts.
    execute(
        &db,
        "CREATE TRIGGER slow AFTER INSERT ON mapping_rules BEGIN \
         SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c \
         WHERE x < 5000000) SELECT x FROM c); END;"
            .to_owned(),
    )
    .await;
    let rules = DieselRuleRepository::new(db.clone());
    let slow = tokio::spawn(async move { rules.create(ada.id, &a_rule(), T0).await });
    tokio::time::sleep(Duration::from_millis(50)).await;
    let tasks = DieselTaskMappingRepository::new(db.clone());
    let started = Instant::now();
    let refused = tasks.upsert(bob.id, &an_entry(), T0).await;
    let waited = started.elapsed();
    assert!(matches!(refused, Err(RepoError::Busy)), "{refused:?}");
    assert!(waited < BOUND * 4, "answered after {waited:?}");
    slow.await.unwrap().unwrap();
    assert_eq!(
        count(&db, "task_mapping").await,
        0,
        "the refused write wrote nothing"
    );
    // With the writer free again, the same write goes through.
    tasks.upsert(bob.id, &an_entry(), T0).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_request_that_cannot_have_a_permit_in_time_is_busy() {
    let Some(admin) = std::env::var("TEST_DATABASE_URL")
        .ok()
        .filter(|u| !u.is_empty())
    else {
        eprintln!("skipped: TEST_DATABASE_URL is not set");
        return;
    };
    // One connection: one permit.
    let guard = TestDb::postgres_at(&admin, |url| {
        let mut c = config(url);
        c.max_connections = 1;
        c.wait_timeout = BOUND;
        c
    });
    let db = guard.db();
    let ada = user(&db, "ada@example.org").await;
    execute(
        &db,
        "CREATE FUNCTION slow() RETURNS trigger LANGUAGE plpgsql AS \
         $$ BEGIN PERFORM pg_sleep(1.5); RETURN NEW; END; $$; \
         CREATE TRIGGER slow AFTER INSERT ON mapping_rules FOR EACH ROW EXECUTE FUNCTION slow();"
            .to_owned(),
    )
    .await;
    let rules = DieselRuleRepository::new(db.clone());
    let holding = rules.clone();
    let slow = tokio::spawn(async move { holding.create(ada.id, &a_rule(), T0).await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    let refused = rules.list(ada.id).await;
    let waited = started.elapsed();
    assert!(matches!(refused, Err(RepoError::Busy)), "{refused:?}");
    assert!(waited < BOUND * 4, "answered after {waited:?}");
    slow.await.unwrap().unwrap();
    assert_eq!(rules.list(ada.id).await.unwrap().len(), 1);
}
