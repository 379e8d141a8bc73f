//! Timewarrior leaving the mapping to the server (`--server-rules`): every closed interval is
//! stored without a client foundation and with its tags, under the ids a mapping file gives,
//! and the rules (and later rule changes) classify it.

use serde_json::Value;
use time::Duration;

use crate::harness::{
    TempDir, days_ago, dry_run_from_stdin, mapping_file, minutes_of, run_sync, spawn_app,
};

/// `(start hour, minutes, tags)` of the closed intervals, two days ago, and one open interval.
const INTERVALS: &[(i64, i64, &[&str])] = &[
    (9, 90, &["writing"]),
    (11, 20, &["gym"]),
    (13, 46, &["writing", "deep work"]),
    (15, 10, &[]),
];

fn export() -> String {
    let format = time::macros::format_description!("[year][month][day]T[hour][minute][second]Z");
    let day = days_ago(2);
    let mut intervals: Vec<String> = INTERVALS
        .iter()
        .map(|(hour, minutes, tags)| {
            let from = day + Duration::hours(*hour);
            let to = from + Duration::minutes(*minutes);
            format!(
                r#"{{"start":"{}","end":"{}","tags":{}}}"#,
                from.format(format).expect("formats"),
                to.format(format).expect("formats"),
                serde_json::to_string(tags).expect("JSON")
            )
        })
        .collect();
    let open = days_ago(0).format(format).expect("formats");
    intervals.push(format!(r#"{{"start":"{open}","tags":["writing"]}}"#));
    format!("[\n{}\n]\n", intervals.join(",\n"))
}

/// The minutes of the closed intervals carrying `tag` (or untagged, for `None`).
fn minutes_with(tag: Option<&str>) -> i64 {
    INTERVALS
        .iter()
        .filter(|(_, _, tags)| match tag {
            Some(tag) => tags.contains(&tag),
            None => tags.is_empty(),
        })
        .map(|(_, minutes, _)| minutes)
        .sum()
}

async fn post_rule(app: &crate::harness::App, key: &str, tag: &str, foundation: &str) {
    app.tag_rule(key, tag, foundation).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_mapping_file_the_servers_rules_classify_intervals_under_the_same_ids() {
    let app = spawn_app().await;
    let key = app.person_with_key("rules@example.org").await;
    post_rule(&app, &key, "writing", "vocation").await;
    let dir = TempDir::new();
    let input = dir.write("export.json", &export());
    let env = [("DISCOVERY_API_KEY", key.as_str())];
    let args = [
        "timewarrior",
        "--server-rules",
        "--input",
        &input,
        "--url",
        &app.address,
    ];

    let run = run_sync(&args, &env, None).await;
    assert_eq!(run.code, 0, "{run:?}");
    let closed = INTERVALS.len() as u64;
    assert_eq!(
        (
            run.summary["intervals"].as_u64(),
            run.summary["open"].as_u64(),
            run.summary["created"].as_u64()
        ),
        (Some(closed + 1), Some(1), Some(closed)),
        "{}",
        run.summary
    );

    // The ids a mapping file gives to the same export.
    let mapping = mapping_file(&dir, "default = \"love\"\n");
    let mapped = dry_run_from_stdin(&mapping, export()).await;
    let mut mapped_ids: Vec<String> = mapped.body_lines()[0]["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["external_task_id"].as_str().expect("id").to_owned())
        .collect();
    mapped_ids.sort();
    let stored = app.mappings(&key).await;
    let mut ids: Vec<String> = stored
        .iter()
        .map(|m| m["external_task_id"].as_str().expect("id").to_owned())
        .collect();
    ids.sort();
    assert_eq!(ids, mapped_ids);
    for m in &stored {
        let tags: Vec<&str> = m["tags"]
            .as_array()
            .expect("tags")
            .iter()
            .map(|t| t.as_str().expect("a tag"))
            .collect();
        let writing = tags.contains(&"writing");
        let expected = if writing {
            (Some("vocation"), Value::from("rule"))
        } else {
            (None, Value::Null)
        };
        assert_eq!(
            (m["foundation"].as_str(), m["mapped_by"].clone()),
            expected,
            "{m}"
        );
        let label = if tags.is_empty() {
            Value::Null
        } else {
            Value::from(tags.join(", "))
        };
        assert_eq!(m["task_label"], label, "{m}");
    }
    let pattern = app.work_patterns(&key).await;
    assert_eq!(
        minutes_of(&pattern, "vocation"),
        minutes_with(Some("writing"))
    );
    assert_eq!(
        pattern["unmapped_minutes"],
        minutes_with(Some("gym")) + minutes_with(None),
        "{pattern}"
    );

    // A rule added later classifies what was left unmapped, without sending again.
    post_rule(&app, &key, "gym", "strength").await;
    let pattern = app.work_patterns(&key).await;
    assert_eq!(minutes_of(&pattern, "strength"), minutes_with(Some("gym")));
    assert_eq!(pattern["unmapped_minutes"], minutes_with(None), "{pattern}");

    // A re-run updates the same rows.
    let again = run_sync(&args, &env, None).await;
    assert_eq!(
        (
            again.summary["created"].as_u64(),
            again.summary["updated"].as_u64()
        ),
        (Some(0), Some(closed)),
        "{}",
        again.summary
    );
    assert_eq!(app.mappings(&key).await.len(), INTERVALS.len());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_mapping_file_and_server_rules_together_are_bad_usage() {
    let dir = TempDir::new();
    let mapping = mapping_file(&dir, "default = \"love\"\n");
    let run = run_sync(
        &[
            "timewarrior",
            "--mapping",
            &mapping,
            "--server-rules",
            "--input",
            "-",
            "--dry-run",
        ],
        &[],
        Some(export()),
    )
    .await;
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.body_lines().is_empty());
}
