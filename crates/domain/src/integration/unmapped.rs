//! The unmapped view (`GET /integration/unmapped`): entries no rule and no tracker gave a
//! foundation, grouped by label and tags, largest first — what the person still has to classify.

use time::OffsetDateTime;

use crate::integration::Window;
use crate::pagination::PageLimit;

/// One label-and-tags group of unmapped entries in a window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnmappedGroup {
    pub task_label: Option<String>,
    pub tags: Vec<String>,
    pub minutes: i64,
    pub entries: i64,
    pub last_occurred_at: OffsetDateTime,
}

/// Which unmapped entries to group: those in the window, at most `limit` groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnmappedQuery {
    pub window: Window,
    pub limit: PageLimit,
}
