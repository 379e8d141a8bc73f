//! Time as the domain sees it: UTC instants at microsecond precision, supplied by a [`Clock`].

use time::OffsetDateTime;

/// Supplies "now". Services take it as a port so tests can pin time.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait Clock: Send + Sync {
    fn now(&self) -> OffsetDateTime;
}

/// The real wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> OffsetDateTime {
        truncate_to_micros(OffsetDateTime::now_utc())
    }
}

/// A clock pinned at one instant, for tests and deterministic batch runs.
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub OffsetDateTime);

impl FixedClock {
    #[must_use]
    pub fn at(at: OffsetDateTime) -> Self {
        Self(truncate_to_micros(at))
    }
}

impl Clock for FixedClock {
    fn now(&self) -> OffsetDateTime {
        self.0
    }
}

/// Both databases keep microseconds at most (PostgreSQL's limit), so every instant the domain
/// produces is cut to microseconds and round-trips through either backend unchanged.
#[must_use]
pub fn truncate_to_micros(at: OffsetDateTime) -> OffsetDateTime {
    let at = at.to_offset(time::UtcOffset::UTC);
    let micros = at.nanosecond() / 1_000;
    at.replace_nanosecond(micros * 1_000).unwrap_or(at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn truncation_drops_sub_microsecond_digits_and_normalises_to_utc() {
        let at = datetime!(2026-11-22 10:00:00.123_456_789 +02:00);
        let cut = truncate_to_micros(at);
        assert_eq!(cut, datetime!(2026-11-22 08:00:00.123_456 UTC));
        assert_eq!(cut.offset(), time::UtcOffset::UTC);
    }
}
