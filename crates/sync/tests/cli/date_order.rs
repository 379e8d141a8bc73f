//! Day-first Clockify reports through the binary: the order is taken from the file, and a file
//! that cannot tell is refused (exit 2) before anything is sent.

use crate::harness::{run_sync, spawn_app};

fn fixture(name: &str) -> String {
    format!(
        "{}/tests/fixtures/import/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_day_first_report_needs_no_flag_and_an_ambiguous_one_is_refused_sending_nothing() {
    let app = spawn_app().await;
    let key = app.person_with_key("elena@example.org").await;
    let env = [("DISCOVERY_API_KEY", key.as_str())];
    let run_on = |file: String, more: &'static [&'static str]| {
        let address = app.address.clone();
        async move {
            let mut args = vec![
                "clockify".to_owned(),
                "--csv".to_owned(),
                file,
                "--utc-offset".to_owned(),
                "+01:00".to_owned(),
                "--url".to_owned(),
                address,
            ];
            args.extend(more.iter().map(|a| (*a).to_owned()));
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            run_sync(&args, &env, None).await
        }
    };

    let ambiguous = run_on(fixture("clockify_24h_day_first.csv"), &[]).await;
    assert_eq!(ambiguous.code, 2, "{ambiguous:?}");
    let error = ambiguous.summary["error"].as_str().expect("an error");
    assert!(
        error.contains("--day-first") && error.contains("nothing was sent"),
        "{error}"
    );
    assert!(app.mappings(&key).await.is_empty());

    let asked = run_on(fixture("clockify_24h_day_first.csv"), &["--day-first"]).await;
    assert_eq!(asked.code, 0, "{asked:?}");
    assert_eq!(asked.summary["entries"], 2);

    let detected = run_on(fixture("clockify_day_first_detected.csv"), &[]).await;
    assert_eq!(detected.code, 0, "{detected:?}");
    // Its 3 April standup is the one imported just before (same person, same start): updated.
    // The other entry of that import, 3 April 17:45, is not in this export of the same days:
    // swept.
    let s = &detected.summary;
    assert_eq!(
        [
            &s["rows"],
            &s["skipped"],
            &s["created"],
            &s["updated"],
            &s["swept"]
        ],
        [4, 0, 3, 1, 1],
        "{s}"
    );
    let starts: Vec<String> = app
        .mappings(&key)
        .await
        .iter()
        .map(|m| m["occurred_at"].as_str().expect("a time").to_owned())
        .collect();
    assert!(
        starts.iter().any(|s| s.starts_with("2026-04-03T08:00:00")),
        "{starts:?}"
    );
    assert!(
        !starts.iter().any(|s| s.starts_with("2026-03-04")),
        "{starts:?}"
    );
}
