//! The generated files, one per importer, each of `rows` rows over the last year in UTC: a
//! Toggl and a Clockify detailed report (one entry per row), an ActivityWatch export (one
//! window event per row, 240 an hour, under one not-afk period) and a calendar (one weekly
//! event per 52 rows, two seconds apart, every occurrence a row).

use std::io::Write;
use std::path::Path;

use time::macros::format_description;
use time::{Duration, OffsetDateTime};

/// Events per hour of the ActivityWatch export: one every 15 s, 10 s long.
pub(crate) const EVENTS_PER_HOUR: usize = 240;

fn start_of() -> OffsetDateTime {
    let now = OffsetDateTime::now_utc().replace_nanosecond(0).unwrap();
    now - Duration::days(366)
}

/// Row `i` of a report: its start and length in seconds, one every `step` seconds.
fn entry(first: OffsetDateTime, rows: usize, i: usize) -> (OffsetDateTime, i64) {
    let step = (365 * 86_400 / rows as i64).max(1);
    (
        first + Duration::seconds(step * i as i64),
        60 * (1 + (i as i64 * 7) % 30),
    )
}

/// One row of a report, its cells formatted.
struct Cells {
    i: usize,
    start_date: String,
    start_time: String,
    end_date: String,
    end_time: String,
    seconds: i64,
}

/// A report: `header`, then a row per entry in `date` and `clock` formats, made by `row`.
fn report(
    path: &Path,
    rows: usize,
    header: &str,
    (date, clock): (
        &[time::format_description::BorrowedFormatItem<'_>],
        &[time::format_description::BorrowedFormatItem<'_>],
    ),
    row: impl Fn(&Cells) -> String,
) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    out.write_all(header.as_bytes()).unwrap();
    let first = start_of();
    for i in 0..rows {
        let (start, seconds) = entry(first, rows, i);
        let end = start + Duration::seconds(seconds);
        let cells = Cells {
            i,
            start_date: start.format(date).unwrap(),
            start_time: start.format(clock).unwrap(),
            end_date: end.format(date).unwrap(),
            end_time: end.format(clock).unwrap(),
            seconds,
        };
        out.write_all(row(&cells).as_bytes()).unwrap();
    }
    out.flush().unwrap();
}

pub(crate) fn toggl(path: &Path, rows: usize) {
    report(
        path,
        rows,
        "User,Email,Client,Project,Task,Description,Billable,Start date,Start time,End date,\
         End time,Duration,Tags,Amount (USD)\r\n",
        (
            format_description!("[year]-[month]-[day]"),
            format_description!("[hour]:[minute]:[second]"),
        ),
        |c| {
            format!(
                "Ada,ada@example.org,,Website,,Checkout totals {},No,{},{},{},{},00:{:02}:00,\"dev, review\",0.00\r\n",
                c.i % 50,
                c.start_date,
                c.start_time,
                c.end_date,
                c.end_time,
                c.seconds / 60,
            )
        },
    );
}

pub(crate) fn clockify(path: &Path, rows: usize) {
    report(
        path,
        rows,
        "Project,Client,Description,Task,User,Group,Email,Tags,Billable,Start Date,Start Time,\
         End Date,End Time,Duration (h),Duration (decimal),Billable Rate (USD),Billable Amount \
         (USD)\n",
        (
            format_description!("[month]/[day]/[year]"),
            format_description!("[hour repr:12]:[minute]:[second] [period]"),
        ),
        |c| {
            format!(
                "Website,,Checkout totals {},,Ada,,ada@example.org,\"dev, review\",No,{},{},{},{},00:{:02}:00,{:.2},0.00,0.00\n",
                c.i % 50,
                c.start_date,
                c.start_time,
                c.end_date,
                c.end_time,
                c.seconds / 60,
                c.seconds as f64 / 3_600.0,
            )
        },
    );
}

/// The export; the number of hours it covers.
pub(crate) fn activitywatch(path: &Path, rows: usize) -> usize {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let first = start_of()
        .replace_minute(0)
        .unwrap()
        .replace_second(0)
        .unwrap();
    let stamp = |at: OffsetDateTime| {
        at.format(&time::format_description::well_known::Rfc3339)
            .unwrap()
    };
    out.write_all(
        br#"{"buckets": {"aw-watcher-window_laptop": {"type": "currentwindow", "hostname": "laptop", "events": ["#,
    )
    .unwrap();
    let apps = ["Firefox", "Code", "Terminal", "Slack", "Thunderbird"];
    for i in 0..rows {
        let at = first + Duration::seconds(15 * i as i64);
        write!(
            out,
            r#"{}{{"id": {i}, "timestamp": "{}", "duration": 10.0, "data": {{"app": "{}", "title": "Quarterly report {i}.odt"}}}}"#,
            if i == 0 { "" } else { ", " },
            stamp(at),
            apps[(i / EVENTS_PER_HOUR) % apps.len()],
        )
        .unwrap();
    }
    let hours = rows.div_ceil(EVENTS_PER_HOUR);
    write!(
        out,
        r#"]}}, "aw-watcher-afk_laptop": {{"type": "afkstatus", "hostname": "laptop", "events": [{{"timestamp": "{}", "duration": {}, "data": {{"status": "not-afk"}}}}]}}}}}}"#,
        stamp(first),
        hours * 3_600,
    )
    .unwrap();
    out.flush().unwrap();
    hours
}

/// The calendar: `rows / 52` weekly events of 52 occurrences each (and one shorter), at
/// distinct minutes; the range to import it with.
pub(crate) fn calendar(path: &Path, rows: usize) -> (String, String) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let day = format_description!("[year][month][day]T[hour][minute][second]Z");
    let first = start_of().replace_second(0).unwrap();
    out.write_all(b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\n")
        .unwrap();
    let events = rows.div_ceil(52);
    for e in 0..events {
        let count = (rows - e * 52).min(52);
        let start = first + Duration::seconds(2 * e as i64);
        write!(
            out,
            "BEGIN:VEVENT\r\nUID:event-{e}@example.org\r\nDTSTAMP:20260101T000000Z\r\n\
             DTSTART:{}\r\nDURATION:PT{}M\r\nRRULE:FREQ=WEEKLY;COUNT={count}\r\n\
             SUMMARY:Meeting {}\r\nCATEGORIES:team,weekly\r\nEND:VEVENT\r\n",
            start.format(day).unwrap(),
            15 + e % 45,
            e % 50,
        )
        .unwrap();
    }
    out.write_all(b"END:VCALENDAR\r\n").unwrap();
    out.flush().unwrap();
    let date = format_description!("[year]-[month]-[day]");
    (
        first.date().format(date).unwrap(),
        (first + Duration::days(7 * 52 + 1))
            .date()
            .format(date)
            .unwrap(),
    )
}
