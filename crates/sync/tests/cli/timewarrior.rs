//! With the real Timewarrior: intervals recorded with `timew track`/`timew start` end up as task
//! mappings, exact to the minute, idempotently.

use serde_json::Value;

use crate::harness::{Timew, at, days_ago, mapping_file, minutes_of, run_sync, spawn_app};

const MAPPING: &str = r#"
default = "mission"

[[rule]]
tag = "writing"
foundation = "vocation"

[[rule]]
tag = "gym"
foundation = "strength"
"#;

/// The mapping with this external id; panics when there is none.
fn by_id<'a>(mappings: &'a [Value], id: &str) -> &'a Value {
    mappings
        .iter()
        .find(|m| m["external_task_id"] == id)
        .unwrap_or_else(|| panic!("no mapping {id} in {mappings:#?}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn tracked_intervals_become_task_mappings_exact_to_the_minute_and_a_rerun_only_updates() {
    let Some(tw) = Timew::new() else { return };
    let app = spawn_app().await;
    let key = app.person_with_key("tw@example.org").await;
    let day = days_ago(2);
    tw.track(at(day, 9, 0, 0), at(day, 10, 30, 0), &["writing"]); // 90, vocation
    tw.track(at(day, 11, 0, 0), at(day, 11, 20, 29), &["gym"]); // 20 (29 s round down)
    tw.track(
        at(day, 13, 0, 0),
        at(day, 13, 45, 30),
        &["writing", "deep work"],
    ); // 46 (30 s up)
    tw.track(at(day, 15, 0, 0), at(day, 15, 10, 0), &["errands"]); // 10, default mission
    tw.start(at(days_ago(0), 0, 0, 1), &["writing"]); // open: skipped
    let mapping = mapping_file(&tw.dir, MAPPING);
    let pairs = tw.env();
    let env = tw.run_env(&pairs, &key);
    let args = ["timewarrior", "--mapping", &mapping, "--url", &app.address];

    let first = run_sync(&args, &env, None).await;
    assert_eq!(first.code, 0, "{first:?}");
    let s = &first.summary;
    assert_eq!(s["ok"], true, "{s}");
    assert_eq!(
        (s["intervals"].as_u64(), s["open"].as_u64()),
        (Some(5), Some(1)),
        "{s}"
    );
    assert_eq!(
        (s["created"].as_u64(), s["updated"].as_u64()),
        (Some(4), Some(0)),
        "{s}"
    );
    assert_eq!(s["batches"], 1, "{s}");
    assert!(!first.stdout.contains(&key) && !first.stderr.contains(&key));

    let mappings = app.mappings(&key).await;
    assert_eq!(mappings.len(), 4, "{mappings:#?}");
    for m in &mappings {
        let id = m["external_task_id"].as_str().expect("an id");
        assert!(id.starts_with("timew:") && id.len() <= 200, "{id}");
    }
    let ids: Vec<&str> = mappings
        .iter()
        .map(|m| m["external_task_id"].as_str().expect("id"))
        .collect();
    let deep = mappings
        .iter()
        .find(|m| m["minutes"] == 46)
        .expect("the 45:30 interval rounds to 46");
    assert_eq!(deep["foundation"], "vocation");
    assert_eq!(deep["task_label"], "deep work, writing");
    let stamp = crate::harness::stamp(at(day, 13, 0, 0));
    assert_eq!(deep["occurred_at"], stamp.as_str());
    let gym = mappings
        .iter()
        .find(|m| m["task_label"] == "gym")
        .expect("gym");
    assert_eq!(
        (gym["foundation"].as_str(), gym["minutes"].as_i64()),
        (Some("strength"), Some(20))
    );
    let errands = mappings
        .iter()
        .find(|m| m["task_label"] == "errands")
        .expect("errands");
    assert_eq!(
        (errands["foundation"].as_str(), errands["minutes"].as_i64()),
        (Some("mission"), Some(10))
    );

    let pattern = app.work_patterns(&key).await;
    assert_eq!(pattern["total_minutes"], 166, "{pattern}");
    assert_eq!(minutes_of(&pattern, "vocation"), 136);
    assert_eq!(minutes_of(&pattern, "strength"), 20);
    assert_eq!(minutes_of(&pattern, "mission"), 10);
    assert_eq!(minutes_of(&pattern, "love"), 0);

    let second = run_sync(&args, &env, None).await;
    assert_eq!(second.code, 0, "{second:?}");
    let s = &second.summary;
    assert_eq!(
        (s["created"].as_u64(), s["updated"].as_u64()),
        (Some(0), Some(4)),
        "{s}"
    );
    let again = app.mappings(&key).await;
    assert_eq!(again.len(), 4);
    for id in &ids {
        assert_eq!(
            by_id(&again, id)["minutes"],
            by_id(&mappings, id)["minutes"]
        );
    }
    assert_eq!(app.work_patterns(&key).await["total_minutes"], 166);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dry_run_prints_exactly_what_a_real_run_sends_and_sends_nothing() {
    let Some(tw) = Timew::new() else { return };
    let app = spawn_app().await;
    let key = app.person_with_key("dry@example.org").await;
    let day = days_ago(1);
    tw.track(at(day, 8, 0, 0), at(day, 8, 25, 0), &["gym"]);
    tw.track(at(day, 9, 0, 0), at(day, 9, 5, 0), &["writing"]);
    let mapping = mapping_file(&tw.dir, MAPPING);
    let pairs = tw.env();
    let env = tw.run_env(&pairs, &key);

    let dry = run_sync(
        &[
            "timewarrior",
            "--mapping",
            &mapping,
            "--url",
            &app.address,
            "--dry-run",
        ],
        &env,
        None,
    )
    .await;
    assert_eq!(dry.code, 0, "{dry:?}");
    assert_eq!(dry.summary["dry_run"], true);
    assert_eq!(
        (
            dry.summary["created"].as_u64(),
            dry.summary["batches"].as_u64()
        ),
        (Some(0), Some(1)),
        "the batch printed counts"
    );
    let bodies = dry.body_lines();
    assert_eq!(bodies.len(), 1, "{}", dry.stdout);
    let items = bodies[0]["items"].as_array().expect("items");
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["foundation"], "strength");
    assert_eq!(items[0]["minutes"], 25);
    assert!(
        app.mappings(&key).await.is_empty(),
        "a dry run sent something"
    );

    let real = run_sync(
        &["timewarrior", "--mapping", &mapping, "--url", &app.address],
        &env,
        None,
    )
    .await;
    assert_eq!(real.summary["created"], 2, "{real:?}");
    assert!(
        real.body_lines().is_empty(),
        "a real run prints only the summary"
    );
    let mappings = app.mappings(&key).await;
    for item in items {
        let stored = by_id(&mappings, item["external_task_id"].as_str().expect("id"));
        for field in ["task_label", "foundation", "minutes", "occurred_at"] {
            assert_eq!(stored[field], item[field], "{field}");
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn skip_rules_and_a_skip_default_leave_intervals_out() {
    let Some(tw) = Timew::new() else { return };
    let app = spawn_app().await;
    let key = app.person_with_key("skip@example.org").await;
    let day = days_ago(3);
    tw.track(at(day, 9, 0, 0), at(day, 10, 0, 0), &["writing"]);
    tw.track(
        at(day, 10, 0, 0),
        at(day, 11, 0, 0),
        &["private", "writing"],
    );
    tw.track(at(day, 11, 0, 0), at(day, 12, 0, 0), &["other"]);
    tw.track(at(day, 12, 0, 0), at(day, 12, 30, 0), &[]);
    let mapping = mapping_file(
        &tw.dir,
        "default = \"skip\"\n[[rule]]\ntag = \"private\"\nfoundation = \"skip\"\n\
         [[rule]]\ntag = \"writing\"\nfoundation = \"love\"\n",
    );
    let pairs = tw.env();
    let env = tw.run_env(&pairs, &key);
    let run = run_sync(
        &["timewarrior", "--mapping", &mapping, "--url", &app.address],
        &env,
        None,
    )
    .await;
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.summary["skipped"], 3, "{}", run.summary);
    assert_eq!(run.summary["created"], 1, "{}", run.summary);
    let mappings = app.mappings(&key).await;
    assert_eq!(mappings.len(), 1);
    assert_eq!(mappings[0]["foundation"], "love");
    assert_eq!(mappings[0]["minutes"], 60);
    assert_eq!(mappings[0]["task_label"], "writing");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_range_is_handed_to_timew_export() {
    let Some(tw) = Timew::new() else { return };
    let app = spawn_app().await;
    let key = app.person_with_key("range@example.org").await;
    let (old, recent) = (days_ago(5), days_ago(1));
    tw.track(at(old, 9, 0, 0), at(old, 9, 40, 0), &["gym"]);
    tw.track(at(recent, 9, 0, 0), at(recent, 9, 15, 0), &["gym"]);
    let mapping = mapping_file(&tw.dir, MAPPING);
    let pairs = tw.env();
    let env = tw.run_env(&pairs, &key);
    let from = crate::harness::stamp(days_ago(2));
    let run = run_sync(
        &[
            "timewarrior",
            "--mapping",
            &mapping,
            "--url",
            &app.address,
            "from",
            &from,
        ],
        &env,
        None,
    )
    .await;
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.summary["intervals"], 1, "{}", run.summary);
    let mappings = app.mappings(&key).await;
    assert_eq!(mappings.len(), 1);
    assert_eq!(mappings[0]["minutes"], 15);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_interval_over_a_day_is_split_at_utc_midnight_into_pieces_that_add_up() {
    let Some(tw) = Timew::new() else { return };
    let app = spawn_app().await;
    let key = app.person_with_key("long@example.org").await;
    // 20:00 three days ago to 02:00 yesterday: 30 hours = 240 + 1440 + 120 minutes.
    tw.track(
        at(days_ago(3), 20, 0, 0),
        at(days_ago(1), 2, 0, 0),
        &["writing"],
    );
    let mapping = mapping_file(&tw.dir, MAPPING);
    let pairs = tw.env();
    let env = tw.run_env(&pairs, &key);
    let run = run_sync(
        &["timewarrior", "--mapping", &mapping, "--url", &app.address],
        &env,
        None,
    )
    .await;
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        (
            run.summary["split"].as_u64(),
            run.summary["entries"].as_u64()
        ),
        (Some(1), Some(3))
    );
    let mut pieces: Vec<(String, i64)> = app
        .mappings(&key)
        .await
        .iter()
        .map(|m| {
            (
                m["occurred_at"].as_str().expect("at").to_owned(),
                m["minutes"].as_i64().expect("n"),
            )
        })
        .collect();
    pieces.sort();
    let expected = vec![
        (crate::harness::stamp(at(days_ago(3), 20, 0, 0)), 240),
        (crate::harness::stamp(days_ago(2)), 1440),
        (crate::harness::stamp(days_ago(1)), 120),
    ];
    assert_eq!(pieces, expected);
    assert_eq!(app.work_patterns(&key).await["total_minutes"], 1800);
}
