//! A saved export (`--input FILE` and `--input -`), no Timewarrior needed: batching, and that
//! both ways of reading give the same ids.

use crate::harness::{
    TempDir, days_ago, dry_run_from_stdin, gym_export, mapping_file, run_sync, spawn_app,
};

/// `n` closed intervals from six days ago ([`gym_export`]).
fn export(n: usize) -> String {
    gym_export(days_ago(6), n)
}

#[tokio::test(flavor = "multi_thread")]
async fn more_than_a_thousand_entries_go_in_batches_of_at_most_a_thousand_and_rerun_as_updates() {
    let app = spawn_app().await;
    let key = app.person_with_key("many@example.org").await;
    let dir = TempDir::new();
    let mapping = mapping_file(&dir, "[[rule]]\ntag = \"gym\"\nfoundation = \"strength\"\n");
    let text = export(2_100);
    let env = [("DISCOVERY_API_KEY", key.as_str())];

    let dry = dry_run_from_stdin(&mapping, text.clone()).await;
    assert_eq!(dry.code, 0, "{dry:?}");
    let sizes: Vec<usize> = dry
        .body_lines()
        .iter()
        .map(|b| b["items"].as_array().expect("items").len())
        .collect();
    assert_eq!(sizes, vec![1_000, 1_000, 100]);

    let first = run_sync(
        &[
            "timewarrior",
            "--mapping",
            &mapping,
            "--input",
            "-",
            "--url",
            &app.address,
        ],
        &env,
        Some(text.clone()),
    )
    .await;
    assert_eq!(first.code, 0, "{first:?}");
    let s = &first.summary;
    assert_eq!(
        (
            s["batches"].as_u64(),
            s["created"].as_u64(),
            s["updated"].as_u64()
        ),
        (Some(3), Some(2_100), Some(0)),
        "{s}"
    );

    // The same export from a file: the same ids, so every entry is an update.
    let file = dir.write("export.json", &text);
    let second = run_sync(
        &[
            "timewarrior",
            "--mapping",
            &mapping,
            "--input",
            &file,
            "--url",
            &app.address,
        ],
        &env,
        None,
    )
    .await;
    assert_eq!(second.code, 0, "{second:?}");
    let s = &second.summary;
    assert_eq!(
        (s["created"].as_u64(), s["updated"].as_u64()),
        (Some(0), Some(2_100)),
        "{s}"
    );

    assert_eq!(app.mappings(&key).await.len(), 2_100);
    let pattern = app.work_patterns(&key).await;
    assert_eq!(pattern["total_minutes"], 6_300, "{pattern}");
    assert_eq!(crate::harness::minutes_of(&pattern, "strength"), 6_300);
}
