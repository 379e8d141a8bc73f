//! `--timezone` through the binary: each date at its own offset, not the machine's zone by default,
//! an unknown zone or two zone flags refused as bad usage.

use serde_json::Value;

use crate::harness::{TempDir, run_sync};

const REPORT: &str = "User,Email,Project,Description,Start date,Start time,Duration,Tags\r\n\
                      Ada,ada@example.org,Web,Winter,2026-03-28,09:00:00,01:00:00,\r\n\
                      Ada,ada@example.org,Web,Summer,2026-03-30,09:00:00,01:00:00,\r\n";

async fn starts(flags: &[&str], env: &[(&str, &str)]) -> Vec<Value> {
    let dir = TempDir::new();
    let file = dir.write("report.csv", REPORT);
    let mut args = vec!["toggl", "--csv", &file, "--dry-run"];
    args.extend_from_slice(flags);
    let run = run_sync(&args, env, None).await;
    assert_eq!(run.code, 0, "{run:?}");
    run.body_lines()
        .iter()
        .flat_map(|b| b["items"].as_array().expect("items").clone())
        .map(|i| i["occurred_at"].clone())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn each_date_takes_its_zones_offset_and_the_machines_zone_is_not_the_default() {
    let named = starts(&["--timezone", "Europe/Berlin"], &[]).await;
    assert_eq!(named, ["2026-03-28T08:00:00Z", "2026-03-30T07:00:00Z"]);
    // The default is the account's zone (crate::account_zone); with no key to read it, UTC,
    // whatever the machine's zone.
    let machine = starts(&[], &[("TZ", "Europe/Berlin")]).await;
    assert_eq!(machine, ["2026-03-28T09:00:00Z", "2026-03-30T09:00:00Z"]);
    let fixed = starts(&["--utc-offset", "+01:00"], &[("TZ", "Europe/Berlin")]).await;
    assert_eq!(fixed, ["2026-03-28T08:00:00Z", "2026-03-30T08:00:00Z"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_zone_or_both_zone_flags_are_bad_usage() {
    let dir = TempDir::new();
    let file = dir.write("report.csv", REPORT);
    for flags in [
        &["--timezone", "Mars/Olympus"][..],
        &["--timezone", "Europe/Berlin", "--utc-offset", "+01:00"][..],
    ] {
        let mut args = vec!["toggl", "--csv", &file, "--dry-run"];
        args.extend_from_slice(flags);
        let run = run_sync(&args, &[], None).await;
        assert_eq!(run.code, 2, "{run:?}");
        assert!(run.body_lines().is_empty(), "nothing printed to send");
    }
}
