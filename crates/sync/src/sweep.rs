//! After an import: deleting what the tracker no longer has (docs/api.md,
//! `POST /integration/task-mappings/sweep`). The export is the tracker's whole truth for the
//! time it covers, so an entry of the same source in that time that this run did not send
//! (deleted in the tracker, its start edited, a day-long entry shortened so a split piece is
//! gone, or an earlier import under another time zone) is deleted.
//!
//! - **What counts as sent.** The service stamps every create or update, even an identical
//!   one. The run reads the service's clock before its first batch ([`Client::server_time`]),
//!   and the sweep takes only entries stamped before it: what this run sent is always kept,
//!   whatever the machine's clock says.
//! - **Which time.** The file's range, [`Range`]: whole local days from the first entry's day to
//!   the last one's for the CSV reports (a report covers whole days), whole UTC hours for an
//!   ActivityWatch export.
//! - **Which entries.** The source's id prefix (`toggl:`), the person of the API key.
//! - **Split pieces past the range.** An entry of the file's last days that was once longer
//!   had pieces after the range (`<id>:d1`, ...): for each entry starting in the range's last
//!   [`TAIL`], its own later pieces not sent now are swept too ([`pieces_after`]), one call per
//!   such entry.
//! - **Bounds.** The service sweeps at most 366 days per call; a longer range is swept in
//!   consecutive calls ([`windows`]).

use serde_json::json;
use time::{Duration, OffsetDateTime};

use crate::Failure;
use crate::client::Client;
use crate::import::ImportedEntry;
use crate::items::PIECE_MARK;

/// The entries starting this close to the range's end have their later pieces swept one by one.
pub const TAIL: Duration = Duration::days(2);

/// The path of the sweep.
pub const SWEEP_PATH: &str = "/integration/task-mappings/sweep";

/// The longest range of one call, as the service bounds it.
pub const MAX_DAYS: i64 = domain::integration::MAX_SWEEP_DAYS;

/// The time a file covers, `[from, to)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    pub from: OffsetDateTime,
    pub to: OffsetDateTime,
}

/// `range` cut into consecutive windows of at most [`MAX_DAYS`] days, in order.
#[must_use]
pub fn windows(range: Range) -> Vec<Range> {
    let mut out = Vec::new();
    let mut from = range.from;
    while from < range.to {
        let to = (from + Duration::days(MAX_DAYS)).min(range.to);
        out.push(Range { from, to });
        from = to;
    }
    out
}

/// Sweeps `range` for `prefix`, window by window: how many entries the service deleted.
///
/// # Errors
/// The first call the service refuses or that cannot be made; the windows before it were swept.
pub fn sweep(
    client: &Client,
    prefix: &str,
    range: Range,
    not_sent_since: OffsetDateTime,
) -> Result<u64, Failure> {
    let stamp = |at: OffsetDateTime| {
        at.format(&time::format_description::well_known::Rfc3339)
            .map_err(|e| Failure::Failed(format!("cannot format a time: {e}")))
    };
    let mut deleted = 0;
    for window in windows(range) {
        let body = json!({
            "external_task_id_prefix": prefix,
            "from": stamp(window.from)?,
            "to": stamp(window.to)?,
            "not_sent_since": stamp(not_sent_since)?,
        });
        let answer = client.post_json(SWEEP_PATH, &body)?;
        deleted += answer["deleted"].as_u64().ok_or_else(|| {
            Failure::Failed(format!("unexpected answer from the service: {answer}"))
        })?;
    }
    Ok(deleted)
}

/// For each entry starting in the last [`TAIL`] of `range`, sweeps its own split pieces
/// (`<id>:d<n>`) after the range that were not sent since `not_sent_since`: how many went.
///
/// # Errors
/// As [`sweep`].
pub fn pieces_after(
    client: &Client,
    entries: &[ImportedEntry],
    range: Range,
    not_sent_since: OffsetDateTime,
) -> Result<u64, Failure> {
    let after = Range {
        from: range.to,
        to: range.to + Duration::days(MAX_DAYS),
    };
    let mut deleted = 0;
    for entry in entries.iter().filter(|e| e.occurred_at >= range.to - TAIL) {
        let prefix = format!("{}{PIECE_MARK}", entry.external_task_id);
        deleted += sweep(client, &prefix, after, not_sent_since)?;
    }
    Ok(deleted)
}
