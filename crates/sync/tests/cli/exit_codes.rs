//! Exit codes a scheduler can trust: too many skipped rows, or nothing importable in a
//! non-empty file, is a failure (exit 1) and sends nothing; skipped rows within the limit are
//! imported with exit 3; `--skipped-file` lists the rows
//! skipped and why, as CSV.

use crate::harness::{TempDir, run_sync, spawn_app};

const HEADER: &str = "User,Email,Project,Description,Start date,Start time,Duration,Tags";

fn report(rows: &[(&str, &str)]) -> String {
    let mut csv = format!("{HEADER}\n");
    for (date, duration) in rows {
        csv.push_str(&format!(
            "Ada,ada@example.org,Web,Work,{date},09:00:00,{duration},\n"
        ));
    }
    csv
}

#[tokio::test(flavor = "multi_thread")]
async fn skipped_rows_over_the_limit_or_nothing_importable_fail_and_send_nothing() {
    let app = spawn_app().await;
    let key = app.person_with_key("ada@example.org").await;
    let env = [("DISCOVERY_API_KEY", key.as_str())];
    let dir = TempDir::new();
    // 1 bad row of 10: 10%, over the default 5%.
    let mut rows: Vec<(String, &str)> = (10..19)
        .map(|d| (format!("2026-03-{d}"), "01:00:00"))
        .collect();
    rows.push(("2026-03-20".to_owned(), "1h"));
    let rows: Vec<(&str, &str)> = rows.iter().map(|(d, t)| (d.as_str(), *t)).collect();
    let file = dir.write("ten.csv", &report(&rows));
    let skipped_file = dir.path.join("skipped.csv");
    let skipped_file = skipped_file.to_str().expect("UTF-8");
    let base = [
        "toggl",
        "--csv",
        &file,
        "--utc-offset",
        "Z",
        "--url",
        &app.address,
    ];
    let mut args = base.to_vec();
    args.extend(["--skipped-file", skipped_file]);
    let run = run_sync(&args, &env, None).await;
    assert_eq!(run.code, 1, "{run:?}");
    let error = run.summary["error"].as_str().expect("an error");
    assert!(
        error.contains("1 of 10 rows were skipped") && error.contains("5%"),
        "{error}"
    );
    assert_eq!(run.summary["created"], 0);
    assert!(app.mappings(&key).await.is_empty(), "nothing was sent");
    let written = std::fs::read_to_string(skipped_file).expect("the skipped file");
    assert_eq!(
        written,
        "where,reason\nline 11,\"bad duration \"\"1h\"\" (expected H:MM:SS, H:MM or decimal hours)\"\n"
    );

    // A higher limit lets it through, and the same with a count: imported, with the skipped
    // row told by exit 3 (not 0), so that a timer notices.
    for limit in ["10%", "1"] {
        let mut args = base.to_vec();
        args.extend(["--max-skipped", limit]);
        let run = run_sync(&args, &env, None).await;
        assert_eq!(run.code, 3, "{limit}: {run:?}");
        assert_eq!(run.summary["ok"], true, "{limit}: {run:?}");
    }
    assert_eq!(app.mappings(&key).await.len(), 9);

    // Rows, but not one entry among them: a failure even when skipping is allowed.
    let bad = dir.write(
        "bad.csv",
        &report(&[("2026-03-10", "1h"), ("2026-03-11", "2h")]),
    );
    let run = run_sync(
        &[
            "toggl",
            "--csv",
            &bad,
            "--utc-offset",
            "Z",
            "--url",
            &app.address,
            "--max-skipped",
            "100%",
        ],
        &env,
        None,
    )
    .await;
    assert_eq!(run.code, 1, "{run:?}");
    let error = run.summary["error"].as_str().expect("an error");
    assert!(
        error.starts_with("nothing to import: 2 rows read, 2 skipped"),
        "{error}"
    );
}
