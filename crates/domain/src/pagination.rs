//! Cursor pagination: a page size within the contract's limits and an opaque cursor that points
//! just past the last item of the previous page (ordered by time, then id).

use std::fmt;
use std::str::FromStr;

use time::OffsetDateTime;
use uuid::Uuid;

/// Items per page: 1 to 1,000, default 100.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageLimit(u16);

/// A limit outside 1-1,000.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("limit must be between 1 and 1000")]
pub struct InvalidLimit;

impl PageLimit {
    pub const DEFAULT: Self = Self(100);
    pub const MAX: u16 = 1_000;

    /// # Errors
    /// [`InvalidLimit`] outside 1-1,000.
    pub fn new(value: i64) -> Result<Self, InvalidLimit> {
        u16::try_from(value)
            .ok()
            .filter(|v| (1..=Self::MAX).contains(v))
            .map(Self)
            .ok_or(InvalidLimit)
    }

    #[must_use]
    pub const fn get(self) -> u16 {
        self.0
    }
}

impl Default for PageLimit {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Where the next page starts: strictly older than `(at, id)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    pub at: OffsetDateTime,
    pub id: Uuid,
}

/// A cursor string that was not made by this service.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("before is not a valid cursor")]
pub struct InvalidCursor;

impl fmt::Display for Cursor {
    /// `<unix microseconds>_<uuid>`: opaque to clients, readable in a log.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let micros = self.at.unix_timestamp_nanos() / 1_000;
        write!(f, "{micros}_{}", self.id.simple())
    }
}

impl FromStr for Cursor {
    type Err = InvalidCursor;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (micros, id) = s.split_once('_').ok_or(InvalidCursor)?;
        let micros: i128 = micros.parse().map_err(|_| InvalidCursor)?;
        let at =
            OffsetDateTime::from_unix_timestamp_nanos(micros * 1_000).map_err(|_| InvalidCursor)?;
        let id = Uuid::try_parse(id).map_err(|_| InvalidCursor)?;
        Ok(Self { at, id })
    }
}

/// One page of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// Present when more items may follow.
    pub next_cursor: Option<Cursor>,
}

impl<T> Page<T> {
    /// Builds a page from up to `limit + 1` fetched rows: the extra row only says "there is more".
    pub fn from_overfetch(mut rows: Vec<T>, limit: PageLimit, key: impl Fn(&T) -> Cursor) -> Self {
        let limit = usize::from(limit.get());
        let next_cursor = if rows.len() > limit {
            rows.truncate(limit);
            rows.last().map(key)
        } else {
            None
        };
        Self {
            items: rows,
            next_cursor,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn cursors_round_trip_and_reject_foreign_strings() {
        let c = Cursor {
            at: datetime!(2026-11-22 10:00:00.123_456 UTC),
            id: Uuid::now_v7(),
        };
        assert_eq!(c.to_string().parse::<Cursor>(), Ok(c));
        for bad in [
            "",
            "abc",
            "12_notauuid",
            "x_0190b3c1d2e37f0a8b9c0d1e2f3a4b5c",
        ] {
            assert_eq!(bad.parse::<Cursor>(), Err(InvalidCursor), "{bad}");
        }
    }

    #[test]
    fn limits_run_from_one_to_a_thousand() {
        assert!(PageLimit::new(0).is_err());
        assert!(PageLimit::new(1_001).is_err());
        assert_eq!(PageLimit::default().get(), 100);
    }

    #[test]
    fn an_overfetched_row_yields_a_cursor_at_the_last_kept_item() {
        let at = datetime!(2026-11-22 10:00 UTC);
        let key = |n: &u128| Cursor {
            at,
            id: Uuid::from_u128(*n),
        };
        let limit = PageLimit::new(2).unwrap();
        let page = Page::from_overfetch(vec![1, 2, 3], limit, key);
        assert_eq!(page.items, [1, 2]);
        assert_eq!(page.next_cursor, Some(key(&2)));
        assert_eq!(
            Page::from_overfetch(vec![1, 2], limit, key).next_cursor,
            None
        );
    }
}
