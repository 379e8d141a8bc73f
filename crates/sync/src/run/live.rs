//! `discovery-sync activitywatch --server URL`: the complete hours since the last run, read
//! from a running aw-server ([`crate::awserver`]) and sent as the export importer sends a file
//! (the same entries and ids: host, app and hour), a day at a time. The cursor
//! ([`crate::cursor`]) moves past each day only once that day's batches were accepted, so a
//! failed run is simply run again; sending an hour twice updates it, never doubles it.
//!
//! An hour is complete once it ended [`SETTLE`] ago: the watchers send their heartbeats a
//! little late. Some events come later still (a watcher that was offline sends its queue when
//! it is back, a heartbeat is merged into an event already there), so each run also reads
//! again the complete hours of a recent window ([`Live::reread`], `--reread-hours`, by
//! default [`REREAD`]) before the cursor, never before where the first run started: an hour
//! read again is sent again under the same ids, and the service updates it, so a late event
//! lands and nothing is counted twice. Nothing is swept.

use std::path::PathBuf;

use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use super::{client_for, deliver_streamed};
use crate::Failure;
use crate::awserver::AwServer;
use crate::client::Totals;
use crate::cursor;
use crate::import::ImportError;
use crate::import::activitywatch::{self, ExportOptions};
use crate::items::{Batches, pieces_of};
use crate::zone::{Zone, rfc3339};

/// How long after an hour ends it counts as complete.
pub const SETTLE: Duration = Duration::minutes(5);

/// How far back before the cursor each run reads again, for late events.
pub const REREAD: Duration = Duration::hours(24);

/// How far back the first run (no state file) starts without `--since`.
pub const FIRST_RUN: Duration = Duration::days(7);

/// What a live run needs besides the service's flags.
#[derive(Debug, Clone)]
pub struct Live {
    /// aw-server's base URL.
    pub server: String,
    /// The state file; `None` for the default under the XDG state directory.
    pub state: Option<PathBuf>,
    /// Where the first run starts (no state file yet); ignored once there is one.
    pub since: Option<OffsetDateTime>,
    /// The window before the cursor read again each run, for late events.
    pub reread: Duration,
    /// The person's zone: the hours are its hours (UTC's where its offset is whole hours).
    pub zone: Zone,
    pub strict: bool,
    pub dry_run: bool,
    /// The service's URL.
    pub url: String,
}

/// The counts of a live run, for the summary line.
#[derive(Debug, Default)]
pub struct LiveReport {
    pub events: usize,
    pub entries: usize,
    pub skipped: usize,
    pub warnings: usize,
    pub totals: Totals,
    pub dry_run: bool,
    /// The hours read: `[from, to)`; `None` when no hour was complete since the last run.
    pub from: Option<OffsetDateTime>,
    pub to: Option<OffsetDateTime>,
    pub state: Option<PathBuf>,
}

impl LiveReport {
    /// The summary line's fields.
    #[must_use]
    pub fn json(&self) -> Value {
        let stamp = |at: Option<OffsetDateTime>| {
            at.and_then(|a| {
                a.format(&time::format_description::well_known::Rfc3339)
                    .ok()
            })
        };
        json!({
            "dry_run": self.dry_run,
            "server": true,
            "from": stamp(self.from),
            "to": stamp(self.to),
            "rows": self.events,
            "entries": self.entries,
            "skipped": self.skipped,
            "warnings": self.warnings,
            "batches": self.totals.batches,
            "created": self.totals.created,
            "updated": self.totals.updated,
            "state": self.state.as_ref().map(|p| p.display().to_string()),
        })
    }
}

/// Runs one live import as of `now`: the counts, and the failure that stopped it if one did.
pub fn run(live: &Live, now: OffsetDateTime) -> (LiveReport, Result<(), Failure>) {
    let mut report = LiveReport {
        dry_run: live.dry_run,
        ..LiveReport::default()
    };
    let result = run_into(&mut report, live, now);
    (report, result)
}

fn run_into(report: &mut LiveReport, live: &Live, now: OffsetDateTime) -> Result<(), Failure> {
    let client = client_for(&live.url, live.dry_run)?;
    let server = AwServer::new(&live.server)?;
    let state = state_path(live).ok_or_else(|| {
        Failure::Usage(
            "no state directory: set XDG_STATE_HOME or HOME, or pass --state FILE".to_owned(),
        )
    })?;
    report.state = Some(state.clone());
    let end = live.zone.hour_of(now - SETTLE);
    let saved = cursor::read_state(&state)?;
    if let Some(saved) = saved.filter(|s| s.imported_until > now) {
        eprintln!(
            "warning: the state file {} says the hours up to {} were imported, later than \
             now ({}): was the clock wrong when it was written, or is it now? Until then only \
             the hours from {} on are read (again); delete or edit the file to read from an \
             earlier hour",
            state.display(),
            rfc3339(saved.imported_until),
            rfc3339(now),
            rfc3339(live.zone.hour_of(end - live.reread)),
        );
    }
    let (start, first) = window(saved.as_ref(), live, now, end);
    if start >= end {
        eprintln!(
            "nothing to import: no hour has completed since {}",
            rfc3339(start)
        );
        return Ok(());
    }
    report.from = Some(start);
    let buckets = server.buckets()?;
    if buckets.is_empty() {
        eprintln!("aw-server has no window or AFK bucket: nothing to import");
    }
    let mut from = start;
    while from < end {
        let to = (from + Duration::DAY).min(end);
        send_range(report, live, &server, &buckets, client.as_ref(), (from, to))?;
        if !live.dry_run {
            // Hours read again never move the cursor back.
            let until = saved.map_or(to, |s| s.imported_until.max(to));
            cursor::write_state(
                &state,
                &cursor::State {
                    imported_until: until,
                    imported_from: Some(first),
                    last_read: Some((start, to)),
                },
            )?;
        }
        report.to = Some(to);
        from = to;
    }
    Ok(())
}

/// The first hour this run reads, and where the first run started: from the cursor, less the
/// window read again (never before the first run's start), or from `--since` on a first run.
fn window(
    saved: Option<&cursor::State>,
    live: &Live,
    now: OffsetDateTime,
    end: OffsetDateTime,
) -> (OffsetDateTime, OffsetDateTime) {
    let Some(saved) = saved else {
        let first = live.zone.hour_of(live.since.unwrap_or(now - FIRST_RUN));
        return (first, first);
    };
    // Whole hours: an hour read in two parts would be sent twice, the second time short.
    let cursor = live.zone.hour_of(saved.imported_until);
    let mut start = cursor.min(live.zone.hour_of(end - live.reread));
    if let Some(first) = saved.imported_from {
        start = start.max(live.zone.hour_of(first)).min(cursor);
    }
    (start, saved.imported_from.unwrap_or(start))
}

/// Reads and sends the hours of `range`.
fn send_range(
    report: &mut LiveReport,
    live: &Live,
    server: &AwServer,
    buckets: &serde_json::Map<String, Value>,
    client: Option<&crate::client::Client>,
    (from, to): (OffsetDateTime, OffsetDateTime),
) -> Result<(), Failure> {
    let export = server.export(buckets, from, to)?;
    let text = serde_json::to_vec(&export)
        .map_err(|e| Failure::Failed(format!("cannot encode the events read: {e}")))?;
    let parsed = activitywatch::parse(
        text.as_slice(),
        ExportOptions {
            strict: live.strict,
            zone: Some(live.zone.clone()),
        },
    )
    .map_err(|e| match e {
        ImportError::Event { .. } => Failure::Failed(format!(
            "{e} (--strict: nothing from {} on was sent; the state file was not moved)",
            rfc3339(from)
        )),
        other => Failure::Failed(format!("aw-server's events: {other}")),
    })?;
    for s in &parsed.skipped {
        eprintln!("skipped {}: {}", s.locator(), s.reason);
    }
    for w in &parsed.warnings {
        eprintln!("warning {}: {}", w.at, w.message);
    }
    report.events += parsed.events;
    report.skipped += parsed.skipped.len();
    report.warnings += parsed.warnings.len();
    // Hours: never long enough to be cut.
    let utc = Zone::Fixed(time::UtcOffset::UTC);
    let items: usize = parsed.entries.iter().map(|e| pieces_of(e, &utc)).sum();
    report.entries += items;
    let (totals, result) = deliver_streamed(items, client, |batch| {
        let mut batches = Batches::new(batch);
        for entry in parsed.entries {
            if !batches.push(entry) {
                break;
            }
        }
        batches.finish();
        Ok(())
    });
    report.totals.batches += totals.batches;
    report.totals.created += totals.created;
    report.totals.updated += totals.updated;
    result
}

/// The state file a run uses: `--state`, else the default for its server.
#[must_use]
pub fn state_path(live: &Live) -> Option<PathBuf> {
    live.state.clone().or_else(|| {
        url::Url::parse(live.server.trim())
            .ok()
            .and_then(|u| cursor::default_path(&u))
    })
}
