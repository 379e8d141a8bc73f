//! `discovery-sync activitywatch --server`: the complete hours since the last run, read from
//! an aw-server over its REST API, into the real service; the cursor in its state file. Run
//! against the stub ([`crate::aw_stub`]) always, against the real aw-server-rust when
//! `PEER_AW_SERVER` names its binary and against the Python aw-server when `PEER_AW_SERVER_PY`
//! names its script (each skipped with a notice otherwise: [`crate::aw_peer`]).

use std::collections::BTreeMap;

use serde_json::{Value, json};
use sha2::Digest as _;
use time::format_description::well_known::Rfc3339;
use time::{Duration, OffsetDateTime};

use crate::aw_peer::Flavor;
use crate::aw_stub::{AwStub, Bucket};
use crate::harness::{App, TempDir, run_sync, spawn_app};

/// The start of `at`'s UTC hour.
fn hour_of(at: OffsetDateTime) -> OffsetDateTime {
    at.replace_time(time::Time::from_hms(at.hour(), 0, 0).unwrap())
}

/// `activitywatch:` + 16 hex digits of SHA-256 over `[host, app, hour]`, computed here
/// independently: the ids a file import of the same events gives.
fn id(host: &str, app: &str, hour: OffsetDateTime) -> String {
    let hour = hour.format(&Rfc3339).unwrap();
    let canonical = serde_json::to_string(&[host, app, hour.as_str()]).unwrap();
    let digest = hex::encode(sha2::Sha256::digest(canonical.as_bytes()));
    format!("activitywatch:{}", &digest[..16])
}

/// Three hours on `laptop` up to the last complete one, `base`..: Code and Firefox windows,
/// an AFK gap, and a window from the hour not yet complete on.
struct Scenario {
    base: OffsetDateTime,
    /// The hour not complete yet (it ends less than five minutes from now, or later).
    open_hour: OffsetDateTime,
    buckets: Vec<Bucket>,
}

fn scenario() -> Scenario {
    let open_hour = hour_of(OffsetDateTime::now_utc() - Duration::minutes(5));
    let base = open_hour - Duration::hours(3);
    let at = |h: i64, m: i64| base + Duration::hours(h) + Duration::minutes(m);
    let window = |app: &str| json!({"app": app, "title": "private title"});
    let status = |s: &str| json!({"status": s});
    let buckets = vec![
        Bucket {
            id: "aw-watcher-window_laptop".into(),
            kind: "currentwindow".into(),
            hostname: "laptop".into(),
            events: vec![
                (at(0, 10), 1_800.0, window("Code")),
                (at(0, 50), 1_800.0, window("Firefox")),
                (at(2, 0), 1_200.0, window("Code")),
                // From the hour not complete yet: left for a later run.
                (open_hour, 10_800.0, window("Code")),
            ],
        },
        Bucket {
            id: "aw-watcher-afk_laptop".into(),
            kind: "afkstatus".into(),
            hostname: "laptop".into(),
            events: vec![
                (at(0, 0), 7_800.0, status("not-afk")),
                (at(2, 10), 300.0, status("afk")),
                (at(2, 15), 10_000.0 + 7_200.0, status("not-afk")),
            ],
        },
        Bucket {
            // Not a window or AFK bucket: never read.
            id: "aw-watcher-web-firefox".into(),
            kind: "web.tab.current".into(),
            hostname: "laptop".into(),
            events: vec![(at(0, 0), 3_600.0, json!({"url": "https://example.org"}))],
        },
    ];
    Scenario {
        base,
        open_hour,
        buckets,
    }
}

impl Scenario {
    /// The entries a run over `[from, to)` makes: id to (hour, app, minutes).
    fn expected(
        &self,
        from: OffsetDateTime,
        to: OffsetDateTime,
    ) -> BTreeMap<String, (String, i64)> {
        let b = self.base;
        let h = |n: i64| b + Duration::hours(n);
        [
            (h(0), "Code", 30),
            (h(0), "Firefox", 10),
            (h(1), "Firefox", 20),
            // 2:00-2:20 less the AFK 2:10-2:15.
            (h(2), "Code", 15),
            // Complete only when a run comes after the hour ended.
            (self.open_hour, "Code", 60),
            (self.open_hour + Duration::hours(1), "Code", 60),
        ]
        .into_iter()
        .filter(|(hour, _, _)| *hour >= from && *hour < to)
        .map(|(hour, app, minutes)| (id("laptop", app, hour), (app.to_owned(), minutes)))
        .collect()
    }
}

/// What the service holds from ActivityWatch: id to (label, minutes).
async fn stored(app: &App, key: &str, base: OffsetDateTime) -> BTreeMap<String, (String, i64)> {
    app.mappings_between(key, base - Duration::hours(2), base + Duration::hours(12))
        .await
        .into_iter()
        .map(|m| {
            (
                m["external_task_id"].as_str().unwrap().to_owned(),
                (
                    m["task_label"].as_str().unwrap_or_default().to_owned(),
                    m["minutes"].as_i64().unwrap(),
                ),
            )
        })
        .collect()
}

fn time_of(summary: &Value, field: &str) -> OffsetDateTime {
    OffsetDateTime::parse(summary[field].as_str().unwrap(), &Rfc3339).unwrap()
}

/// A run that reads from the cursor only (`--reread-hours 0`): the cursor's own story.
async fn live_run(app: &App, key: &str, server: &str, state: &str) -> crate::harness::Run {
    live_run_rereading(app, key, server, state, None).await
}

/// A run that also reads again `reread` hours before the cursor (`None`: none; `Some("")`:
/// the default window).
async fn live_run_rereading(
    app: &App,
    key: &str,
    server: &str,
    state: &str,
    reread: Option<&str>,
) -> crate::harness::Run {
    let since = (OffsetDateTime::now_utc() - Duration::days(1))
        .date()
        .to_string();
    let mut args = vec![
        "activitywatch",
        "--server",
        server,
        "--state",
        state,
        "--since",
        &since,
        "--url",
        &app.address,
    ];
    match reread {
        None => args.extend(["--reread-hours", "0"]),
        Some("") => {}
        Some(hours) => args.extend(["--reread-hours", hours]),
    }
    run_sync(&args, &[("DISCOVERY_API_KEY", key)], None).await
}

/// The whole story against one aw-server at `server`: a first run from --since, the cursor,
/// a run that fails to upload and leaves it, and a run from an older cursor that updates.
async fn live_story(server: &str, scenario: &Scenario) {
    let app = spawn_app().await;
    let key = app.person_with_key("live@example.org").await;
    let dir = TempDir::new();
    let state = dir.path.join("state/aw.json");
    let state = state.to_str().unwrap();

    let first = live_run(&app, &key, server, state).await;
    assert_eq!(first.code, 0, "{first:?}");
    let (from, to) = (
        time_of(&first.summary, "from"),
        time_of(&first.summary, "to"),
    );
    let since = (OffsetDateTime::now_utc() - Duration::days(1)).date();
    assert_eq!(
        from,
        since.midnight().assume_utc(),
        "the first run starts at --since"
    );
    // Up to the hour not complete when the scenario was made (or the next, had the clock
    // passed five past the hour since).
    assert!(
        to == scenario.open_hour || to == scenario.open_hour + Duration::hours(1),
        "{to}"
    );
    let expected = scenario.expected(from, to);
    assert!(
        expected.len() >= 4,
        "the scenario's four complete entries: {expected:?}"
    );
    assert_eq!(stored(&app, &key, scenario.base).await, expected);
    assert_eq!(first.summary["created"], expected.len());
    let cursor: Value = serde_json::from_str(&std::fs::read_to_string(state).unwrap()).unwrap();
    assert_eq!(time_of(&cursor, "imported_until"), to);
    assert!(!first.stdout.contains("private title") && !first.stderr.contains("private title"));

    // The cursor moved back two hours.
    let back = to - Duration::hours(2);
    let moved_back = json!({"imported_until": back.format(&Rfc3339).unwrap()});
    std::fs::write(state, moved_back.to_string()).unwrap();

    // The service away: the run fails and the cursor stays.
    let down = run_sync(
        &[
            "activitywatch",
            "--server",
            server,
            "--state",
            state,
            "--url",
            "http://127.0.0.1:9",
        ],
        &[("DISCOVERY_API_KEY", &key)],
        None,
    )
    .await;
    assert_eq!(down.code, 1, "{down:?}");
    let cursor_after: Value =
        serde_json::from_str(&std::fs::read_to_string(state).unwrap()).unwrap();
    assert_eq!(cursor_after, moved_back, "a failed run leaves the cursor");

    // Those two hours are sent again, and only update what is there.
    let again = live_run(&app, &key, server, state).await;
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(time_of(&again.summary, "from"), back);
    let to2 = time_of(&again.summary, "to");
    let resent = scenario.expected(back, to2);
    assert_eq!(again.summary["entries"], resent.len(), "{again:?}");
    let old = scenario.expected(back, to).len() as u64;
    assert_eq!(again.summary["updated"], old, "{again:?}");
    assert_eq!(
        again.summary["created"],
        resent.len() as u64 - old,
        "{again:?}"
    );
    assert_eq!(
        stored(&app, &key, scenario.base).await,
        scenario.expected(from, to2)
    );

    // A cursor off the hour (edited by hand) is read from its hour's start: the hour is sent
    // whole again, never its second part alone over the whole.
    let off = to2 - Duration::minutes(43);
    let edited = json!({"imported_until": off.format(&Rfc3339).unwrap()});
    std::fs::write(state, edited.to_string()).unwrap();
    let whole = live_run(&app, &key, server, state).await;
    assert_eq!(whole.code, 0, "{whole:?}");
    assert_eq!(time_of(&whole.summary, "from"), to2 - Duration::hours(1));
    let to3 = time_of(&whole.summary, "to");
    assert_eq!(
        stored(&app, &key, scenario.base).await,
        scenario.expected(from, to3)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn live_activitywatch_imports_complete_hours_once_and_keeps_its_cursor() {
    let scenario = scenario();
    let stub = AwStub::start(scenario.buckets.clone());
    live_story(&stub.url, &scenario).await;
    let requests = stub.requests.lock().unwrap().clone();
    assert!(
        requests.iter().any(|r| r == "/api/0/buckets/"),
        "{requests:?}"
    );
    assert!(
        !requests.iter().any(|r| r.contains("aw-watcher-web")),
        "only window and AFK buckets are read: {requests:?}"
    );
    // Each events request asks for whole hours, within a day.
    for r in requests.iter().filter(|r| r.contains("/events?")) {
        let url = url::Url::parse(&format!("http://stub{r}")).unwrap();
        let get = |n: &str| {
            let v = url
                .query_pairs()
                .find(|(k, _)| k == n)
                .unwrap()
                .1
                .into_owned();
            OffsetDateTime::parse(&v, &Rfc3339).unwrap()
        };
        let (start, end) = (get("start"), get("end"));
        assert!(start < end && end - start <= Duration::DAY, "{r}");
        assert_eq!(
            (start.minute(), start.second(), end.minute(), end.second()),
            (0, 0, 0, 0),
            "{r}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_is_not_aw_server_fails_and_moves_no_cursor() {
    let app = spawn_app().await;
    let key = app.person_with_key("live-bad@example.org").await;
    let dir = TempDir::new();
    let state = dir.path.join("aw.json");
    let state = state.to_str().unwrap();
    // The Discovery Service itself answers 404 to aw-server's paths.
    let run = live_run(&app, &key, &app.address, state).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.summary["error"]
            .as_str()
            .unwrap()
            .contains("/api/0/buckets/"),
        "{run:?}"
    );
    assert!(!std::path::Path::new(state).exists());
    let bad = run_sync(
        &[
            "activitywatch",
            "--server",
            "ftp://x",
            "--url",
            &app.address,
        ],
        &[("DISCOVERY_API_KEY", &key)],
        None,
    )
    .await;
    assert_eq!(bad.code, 2, "{bad:?}");
    let both = run_sync(
        &[
            "activitywatch",
            "--server",
            "http://127.0.0.1:5600",
            "--export",
            "x.json",
        ],
        &[],
        None,
    )
    .await;
    assert_eq!(both.code, 2, "{both:?}");
}

/// The real aw-server-rust (`PEER_AW_SERVER`, built by
/// crates/api-actix/benches/peer/build-aw-server.sh) on a random port over a scratch
/// directory: the scenario's buckets and events posted through its own API, then the same
/// story as against the stub.
#[tokio::test(flavor = "multi_thread")]
async fn live_activitywatch_against_the_real_aw_server() {
    live_against(Flavor::Rust).await;
}

/// [`live_activitywatch_against_the_real_aw_server`] against the Python aw-server from PyPI
/// (`PEER_AW_SERVER_PY`).
#[tokio::test(flavor = "multi_thread")]
async fn live_activitywatch_against_the_python_aw_server() {
    live_against(Flavor::Python).await;
}

async fn live_against(flavor: Flavor) {
    let scenario = scenario();
    let Some(peer) = real_aw_server(flavor, &scenario).await else {
        return;
    };
    live_story(&peer.url(""), &scenario).await;
}

/// The late event of [`late_story`]: Code from 1:30 to 1:40 of the scenario's second hour,
/// which the first run read whole before the event reached aw-server.
fn late_event(scenario: &Scenario) -> (OffsetDateTime, f64, Value) {
    (
        scenario.base + Duration::minutes(90),
        600.0,
        json!({"app": "Code", "title": "late"}),
    )
}

/// A first run, an event that reaches aw-server late inside an hour already read (added by
/// `add_late` to the window bucket), and a second run with the default window read again: the
/// event is imported, everything else is updated in place, nothing counted twice.
async fn late_story(
    server: &str,
    scenario: &Scenario,
    add_late: impl AsyncFnOnce((OffsetDateTime, f64, Value)),
) {
    let app = spawn_app().await;
    let key = app.person_with_key("late@example.org").await;
    let dir = TempDir::new();
    let state = dir.path.join("aw.json");
    let state = state.to_str().unwrap();
    let first = live_run_rereading(&app, &key, server, state, Some("")).await;
    assert_eq!(first.code, 0, "{first:?}");
    let from = time_of(&first.summary, "from");
    let to = time_of(&first.summary, "to");
    let before = scenario.expected(from, to);
    assert_eq!(stored(&app, &key, scenario.base).await, before);

    add_late(late_event(scenario)).await;
    let second = live_run_rereading(&app, &key, server, state, Some("")).await;
    assert_eq!(second.code, 0, "{second:?}");
    let to2 = time_of(&second.summary, "to");
    let hour = scenario.base + Duration::hours(1);
    let mut after = scenario.expected(from, to2);
    after.insert(id("laptop", "Code", hour), ("Code".to_owned(), 10));
    assert_eq!(stored(&app, &key, scenario.base).await, after);
    // Only the late entry is new; what the first run sent is updated, not added again.
    let new_hours = after.len() - before.len() - 1;
    assert_eq!(second.summary["created"], 1 + new_hours, "{second:?}");
    assert_eq!(second.summary["updated"], before.len(), "{second:?}");
    // The second run read the 24 hours before the cursor again (not before --since), which
    // holds the late event's hour; the state file says what was read.
    let reread_from = time_of(&second.summary, "from");
    assert_eq!(
        reread_from,
        from.max(to2 - Duration::hours(24)),
        "{second:?}"
    );
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(state).unwrap()).unwrap();
    assert_eq!(time_of(&saved, "imported_until"), to2);
    assert_eq!(time_of(&saved, "imported_from"), from);
    assert_eq!(time_of(&saved["last_read"], "from"), reread_from);
    assert_eq!(time_of(&saved["last_read"], "to"), to2);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_event_that_reaches_aw_server_late_is_imported_by_the_next_run_without_double_counting()
{
    let scenario = scenario();
    let stub = AwStub::start(scenario.buckets.clone());
    let buckets = std::sync::Arc::clone(&stub.buckets);
    late_story(&stub.url, &scenario, async move |event| {
        let mut buckets = buckets.lock().unwrap();
        let window = buckets
            .iter_mut()
            .find(|b| b.id == "aw-watcher-window_laptop")
            .unwrap();
        window.events.push(event);
    })
    .await;
}

/// The real aw-server of `flavor` started and given the scenario's buckets; `None`, with a
/// notice, when its variable names no program.
async fn real_aw_server(flavor: Flavor, scenario: &Scenario) -> Option<crate::aw_peer::Peer> {
    let binary = flavor.program()?;
    let peer = crate::aw_peer::Peer::start(flavor, &binary);
    post_buckets(&peer, scenario).await;
    Some(peer)
}

/// The scenario's buckets and events posted to the real aw-server through its own API.
async fn post_buckets(peer: &crate::aw_peer::Peer, scenario: &Scenario) {
    let http = reqwest::Client::new();
    for bucket in &scenario.buckets {
        let created = http
            .post(peer.url(&format!("/api/0/buckets/{}", bucket.id)))
            .json(&json!({"client": "discovery-test", "type": bucket.kind, "hostname": bucket.hostname}))
            .send()
            .await
            .unwrap();
        assert!(created.status().is_success(), "{created:?}");
        post_events(peer, &bucket.id, &bucket.events).await;
    }
}

/// Events posted to a bucket of the real aw-server, as a watcher posts them.
async fn post_events(
    peer: &crate::aw_peer::Peer,
    bucket: &str,
    events: &[(OffsetDateTime, f64, Value)],
) {
    let events: Vec<Value> = events
        .iter()
        .map(|(at, seconds, data)| {
            json!({"timestamp": at.format(&Rfc3339).unwrap(), "duration": seconds, "data": data})
        })
        .collect();
    let posted = reqwest::Client::new()
        .post(peer.url(&format!("/api/0/buckets/{bucket}/events")))
        .json(&events)
        .send()
        .await
        .unwrap();
    assert!(posted.status().is_success(), "{posted:?}");
}

/// [`late_story`] against the real aw-server-rust (`PEER_AW_SERVER`), the late event posted
/// through its API as a watcher that was offline posts its queue.
#[tokio::test(flavor = "multi_thread")]
async fn a_late_event_against_the_real_aw_server() {
    late_against(Flavor::Rust).await;
}

/// [`a_late_event_against_the_real_aw_server`] against the Python aw-server from PyPI
/// (`PEER_AW_SERVER_PY`).
#[tokio::test(flavor = "multi_thread")]
async fn a_late_event_against_the_python_aw_server() {
    late_against(Flavor::Python).await;
}

async fn late_against(flavor: Flavor) {
    let scenario = scenario();
    let Some(peer) = real_aw_server(flavor, &scenario).await else {
        return;
    };
    let url = peer.url("");
    late_story(&url, &scenario, async |event| {
        post_events(&peer, "aw-watcher-window_laptop", &[event]).await;
    })
    .await;
}

/// An event whose duration is absurd (`1e300` seconds, as a broken watcher may post) is
/// skipped and counted (exit 3), not a panic, and the hours around it are imported.
#[tokio::test(flavor = "multi_thread")]
async fn an_absurd_duration_from_aw_server_is_skipped_and_counted() {
    let mut scenario = scenario();
    scenario.buckets[0].events.push((
        scenario.base + Duration::minutes(30),
        1e300,
        json!({"app": "Broken"}),
    ));
    let stub = AwStub::start(scenario.buckets.clone());
    let app = spawn_app().await;
    let key = app.person_with_key("absurd@example.org").await;
    let dir = TempDir::new();
    let state = dir.path.join("aw.json");
    let run = live_run(&app, &key, &stub.url, state.to_str().unwrap()).await;
    assert_eq!(run.code, 3, "{run:?}");
    // Once per day of hours read that the event overlaps (it never ends).
    assert!(run.summary["skipped"].as_u64() >= Some(1), "{run:?}");
    assert!(
        run.stderr.contains("bad duration 1e300 (over a century"),
        "{}",
        run.stderr
    );
    let (from, to) = (time_of(&run.summary, "from"), time_of(&run.summary, "to"));
    assert_eq!(
        stored(&app, &key, scenario.base).await,
        scenario.expected(from, to)
    );
}
