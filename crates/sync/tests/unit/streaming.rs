//! The CSV importers stream: a report is read as it comes in and its entries leave in batches
//! of at most [`MAX_BATCH`] items while the rest of the file is still unread, so what an
//! import holds is bounded by a batch, not by the file.

use std::cell::Cell;
use std::io::Read;
use std::rc::Rc;

use discovery_sync::client::MAX_BATCH;
use discovery_sync::entries::Item;
use discovery_sync::import::{CsvOptions, Report, toggl};
use discovery_sync::items::Batches;
use time::macros::offset;

/// A reader that counts the bytes handed out so far.
struct Counting<R> {
    inner: R,
    read: Rc<Cell<usize>>,
}

impl<R: std::io::Seek> std::io::Seek for Counting<R> {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(to)
    }
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n);
        Ok(n)
    }
}

/// `rows` Toggl rows, one entry of 30 minutes each, every 40 minutes from 2026-01-01, with one
/// entry of 50 hours in the middle (split into three items).
fn toggl_report(rows: usize) -> String {
    let mut text = String::from(
        "User,Email,Project,Description,Start date,Start time,End date,End time,Duration,Tags\n",
    );
    let start = time::macros::datetime!(2026-01-01 00:00:00);
    for i in 0..rows {
        let at = start + time::Duration::minutes(40 * i64::try_from(i).unwrap());
        let duration = if i == rows / 2 {
            "50:00:00"
        } else {
            "00:30:00"
        };
        text.push_str(&format!(
            "Ana,ana@example.org,Site,Row {i},{},{:02}:{:02}:00,,,{duration},\"a, b\"\n",
            at.date(),
            at.hour(),
            at.minute()
        ));
    }
    text
}

/// What passed through: the size of each batch handed on, and how much of the file had been
/// read when it was.
fn batches_of(
    text: &str,
    read: impl FnOnce(Counting<&[u8]>, &mut dyn FnMut(discovery_sync::import::ImportedEntry) -> bool),
) -> (Vec<(usize, usize)>, usize, usize) {
    let consumed = Rc::new(Cell::new(0));
    let mut seen = Vec::new();
    let mut batches = Batches::new(|batch: Vec<Item>| {
        seen.push((batch.len(), consumed.get()));
        true
    });
    read(
        Counting {
            inner: text.as_bytes(),
            read: Rc::clone(&consumed),
        },
        &mut |entry| batches.push(entry),
    );
    let (items, split) = batches.finish();
    (seen, items, split)
}

#[test]
fn a_toggl_report_leaves_in_batches_while_most_of_it_is_unread() {
    let rows = 5_500;
    let text = toggl_report(rows);
    let options = CsvOptions::new(offset!(+1));
    let (seen, items, split) = batches_of(&text, |input, entry| {
        let parsed = Report::Toggl.stream(input, &options, entry).unwrap();
        assert!(
            parsed.entries.is_empty(),
            "the entries are handed on, not kept"
        );
        assert!(parsed.skipped.is_empty(), "{:?}", parsed.skipped.first());
        assert_eq!(
            parsed.local_days.map(|d| d.0),
            Some(time::macros::date!(2026 - 01 - 01))
        );
    });
    assert_eq!((items, split), (rows + 2, 1));
    let sizes: Vec<usize> = seen.iter().map(|s| s.0).collect();
    assert_eq!(
        sizes,
        vec![MAX_BATCH, MAX_BATCH, MAX_BATCH, MAX_BATCH, MAX_BATCH, 502]
    );
    // The first batch left before a third of the file was read, and each batch after the
    // reading had moved on: nothing waited for the end of the file.
    assert!(
        seen[0].1 < text.len() / 3,
        "{} of {}",
        seen[0].1,
        text.len()
    );
    assert!(seen.windows(2).all(|w| w[0].1 < w[1].1), "{seen:?}");
}

#[test]
fn a_clockify_report_streams_the_same_way_and_stops_when_told() {
    // The same rows under Clockify's column names.
    let text = toggl_report(3_000).replacen(",Duration,", ",Duration (h),", 1);
    let options = CsvOptions::new(offset!(+1));
    let (seen, items, _) = batches_of(&text, |input, entry| {
        Report::Clockify.stream(input, &options, entry).unwrap();
    });
    assert_eq!(items, 3_002);
    assert!(seen.iter().all(|s| s.0 <= MAX_BATCH), "{seen:?}");
    assert!(
        seen[0].1 < text.len() / 2,
        "{} of {}",
        seen[0].1,
        text.len()
    );

    // A sink that says stop ends the reading there.
    let mut taken = 0;
    Report::Clockify
        .stream(text.as_bytes(), &options, &mut |_| {
            taken += 1;
            taken < 10
        })
        .unwrap();
    assert_eq!(taken, 10);
}

#[test]
fn the_streamed_entries_are_the_parsed_ones() {
    let text = toggl_report(1_200);
    let options = CsvOptions::new(offset!(+1));
    let parsed = toggl::parse(text.as_bytes(), options.clone()).unwrap();
    let mut streamed = Vec::new();
    Report::Toggl
        .stream(text.as_bytes(), &options, &mut |e| {
            streamed.push(e);
            true
        })
        .unwrap();
    assert_eq!(streamed, parsed.entries);
}

/// `events` one-hour meetings on consecutive days from 2026-01-05 09:00 UTC, and an override
/// at the very end of the file moving the first one an hour later.
fn calendar(events: usize) -> String {
    let mut text = String::from("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n");
    let first = time::macros::date!(2026 - 01 - 05);
    for i in 0..events {
        let day = first + time::Duration::days(i64::try_from(i).unwrap());
        let (y, m, d) = (day.year(), u8::from(day.month()), day.day());
        text.push_str(&format!(
            "BEGIN:VEVENT\r\nUID:m{i}@example.org\r\nDTSTART:{y}{m:02}{d:02}T090000Z\r\n\
             DTEND:{y}{m:02}{d:02}T100000Z\r\nSUMMARY:Meeting {i}\r\nEND:VEVENT\r\n"
        ));
    }
    text.push_str(
        "BEGIN:VEVENT\r\nUID:m0@example.org\r\nRECURRENCE-ID:20260105T090000Z\r\n\
         DTSTART:20260105T100000Z\r\nDTEND:20260105T103000Z\r\nSUMMARY:Moved\r\nEND:VEVENT\r\n\
         END:VCALENDAR\r\n",
    );
    text
}

#[test]
fn a_calendar_is_read_twice_as_it_streams_and_its_entries_leave_during_the_second_pass() {
    use discovery_sync::import::ics::{IcsOptions, stream};
    let events = 3_000;
    let text = calendar(events);
    let options = IcsOptions {
        zone: discovery_sync::zone::Zone::Fixed(offset!(+1)),
        strict: true,
        from: time::macros::datetime!(2026-01-01 00:00 UTC),
        to: time::macros::datetime!(2035-01-01 00:00 UTC),
        owner: None,
    };
    let consumed = Rc::new(Cell::new(0));
    let mut seen = Vec::new();
    let mut batches = Batches::new(|batch: Vec<Item>| {
        seen.push((batch.len(), consumed.get()));
        true
    });
    let input = Counting {
        inner: std::io::Cursor::new(text.as_bytes()),
        read: Rc::clone(&consumed),
    };
    let mut first = None;
    let parsed = stream(input, &options, &mut |entry| {
        first.get_or_insert_with(|| entry.clone());
        batches.push(entry)
    })
    .unwrap();
    let (items, _) = batches.finish();
    assert!(parsed.entries.is_empty() && parsed.skipped.is_empty());
    assert_eq!(items, events);
    // The override at the end of the file applies to the first event.
    let first = first.unwrap();
    assert_eq!(
        (first.task_label.as_deref(), first.minutes),
        (Some("Moved"), 30)
    );
    assert!(seen.iter().all(|s| s.0 <= MAX_BATCH), "{seen:?}");
    // The first batch left when the second pass had read under half of the file.
    let length = text.len();
    assert!(
        seen[0].1 > length && seen[0].1 < length + length / 2,
        "{} of 2 x {length}",
        seen[0].1
    );
}
