//! Failures that show: errors on stderr in words beside the JSON summary, exit 3 for an import
//! that skipped rows (so a timer notices), the exit codes in `--help`, aw-server's failures
//! named by their cause, times in RFC 3339 and a state file dated in the future warned of.

use time::{Duration, OffsetDateTime};

use crate::harness::{TempDir, run_sync};

const HEADER: &str = "User,Email,Project,Description,Start date,Start time,Duration,Tags";

/// A Toggl report of `good` rows and one bad one.
fn report(good: usize, bad: bool) -> String {
    let mut csv = format!("{HEADER}\n");
    for d in 0..good {
        csv.push_str(&format!(
            "Ada,ada@example.org,Web,Work,2026-03-{:02},09:00:00,01:00:00,\n",
            d + 1
        ));
    }
    if bad {
        csv.push_str("Ada,ada@example.org,Web,Work,2026-03-30,09:00:00,1h,\n");
    }
    csv
}

fn toggl(file: &str) -> Vec<&str> {
    vec!["toggl", "--csv", file, "--utc-offset", "Z", "--dry-run"]
}

#[tokio::test(flavor = "multi_thread")]
async fn an_import_with_skipped_rows_exits_3_and_a_clean_one_0() {
    let dir = TempDir::new();
    let partial = dir.write("partial.csv", &report(25, true));
    let run = run_sync(&toggl(&partial), &[], None).await;
    assert_eq!(run.code, 3, "{run:?}");
    assert_eq!(run.summary["ok"], true);
    assert_eq!(run.summary["skipped"], 1);
    assert!(run.stderr.contains("skipped line 27"), "{}", run.stderr);
    let clean = dir.write("clean.csv", &report(25, false));
    let run = run_sync(&toggl(&clean), &[], None).await;
    assert_eq!(run.code, 0, "{run:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn failures_are_told_on_stderr_in_words_as_well_as_in_the_summary() {
    let dir = TempDir::new();
    let missing = dir.path.join("missing.csv");
    let run = run_sync(&toggl(missing.to_str().unwrap()), &[], None).await;
    assert_eq!(run.code, 1, "{run:?}");
    let error = run.summary["error"].as_str().unwrap();
    assert!(
        run.stderr.contains(&format!("error: {error}")),
        "{}",
        run.stderr
    );
    // Bad usage found after the command line was read: exit 2, on stderr too.
    let run = run_sync(
        &[
            "toggl",
            "--csv",
            missing.to_str().unwrap(),
            "--url",
            "http://x",
        ],
        &[],
        None,
    )
    .await;
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("error: "), "{}", run.stderr);
}

#[test]
fn help_states_the_exit_codes() {
    for args in [
        &["--help"][..],
        &["toggl", "--help"],
        &["activitywatch", "--help"],
    ] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_discovery-sync"))
            .args(args)
            .output()
            .unwrap();
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(
            text.contains("Exit codes:")
                && text.contains("3  imported, but some rows were skipped")
                && text.contains("2  bad usage"),
            "{args:?}: {text}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_aw_server_that_refuses_the_connection_is_named_as_such() {
    // Nothing listens on a port just released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = TempDir::new();
    let state = dir.path.join("aw.json");
    let server = format!("http://127.0.0.1:{port}");
    let run = run_sync(
        &[
            "activitywatch",
            "--server",
            &server,
            "--state",
            state.to_str().unwrap(),
            "--dry-run",
        ],
        &[],
        None,
    )
    .await;
    assert_eq!(run.code, 1, "{run:?}");
    let error = run.summary["error"].as_str().unwrap();
    assert!(
        error.contains("cannot connect (is aw-server running") && error.contains("refused"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_state_file_dated_in_the_future_is_a_warning_and_times_read_as_rfc_3339() {
    let dir = TempDir::new();
    let future = OffsetDateTime::now_utc() + Duration::days(400);
    let future = future.replace_time(time::Time::MIDNIGHT);
    let stamp = future
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    let state = dir.write(
        "aw.json",
        &serde_json::json!({ "imported_until": stamp }).to_string(),
    );
    let run = run_sync(
        &[
            "activitywatch",
            "--server",
            "http://127.0.0.1:9",
            "--state",
            &state,
            "--reread-hours",
            "0",
            "--timezone",
            "UTC",
            "--dry-run",
        ],
        &[],
        None,
    )
    .await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr.contains("warning: the state file")
            && run
                .stderr
                .contains(&format!("up to {stamp} were imported, later than now")),
        "{}",
        run.stderr
    );
    // The hour it would read from, in RFC 3339.
    let since = run
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("nothing to import: no hour has completed since "))
        .unwrap_or_else(|| panic!("{}", run.stderr));
    assert!(
        OffsetDateTime::parse(since, &time::format_description::well_known::Rfc3339).is_ok(),
        "{since}"
    );
}
