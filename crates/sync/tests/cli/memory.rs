//! Streaming (issue 32, point 6): a 38 MB ActivityWatch export is read within 64 MB of peak
//! resident memory, measured by GNU time (`/usr/bin/time -f %M`, the child's `ru_maxrss`)
//! around the real binary's dry run. The export is generated here, written as it is made, with
//! every event's minutes known: each hour holds 240 window events of 10 s, one app per hour,
//! all inside one not-afk period, so every hour is one entry of exactly 40 minutes.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::harness::TempDir;

/// The size the issue measured (505 MB resident before streaming).
const EXPORT_BYTES: u64 = 38 * 1024 * 1024;
/// The aim.
const MAX_RSS_KB: u64 = 64 * 1024;
const EVENTS_PER_HOUR: u64 = 240;
const APPS: [&str; 5] = ["Firefox", "Code", "Terminal", "Slack", "Thunderbird"];
/// 2026-01-05T00:00:00Z.
const FIRST_HOUR: i64 = 1_767_571_200;

fn stamp(seconds: i64) -> String {
    let at = time::OffsetDateTime::from_unix_timestamp(seconds).unwrap();
    at.format(&time::format_description::well_known::Rfc3339)
        .unwrap()
}

/// Writes the export; the number of whole hours it holds.
fn write_export(path: &std::path::Path) -> u64 {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    write!(
        out,
        r#"{{"buckets": {{"aw-watcher-window_laptop": {{"id": "aw-watcher-window_laptop", "type": "currentwindow", "client": "aw-watcher-window", "hostname": "laptop", "created": "2026-01-05T00:00:00+00:00", "events": ["#
    )
    .unwrap();
    let mut written = 0u64;
    let mut hours = 0u64;
    while written < EXPORT_BYTES {
        for k in 0..EVENTS_PER_HOUR {
            let at = FIRST_HOUR + (hours * 3_600 + k * 15) as i64;
            let event = format!(
                r#"{}{{"id": {}, "timestamp": "{}", "duration": 10.0, "data": {{"app": "{}", "title": "Quarterly report draft {k} - notes on the meeting with the team.odt"}}}}"#,
                if hours == 0 && k == 0 { "" } else { ", " },
                hours * EVENTS_PER_HOUR + k,
                stamp(at),
                APPS[(hours % 5) as usize],
            );
            written += event.len() as u64;
            out.write_all(event.as_bytes()).unwrap();
        }
        hours += 1;
    }
    // One not-afk period over all of it, and a bucket of another type that is not read.
    write!(
        out,
        r#"]}}, "aw-watcher-afk_laptop": {{"type": "afkstatus", "hostname": "laptop", "events": [{{"timestamp": "{}", "duration": {}, "data": {{"status": "not-afk"}}}}]}}, "aw-watcher-web_laptop": {{"type": "web.tab.current", "hostname": "laptop", "events": [{{"timestamp": "{}", "duration": 5.0, "data": {{"url": "https://example.org"}}}}]}}}}}}"#,
        stamp(FIRST_HOUR),
        hours * 3_600,
        stamp(FIRST_HOUR),
    )
    .unwrap();
    out.flush().unwrap();
    hours
}

#[test]
fn a_38_mb_activitywatch_export_is_read_within_64_mb() {
    let time = std::path::Path::new("/usr/bin/time");
    assert!(
        time.exists(),
        "this test measures peak memory with GNU time: install it (Debian: apt-get install time)"
    );
    let dir = TempDir::new();
    let export = dir.path.join("export.json");
    let hours = write_export(&export);
    assert!(std::fs::metadata(&export).unwrap().len() >= EXPORT_BYTES);
    let output = Command::new(time)
        .args(["-f", "max-rss-kb %M"])
        .arg(env!("CARGO_BIN_EXE_discovery-sync"))
        .args(["activitywatch", "--dry-run", "--export"])
        .arg(&export)
        .env_clear()
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(Some(0), output.status.code(), "{stderr}");
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (summary, bodies) = lines.split_last().unwrap();
    // Every window event, and the one AFK event; the web bucket's event is not read.
    assert_eq!(
        hours * EVENTS_PER_HOUR + 1,
        summary["rows"].as_u64().unwrap()
    );
    let items: Vec<&Value> = bodies
        .iter()
        .flat_map(|b| b["items"].as_array().unwrap())
        .collect();
    assert_eq!(hours as usize, items.len());
    assert!(items.iter().all(|i| i["minutes"] == 40), "{:?}", items[0]);
    let rss_kb: u64 = stderr
        .lines()
        .find_map(|l| l.strip_prefix("max-rss-kb "))
        .unwrap_or_else(|| panic!("no figure from GNU time: {stderr}"))
        .trim()
        .parse()
        .unwrap();
    eprintln!("a {hours}-hour export of 38 MB: peak RSS {rss_kb} kB");
    assert!(
        rss_kb <= MAX_RSS_KB,
        "peak RSS {rss_kb} kB, over the aim of {MAX_RSS_KB} kB"
    );
}
