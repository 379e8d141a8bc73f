//! Keyset pagination shared by the listings: newest first by `(time, id)`, one row over-fetched
//! to learn whether another page follows.

use domain::pagination::{Cursor, PageLimit};
use time::PrimitiveDateTime;

use crate::convert::to_db;

/// The row limit to ask for: one more than the page holds.
pub(super) fn overfetch(limit: PageLimit) -> i64 {
    i64::from(limit.get()) + 1
}

/// The cursor as stored values: ids are compared as the UUID strings they are stored as, which
/// order like the UUIDs themselves (fixed-width lower-case hex).
pub(super) fn cursor_key(cursor: &Cursor) -> (PrimitiveDateTime, String) {
    (to_db(cursor.at), cursor.id.to_string())
}
