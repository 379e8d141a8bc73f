//! What every page of a growing list shares: `{"items": [...], "next_cursor"}`. Each list has
//! its own named page type (e.g. `CheckInPage`), so the document names its items.

use domain::pagination::Page;

/// The cursor of the next page as the contract spells it; `None` on the last page.
#[must_use]
pub fn next_cursor<T>(page: &Page<T>) -> Option<String> {
    page.next_cursor.map(|c| c.to_string())
}
