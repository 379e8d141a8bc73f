//! From imported entries to the task mappings sent: no foundation (the server's rules decide),
//! the entry's tags and label, and entries over 1,440 minutes split at each UTC midnight.
//!
//! **Split ids.** The first piece keeps the entry's id; the piece starting `n` UTC days later
//! gets `:d<n>` appended (`toggl:3f2a...:d1`). An entry that grows past a day keeps its first
//! id, and the suffix cannot meet the `:2` the CSV importers give a repeated start.

use time::Duration;

/// What comes between an entry's id and the day number of its later pieces.
pub const PIECE_MARK: &str = ":d";

use crate::entries::{Item, pieces};
use crate::import::ImportedEntry;

/// The items to send for `entries`, in order, and how many entries were split.
#[must_use]
pub fn items_of(entries: &[ImportedEntry]) -> (Vec<Item>, usize) {
    into_items(entries.to_vec())
}

/// [`items_of`], taking the entries: their text moves into the items instead of being copied,
/// so a large import does not hold both.
#[must_use]
pub fn into_items(entries: Vec<ImportedEntry>) -> (Vec<Item>, usize) {
    let mut items = Vec::with_capacity(entries.len());
    let mut split = 0;
    for entry in entries {
        let start = entry.occurred_at;
        let parts = pieces(start, start + Duration::minutes(i64::from(entry.minutes)));
        if parts.len() > 1 {
            split += 1;
        }
        let first_day = start.date();
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
            let days = (at.date() - first_day).whole_days();
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
