//! The account's time zone as the default, through the binary and the real service: a person's
//! zone set in their settings reads a file's times and cuts long entries at their midnights
//! (Toggl, Timewarrior), a live import's `--since` is a day of the zone in use, and a zone
//! that cannot be read is UTC with a warning on stderr.

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::aw_stub::AwStub;
use crate::harness::{App, Run, TempDir, run_sync, spawn_app};

/// A 26-hour entry from 10:00 local on 12 June 2026.
const LONG: &str = "User,Email,Project,Description,Start date,Start time,Duration,Tags\r\n\
                    Ada,ada@example.org,Web,Long,2026-06-12,10:00:00,26:00:00,\r\n";

/// `(external_task_id, occurred_at, minutes)` of every item in a dry run's bodies.
fn items(run: &Run) -> Vec<(String, String, i64)> {
    run.body_lines()
        .iter()
        .flat_map(|b| b["items"].as_array().expect("items").clone())
        .map(|i| {
            (
                i["external_task_id"].as_str().unwrap().to_owned(),
                i["occurred_at"].as_str().unwrap().to_owned(),
                i["minutes"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// The service, and the key of `email`, whose time zone is `zone`.
async fn person_in(email: &str, zone: &str) -> (App, String) {
    let app = spawn_app().await;
    let key = app.person_in_zone(email, Some(zone)).await;
    (app, key)
}

/// `(occurred_at, minutes)` of `items`.
fn days(items: &[(String, String, i64)]) -> Vec<(&str, i64)> {
    items.iter().map(|(_, at, m)| (at.as_str(), *m)).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn without_timezone_the_accounts_zone_reads_the_file_and_cuts_the_persons_days() {
    let (app, key) = person_in("berlin@example.org", "Europe/Berlin").await;
    let dir = TempDir::new();
    let file = dir.write("report.csv", LONG);
    // The machine says Asia/Tokyo: the account's zone wins.
    let env = [("DISCOVERY_API_KEY", key.as_str()), ("TZ", "Asia/Tokyo")];
    let args = ["toggl", "--csv", &file, "--url", &app.address];
    let dry = run_sync(&[&args[..], &["--dry-run"]].concat(), &env, None).await;
    assert_eq!(dry.code, 0, "{dry:?}");
    assert!(!dry.stderr.contains("warning"), "{}", dry.stderr);
    // 10:00 in Berlin (+02:00) to its midnight is 14 h, the rest of the 26 h the next day.
    let planned = items(&dry);
    assert_eq!(
        days(&planned),
        [("2026-06-12T08:00:00Z", 840), ("2026-06-12T22:00:00Z", 720)]
    );
    assert!(planned[1].0.ends_with(":d1"), "{planned:?}");

    let sent = run_sync(&args, &env, None).await;
    assert_eq!(sent.code, 0, "{sent:?}");
    assert_eq!(sent.summary["created"], 2, "{sent:?}");
    let mut stored: Vec<(String, i64)> = app
        .mappings(&key)
        .await
        .iter()
        .map(|m| {
            let at = OffsetDateTime::parse(m["occurred_at"].as_str().unwrap(), &Rfc3339).unwrap();
            (at.format(&Rfc3339).unwrap(), m["minutes"].as_i64().unwrap())
        })
        .collect();
    stored.sort();
    assert_eq!(
        stored,
        [
            ("2026-06-12T08:00:00Z".to_owned(), 840),
            ("2026-06-12T22:00:00Z".to_owned(), 720)
        ]
    );
}

/// A dry run of `timewarrior --server-rules` over `export` against `url`, with `flags`.
async fn timew_dry(url: &str, flags: &[&str], env: &[(&str, &str)], export: &str) -> Run {
    let mut args = vec![
        "timewarrior",
        "--server-rules",
        "--input",
        "-",
        "--dry-run",
        "--url",
        url,
    ];
    args.extend_from_slice(flags);
    run_sync(&args, env, Some(export.to_owned())).await
}

#[tokio::test(flavor = "multi_thread")]
async fn timewarrior_cuts_at_the_persons_midnight_and_asks_only_when_it_must() {
    let (app, key) = person_in("kolkata@example.org", "Asia/Kolkata").await;
    // 08:00 UTC on 12 June to 10:00 UTC on 13 June: 26 h.
    let export =
        r#"[{"id":1,"start":"20260612T080000Z","end":"20260613T100000Z","tags":["work"]}]"#;
    let env = [("DISCOVERY_API_KEY", key.as_str())];
    let run = |zone: &'static [&'static str]| timew_dry(&app.address, zone, &env, export);
    // The account's zone: Kolkata's midnight is 18:30 UTC.
    let account = run(&[]).await;
    assert_eq!(account.code, 0, "{account:?}");
    assert_eq!(
        days(&items(&account)),
        [("2026-06-12T08:00:00Z", 630), ("2026-06-12T18:30:00Z", 930)]
    );
    // --timezone wins over the account's: Berlin's midnight is 22:00 UTC.
    let given = run(&["--timezone", "Europe/Berlin"]).await;
    assert_eq!(given.code, 0, "{given:?}");
    assert_eq!(
        days(&items(&given)),
        [("2026-06-12T08:00:00Z", 840), ("2026-06-12T22:00:00Z", 720)]
    );

    // Nothing to cut: the zone changes nothing, so nothing is asked of the service and no key
    // is missed (a dry run without one, against no service).
    let short = r#"[{"id":1,"start":"20260612T080000Z","end":"20260612T090000Z","tags":["work"]}]"#;
    let quiet = timew_dry("http://127.0.0.1:9", &[], &[], short).await;
    assert_eq!(quiet.code, 0, "{quiet:?}");
    assert_eq!(quiet.stderr, "", "{quiet:?}");
}

/// The first hour a live dry run reads, from a first run with `--since <day>`.
fn from_of(run: &Run) -> String {
    assert_eq!(run.code, 0, "{run:?}");
    run.summary["from"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn since_is_a_day_of_the_zone_in_use() {
    let (app, key) = person_in("since@example.org", "Asia/Kolkata").await;
    let stub = AwStub::start(Vec::new());
    let dir = TempDir::new();
    let state = dir.path.join("aw.json");
    let day = (OffsetDateTime::now_utc() - time::Duration::days(2)).date();
    let since = day.to_string();
    let args = [
        "activitywatch",
        "--server",
        &stub.url,
        "--state",
        state.to_str().unwrap(),
        "--since",
        &since,
        "--dry-run",
        "--url",
        &app.address,
    ];
    let env = [("DISCOVERY_API_KEY", key.as_str())];
    let midnight = |offset: time::UtcOffset| {
        day.midnight()
            .assume_offset(offset)
            .to_offset(time::UtcOffset::UTC)
            .format(&Rfc3339)
            .unwrap()
    };
    // The account's Kolkata: the day starts at 18:30 UTC the day before.
    let account = run_sync(&args, &env, None).await;
    let kolkata = time::UtcOffset::from_hms(5, 30, 0).unwrap();
    assert_eq!(from_of(&account), midnight(kolkata));
    // --timezone wins over the account's: UTC's midnight.
    let given = run_sync(&[&args[..], &["--timezone", "UTC"]].concat(), &env, None).await;
    assert_eq!(from_of(&given), midnight(time::UtcOffset::UTC));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_zone_that_cannot_be_read_is_utc_with_a_warning() {
    let dir = TempDir::new();
    let file = dir.write("report.csv", LONG);
    // No key in a dry run, and a key for a service that does not answer: UTC either way,
    // whatever the machine's zone, and said on stderr.
    for env in [
        &[("TZ", "Europe/Berlin")][..],
        &[("TZ", "Europe/Berlin"), ("DISCOVERY_API_KEY", "some-key")][..],
    ] {
        let run = run_sync(
            &[
                "toggl",
                "--csv",
                &file,
                "--dry-run",
                "--url",
                "http://127.0.0.1:9",
            ],
            env,
            None,
        )
        .await;
        assert_eq!(run.code, 0, "{run:?}");
        assert_eq!(
            days(&items(&run)),
            [("2026-06-12T10:00:00Z", 840), ("2026-06-13T00:00:00Z", 720)]
        );
        let warning: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| l.starts_with("warning: the account's time zone could not be read"))
            .collect();
        assert_eq!(warning.len(), 1, "{}", run.stderr);
        assert!(warning[0].contains("UTC"), "{}", warning[0]);
        if env.len() == 2 {
            assert!(
                warning[0].contains("cannot reach http://127.0.0.1:9"),
                "{}",
                warning[0]
            );
        }
    }
}
