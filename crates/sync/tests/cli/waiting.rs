//! A person over their entries per minute (issue 43): the service answers `429` with
//! `Retry-After`, and discovery-sync waits that long and sends the batch again, so an import
//! that meets the limit still ends with everything in.

use std::time::Instant;

use crate::harness::{
    TempDir, days_ago, gym_export, import_from_stdin, mapping_file, spawn_app_with,
};

#[tokio::test(flavor = "multi_thread")]
async fn a_batch_over_the_entries_limit_waits_as_the_service_asks_and_is_sent_again() {
    // 60 a minute: one entry a second comes back once the 60 are spent.
    let app = spawn_app_with(&[("RATE_LIMIT_ENTRIES_PER_MINUTE", "60")]).await;
    let key = app.person_with_key("limited@example.org").await;
    let dir = TempDir::new();
    let mapping = mapping_file(&dir, "[[rule]]\ntag = \"gym\"\nfoundation = \"strength\"\n");
    let env = [("DISCOVERY_API_KEY", key.as_str())];
    let import = |text| import_from_stdin(&mapping, &app.address, &env, text);

    let first = import(gym_export(days_ago(6), 60)).await;
    assert_eq!(first.code, 0, "{first:?}");
    assert_eq!(first.summary["created"], 60, "{first:?}");
    assert!(!first.stderr.contains("asked to wait"), "{first:?}");

    // The budget is spent: these three are refused at first, then let in.
    let started = Instant::now();
    let second = import(gym_export(days_ago(5), 3)).await;
    assert_eq!(second.code, 0, "{second:?}");
    assert_eq!(second.summary["created"], 3, "{second:?}");
    assert!(
        second.stderr.contains("the service asked to wait") && second.stderr.contains("429"),
        "{second:?}"
    );
    assert!(
        started.elapsed() >= std::time::Duration::from_secs(1),
        "it waited: {:?}",
        started.elapsed()
    );
    assert_eq!(63, app.mappings(&key).await.len());
}
