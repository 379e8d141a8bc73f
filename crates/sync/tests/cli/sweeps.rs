//! Deletions and corrections in the tracker reach the server: after an import, the entries of
//! the same source in the file's range that the file no longer has are swept. Each case
//! imports a first export, then a second one of the same days, and checks that the server
//! then holds exactly what a dry run of the second export prints (ids, minutes, starts), and
//! that without the sweep (`--no-sweep`, the old behaviour) it would not.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::harness::{App, TempDir, run_sync, spawn_app};

const HEADER: &str = "User,Email,Client,Project,Task,Description,Billable,Start date,Start time,\
                      End date,End time,Duration,Tags,Amount (USD)";

/// A Toggl detailed report of `rows`: `(start date, start time, duration, description)`; the
/// end columns are not read.
fn toggl(rows: &[(&str, &str, &str, &str)]) -> String {
    let mut csv = format!("{HEADER}\r\n");
    for (date, time, duration, description) in rows {
        csv.push_str(&format!(
            "Ada,ada@example.org,,Website,,{description},No,{date},{time},{date},{time},{duration},,\r\n"
        ));
    }
    csv
}

/// `(id, minutes, occurred_at)`, as stored or as a dry run prints them.
type Row = (String, i64, String);

fn rows_of(items: &[Value]) -> BTreeSet<Row> {
    items
        .iter()
        .map(|m| {
            (
                m["external_task_id"].as_str().expect("an id").to_owned(),
                m["minutes"].as_i64().expect("minutes"),
                // Stored times come back as the service writes them; compare instants.
                time::OffsetDateTime::parse(
                    m["occurred_at"].as_str().expect("a time"),
                    &time::format_description::well_known::Rfc3339,
                )
                .expect("RFC 3339")
                .to_offset(time::UtcOffset::UTC)
                .format(&time::format_description::well_known::Rfc3339)
                .expect("formats"),
            )
        })
        .collect()
}

struct Import<'a> {
    app: &'a App,
    key: String,
    dir: TempDir,
}

impl<'a> Import<'a> {
    async fn new(app: &'a App, who: &str) -> Self {
        Self {
            app,
            key: app.person_with_key(&format!("{who}@example.org")).await,
            dir: TempDir::new(),
        }
    }

    async fn run(&self, csv: &str, offset: &str, more: &[&str]) -> crate::harness::Run {
        let file = self.dir.write("report.csv", csv);
        let mut args = vec![
            "toggl",
            "--csv",
            &file,
            "--utc-offset",
            offset,
            "--url",
            &self.app.address,
        ];
        args.extend_from_slice(more);
        let env = [("DISCOVERY_API_KEY", self.key.as_str())];
        let run = run_sync(
            &args,
            if more.contains(&"--dry-run") {
                &[]
            } else {
                &env
            },
            None,
        )
        .await;
        // 3 when rows were skipped (imported all the same), else 0.
        let skipped = run.summary["skipped"].as_u64().unwrap_or(0);
        assert_eq!(run.code, if skipped > 0 { 3 } else { 0 }, "{run:?}");
        run
    }

    /// What a dry run of `csv` would send.
    async fn planned(&self, csv: &str, offset: &str) -> BTreeSet<Row> {
        let run = self.run(csv, offset, &["--dry-run"]).await;
        assert_eq!(
            run.summary["swept"],
            Value::Null,
            "a dry run sweeps nothing"
        );
        let items: Vec<Value> = run
            .body_lines()
            .iter()
            .flat_map(|b| b["items"].as_array().expect("items").clone())
            .collect();
        rows_of(&items)
    }

    async fn stored(&self) -> BTreeSet<Row> {
        rows_of(&self.app.mappings(&self.key).await)
    }
}

/// Imports `first` then `second` (each at its offset) for a fresh person, with and without the
/// sweep: the sweep leaves exactly the second file's entries, deleting `stale` of them; without
/// it, stale entries stay (what the issue saw).
async fn second_import_leaves_exactly_its_own_entries(
    first: (&str, &str),
    second: (&str, &str),
    stale: u64,
) {
    let app = spawn_app().await;
    let swept = Import::new(&app, "swept").await;
    swept.run(first.0, first.1, &[]).await;
    let run = swept.run(second.0, second.1, &[]).await;
    assert_eq!(run.summary["swept"], stale, "{}", run.summary);
    let want = swept.planned(second.0, second.1).await;
    assert_eq!(swept.stored().await, want);
    if stale > 0 {
        assert!(
            run.stderr
                .contains(&format!("swept {stale} toggl:* entries")),
            "{}",
            run.stderr
        );
    }

    let kept = Import::new(&app, "kept").await;
    kept.run(first.0, first.1, &[]).await;
    let run = kept.run(second.0, second.1, &["--no-sweep"]).await;
    assert_eq!(run.summary["swept"], Value::Null);
    let stored = kept.stored().await;
    assert_eq!(
        stored.len() - want.len(),
        usize::try_from(stale).unwrap(),
        "{stored:?}"
    );
    assert!(want.is_subset(&stored));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_corrected_day_long_entry_leaves_no_stale_split_piece() {
    // 30 hours from 20:00 on the 10th, corrected in Toggl to 2 hours; a later day keeps the
    // file's range over the pieces.
    let later = ("2026-03-12", "09:00:00", "01:00:00", "Later");
    let long = toggl(&[("2026-03-10", "20:00:00", "30:00:00", "Marathon"), later]);
    let fixed = toggl(&[("2026-03-10", "20:00:00", "02:00:00", "Marathon"), later]);
    second_import_leaves_exactly_its_own_entries((&long, "+01:00"), (&fixed, "+01:00"), 2).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_entry_deleted_in_the_tracker_is_deleted_on_the_server() {
    let both = toggl(&[
        ("2026-03-10", "09:00:00", "01:00:00", "Kept"),
        ("2026-03-11", "14:00:00", "00:45:00", "Deleted"),
        ("2026-03-12", "09:00:00", "01:00:00", "Kept too"),
    ]);
    let one = toggl(&[
        ("2026-03-10", "09:00:00", "01:00:00", "Kept"),
        ("2026-03-12", "09:00:00", "01:00:00", "Kept too"),
    ]);
    second_import_leaves_exactly_its_own_entries((&both, "+01:00"), (&one, "+01:00"), 1).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_entry_whose_start_was_edited_is_not_counted_twice() {
    let before = toggl(&[("2026-03-10", "09:00:00", "01:00:00", "Moved")]);
    let after = toggl(&[("2026-03-10", "10:30:00", "01:00:00", "Moved")]);
    second_import_leaves_exactly_its_own_entries((&before, "+01:00"), (&after, "+01:00"), 1).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn importing_at_plus_ten_then_plus_one_leaves_what_plus_one_alone_gives() {
    // 26 hours from 09:00 local: cut at the local midnight, two pieces (15 h and 11 h) at
    // either offset, under the same ids: the second import moves both in place, and nothing
    // is left stale (when pieces were cut at UTC midnights, +10:00 made three and the third
    // had to be swept). A later day keeps the file's range over the pieces.
    let file = toggl(&[
        ("2026-03-10", "09:00:00", "26:00:00", "Offsite"),
        ("2026-03-12", "09:00:00", "01:00:00", "Later"),
    ]);
    second_import_leaves_exactly_its_own_entries((&file, "+10:00"), (&file, "+01:00"), 0).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_with_skipped_rows_is_not_swept_and_says_why() {
    let app = spawn_app().await;
    let import = Import::new(&app, "skipped").await;
    let both = toggl(&[
        ("2026-03-10", "09:00:00", "01:00:00", "Kept"),
        ("2026-03-10", "14:00:00", "00:45:00", "Later broken"),
    ]);
    import.run(&both, "+01:00", &[]).await;
    let broken = toggl(&[
        ("2026-03-10", "09:00:00", "01:00:00", "Kept"),
        ("2026-03-10", "14:00:00", "forty", "Later broken"),
    ]);
    let run = import.run(&broken, "+01:00", &["--max-skipped", "1"]).await;
    assert_eq!(run.summary["swept"], Value::Null);
    assert!(
        run.stderr.contains("not swept: 1 rows were skipped"),
        "{}",
        run.stderr
    );
    assert_eq!(
        import.stored().await.len(),
        2,
        "the entry of the broken row stays"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_corrected_day_long_entry_on_the_files_last_day_leaves_no_piece_after_it() {
    // The same correction as above, with nothing after it in the file: its old pieces lie past
    // the file's range, and are swept as that entry's own.
    let long = toggl(&[
        ("2026-03-09", "09:00:00", "01:00:00", "Before"),
        ("2026-03-10", "20:00:00", "30:00:00", "Marathon"),
    ]);
    let fixed = toggl(&[
        ("2026-03-09", "09:00:00", "01:00:00", "Before"),
        ("2026-03-10", "20:00:00", "02:00:00", "Marathon"),
    ]);
    second_import_leaves_exactly_its_own_entries((&long, "+01:00"), (&fixed, "+01:00"), 2).await;
}
