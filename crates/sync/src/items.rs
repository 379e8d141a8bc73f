//! From imported entries to the task mappings sent: no foundation (the server's rules decide),
//! the entry's tags and label, and entries over 1,440 minutes split at each midnight of the
//! person's zone (the zone the file is read in; UTC where none is given), so that each of
//! their days holds the time spent on it.
//!
//! **Split ids.** The first piece keeps the entry's id; the piece starting `n` days later (in
//! that zone) gets `:d<n>` appended (`toggl:3f2a...:d1`). An entry that grows past a day keeps its first
//! id, and the suffix cannot meet the `:2` the CSV importers give a repeated start.

use time::Duration;

/// What comes between an entry's id and the day number of its later pieces.
pub const PIECE_MARK: &str = ":d";

use crate::client::MAX_BATCH;
use crate::entries::{Item, pieces_in};
use crate::import::ImportedEntry;
use crate::zone::Zone;

/// UTC: where an entry's zone is not known.
fn utc() -> Zone {
    Zone::Fixed(time::UtcOffset::UTC)
}

/// The items to send for `entries`, in order, and how many entries were split (at UTC
/// midnights).
#[must_use]
pub fn items_of(entries: &[ImportedEntry]) -> (Vec<Item>, usize) {
    into_items(entries.to_vec(), &utc())
}

/// [`items_of`], split at the midnights of `zone`.
#[must_use]
pub fn items_in(entries: &[ImportedEntry], zone: &Zone) -> (Vec<Item>, usize) {
    into_items(entries.to_vec(), zone)
}

/// How many items `entry` makes: one, or one per day of `zone` of an entry over 1,440
/// minutes.
#[must_use]
pub fn pieces_of(entry: &ImportedEntry, zone: &Zone) -> usize {
    let start = entry.occurred_at;
    pieces_in(
        start,
        start + Duration::minutes(i64::from(entry.minutes)),
        zone,
    )
    .len()
}

/// [`items_in`], taking the entries: their text moves into the items instead of being copied,
/// so a large import does not hold both.
#[must_use]
pub fn into_items(entries: Vec<ImportedEntry>, zone: &Zone) -> (Vec<Item>, usize) {
    let mut items = Vec::with_capacity(entries.len());
    let mut split = 0;
    for entry in entries {
        let start = entry.occurred_at;
        let parts = pieces_in(
            start,
            start + Duration::minutes(i64::from(entry.minutes)),
            zone,
        );
        if parts.len() > 1 {
            split += 1;
        }
        let local_day = |at| zone.to_local(at).map_or(at.date(), |l| l.date());
        let first_day = local_day(start);
        if let [(at, minutes)] = parts[..] {
            items.push(Item {
                external_task_id: entry.external_task_id,
                task_label: entry.task_label,
                tags: entry.tags,
                foundation: None,
                minutes,
                occurred_at: at,
            });
            continue;
        }
        items.extend(parts.into_iter().map(|(at, minutes)| {
            let days = (local_day(at) - first_day).whole_days();
            Item {
                external_task_id: if days == 0 {
                    entry.external_task_id.clone()
                } else {
                    format!("{}{PIECE_MARK}{days}", entry.external_task_id)
                },
                task_label: entry.task_label.clone(),
                tags: entry.tags.clone(),
                foundation: None,
                minutes,
                occurred_at: at,
            }
        }));
    }
    (items, split)
}

/// Entries made into items and handed on in batches of [`MAX_BATCH`] as they come: it never
/// holds more than one batch, however many entries pass through it (what lets an importer
/// stream a file of any size to the service).
pub struct Batches<F: FnMut(Vec<Item>) -> bool> {
    batch: Vec<Item>,
    flush: F,
    /// Items handed on so far, and entries split.
    pub items: usize,
    pub split: usize,
    /// `flush` answered `false`: the batches after it are dropped.
    stopped: bool,
    /// Whose midnights a long entry is cut at.
    zone: Zone,
}

impl<F: FnMut(Vec<Item>) -> bool> Batches<F> {
    /// Batches handed to `flush`, which answers `false` to stop (a batch failed); long
    /// entries cut at UTC midnights.
    pub fn new(flush: F) -> Self {
        Self::in_zone(flush, utc())
    }

    /// [`Batches::new`], long entries cut at the midnights of `zone`.
    pub fn in_zone(flush: F, zone: Zone) -> Self {
        Self {
            batch: Vec::with_capacity(MAX_BATCH),
            flush,
            items: 0,
            split: 0,
            stopped: false,
            zone,
        }
    }

    /// Adds `entry`'s items, handing on each batch that fills up. `false` once stopped.
    pub fn push(&mut self, entry: ImportedEntry) -> bool {
        let (items, split) = into_items(vec![entry], &self.zone);
        self.split += split;
        for item in items {
            self.batch.push(item);
            if self.batch.len() == MAX_BATCH {
                self.hand_on();
            }
        }
        !self.stopped
    }

    /// Hands on the last, partial batch; the items and entries split, in all.
    pub fn finish(mut self) -> (usize, usize) {
        if !self.batch.is_empty() {
            self.hand_on();
        }
        (self.items, self.split)
    }

    fn hand_on(&mut self) {
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(MAX_BATCH));
        if self.stopped {
            return;
        }
        self.items += batch.len();
        self.stopped = !(self.flush)(batch);
    }
}

impl<F: FnMut(Vec<Item>) -> bool> std::fmt::Debug for Batches<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batches")
            .field("held", &self.batch.len())
            .field("items", &self.items)
            .field("split", &self.split)
            .finish_non_exhaustive()
    }
}
