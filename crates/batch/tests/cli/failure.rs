//! Failures: every job exits 1 with `"ok": false` and a reason, never printing the password of
//! `DATABASE_URL`; a command line clap refuses exits 2.

use crate::harness::{batch, run};

const PASSWORD: &str = "s3cr3t-Pa55word";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unusable_database_fails_every_job_without_printing_the_password() {
    let urls = [
        // Nothing listens on port 1.
        format!("postgres://batch:{PASSWORD}@127.0.0.1:1/discovery?connect_timeout=2"),
        format!("postgresql://batch:{PASSWORD}@127.0.0.1:1/discovery?connect_timeout=2"),
        // A scheme the service does not speak.
        format!("mysql://batch:{PASSWORD}@127.0.0.1/discovery"),
    ];
    for url in &urls {
        for job in [
            &["checkins"][..],
            &["prune-activity", "--days", "7"],
            &["migrate"],
        ] {
            let run = run(url, job).await;
            assert!(!run.success, "{run:?}");
            assert_eq!(run.code, Some(1), "{run:?}");
            assert_eq!(run.summary["job"], job[0]);
            assert_eq!(run.summary["ok"], false);
            let error = run.summary["error"].as_str().unwrap();
            assert!(!error.is_empty());
            assert!(
                !run.stdout.contains(PASSWORD) && !run.stderr.contains(PASSWORD),
                "{run:?}"
            );
        }
    }
}

#[test]
fn a_bad_command_line_exits_2_with_usage_on_stderr() {
    let output = batch("sqlite://unused.db", &["no-such-job"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    assert!(String::from_utf8_lossy(&output.stderr).contains("Usage"));
}
