//! The same year of meetings, kept in Toggl, in Clockify and in a calendar, in Europe/Berlin
//! (issue 32, "done when"): the three imports send the same entries, start for start and
//! minute for minute, across both changes of clocks. The files are generated here as each
//! tool writes them: Toggl with ISO dates and a 24-hour clock, Clockify with US dates, a
//! 12-hour clock and its decimal duration format (so the end columns give the length), the
//! calendar as one weekly `RRULE` in `TZID=Europe/Berlin`. Two night shifts cross the changes
//! themselves: 01:30 to 03:30 local lasts one hour on 29 March and three on 25 October.

use std::collections::BTreeMap;

use serde_json::Value;
use time::macros::{date, format_description};
use time::{Date, Duration};

use crate::harness::{TempDir, run_sync};

/// The Mondays of 2026, 09:30 to 10:15 in Berlin.
fn mondays() -> Vec<Date> {
    (0..52)
        .map(|week| date!(2026 - 01 - 05) + Duration::weeks(week))
        .collect()
}

/// `(start day, start, end day, end, seconds)` of every meeting, in local time.
fn meetings() -> Vec<(Date, &'static str, Date, &'static str, u32)> {
    let mut all: Vec<_> = mondays()
        .into_iter()
        .map(|day| (day, "09:30:00", day, "10:15:00", 45 * 60))
        .collect();
    all.push((
        date!(2026 - 03 - 29),
        "01:30:00",
        date!(2026 - 03 - 29),
        "03:30:00",
        3_600,
    ));
    all.push((
        date!(2026 - 10 - 25),
        "01:30:00",
        date!(2026 - 10 - 25),
        "03:30:00",
        3 * 3_600,
    ));
    all
}

fn toggl() -> String {
    let iso = format_description!("[year]-[month]-[day]");
    let mut csv = "User,Email,Client,Project,Task,Description,Billable,Start date,Start time,\
                   End date,End time,Duration,Tags,Amount (USD)\r\n"
        .to_owned();
    for (day, start, end_day, end, seconds) in meetings() {
        csv.push_str(&format!(
            "Ada,ada@example.org,,Meetings,,Standup,No,{},{start},{},{end},{:02}:{:02}:{:02},,0.00\r\n",
            day.format(iso).unwrap(),
            end_day.format(iso).unwrap(),
            seconds / 3_600,
            seconds / 60 % 60,
            seconds % 60,
        ));
    }
    csv
}

fn clockify() -> String {
    let us = format_description!("[month]/[day]/[year]");
    let twelve = |clock: &str| {
        let (h, rest) = clock.split_once(':').unwrap();
        let h: u32 = h.parse().unwrap();
        let (h12, meridiem) = match h {
            0 => (12, "AM"),
            1..=11 => (h, "AM"),
            12 => (12, "PM"),
            _ => (h - 12, "PM"),
        };
        format!("{h12:02}:{rest} {meridiem}")
    };
    let mut csv = "Project,Client,Description,Task,User,Group,Email,Tags,Billable,Start Date,\
                   Start Time,End Date,End Time,Duration (h),Duration (decimal),Billable Rate \
                   (USD),Billable Amount (USD)\n"
        .to_owned();
    for (day, start, end_day, end, seconds) in meetings() {
        let hours = f64::from(seconds) / 3_600.0;
        csv.push_str(&format!(
            "Meetings,,Standup,,Ada,,ada@example.org,,No,{},{},{},{},{hours:.2},{hours:.2},0.00,0.00\n",
            day.format(us).unwrap(),
            twelve(start),
            end_day.format(us).unwrap(),
            twelve(end),
        ));
    }
    csv
}

fn calendar() -> String {
    let lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//discovery-sync tests//EN",
        "BEGIN:VEVENT",
        "UID:standup@example.org",
        "DTSTAMP:20251201T000000Z",
        "DTSTART;TZID=Europe/Berlin:20260105T093000",
        "DTEND;TZID=Europe/Berlin:20260105T101500",
        "RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=52",
        "SUMMARY:Standup",
        "END:VEVENT",
        "BEGIN:VEVENT",
        "UID:spring-night@example.org",
        "DTSTAMP:20251201T000000Z",
        "DTSTART;TZID=Europe/Berlin:20260329T013000",
        "DTEND;TZID=Europe/Berlin:20260329T033000",
        "SUMMARY:Standup",
        "END:VEVENT",
        "BEGIN:VEVENT",
        "UID:autumn-night@example.org",
        "DTSTAMP:20251201T000000Z",
        "DTSTART;TZID=Europe/Berlin:20261025T013000",
        "DTEND;TZID=Europe/Berlin:20261025T033000",
        "SUMMARY:Standup",
        "END:VEVENT",
        "END:VCALENDAR",
    ];
    lines.join("\r\n") + "\r\n"
}

/// The items a dry run would send, as `start -> minutes`.
async fn sent(args: &[&str]) -> BTreeMap<String, i64> {
    let run = run_sync(args, &[], None).await;
    assert_eq!(run.code, 0, "{run:?}");
    let mut items = BTreeMap::new();
    for item in run
        .body_lines()
        .iter()
        .flat_map(|b| b["items"].as_array().unwrap().clone())
    {
        let start = item["occurred_at"].as_str().unwrap().to_owned();
        let minutes = item["minutes"].as_i64().unwrap();
        assert_eq!(None, items.insert(start, minutes), "one entry per start");
    }
    assert_eq!(Value::from(items.len()), run.summary["entries"]);
    items
}

#[tokio::test(flavor = "multi_thread")]
async fn toggl_clockify_and_a_calendar_of_the_same_year_send_the_same_minutes_across_both_dst_changes()
 {
    let dir = TempDir::new();
    let (toggl, clockify, ics) = (
        dir.write("toggl.csv", &toggl()),
        dir.write("clockify.csv", &clockify()),
        dir.write("meetings.ics", &calendar()),
    );
    let zone = ["--timezone", "Europe/Berlin"];
    let from_toggl =
        sent(&[&["toggl", "--csv", toggl.as_str(), "--dry-run"][..], &zone].concat()).await;
    let from_clockify = sent(
        &[
            &[
                "clockify",
                "--csv",
                clockify.as_str(),
                "--month-first",
                "--dry-run",
            ][..],
            &zone,
        ]
        .concat(),
    )
    .await;
    let year = ["--from", "2026-01-01", "--to", "2026-12-31"];
    let from_ics = sent(
        &[
            &["ics", "--file", ics.as_str(), "--dry-run"][..],
            &zone,
            &year,
        ]
        .concat(),
    )
    .await;

    assert_eq!(from_toggl, from_clockify);
    assert_eq!(from_toggl, from_ics);
    assert_eq!(54, from_ics.len());
    // 52 meetings of 45 minutes, and the two nights: 60 and 180 minutes.
    assert_eq!(52 * 45 + 60 + 180, from_ics.values().sum::<i64>());
    // 09:30 in Berlin: 08:30 UTC in winter, 07:30 UTC in summer, and back.
    assert_eq!(Some(&45), from_ics.get("2026-03-23T08:30:00Z"));
    assert_eq!(Some(&45), from_ics.get("2026-03-30T07:30:00Z"));
    assert_eq!(Some(&45), from_ics.get("2026-10-19T07:30:00Z"));
    assert_eq!(Some(&45), from_ics.get("2026-10-26T08:30:00Z"));
    assert_eq!(Some(&60), from_ics.get("2026-03-29T00:30:00Z"));
    assert_eq!(Some(&180), from_ics.get("2026-10-24T23:30:00Z"));
}
