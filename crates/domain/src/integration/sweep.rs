//! Sweeps: deleting what a tracker no longer has. An importer that re-reads a whole export sends
//! every entry again (which sets each one's `updated_at`), then asks to delete its own entries
//! (by id prefix) in the export's time range that it did not send since the run began.

use time::{Duration, OffsetDateTime};

use crate::text::Text;

/// The id prefix naming one tracker's entries (`toggl:`): 1-100 characters.
pub type SweepPrefix = Text<100>;

/// The longest range one sweep covers: a year, leap day included. A longer export is swept in
/// several calls; the bound keeps one transaction's work to about a year of one person's
/// entries.
pub const MAX_SWEEP_DAYS: i64 = 366;

/// One sweep, checked: delete the person's entries whose external id starts with `prefix`,
/// whose `occurred_at` is in `[from, to)`, and whose `updated_at` is before `not_sent_since`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sweep {
    pub prefix: SweepPrefix,
    pub from: OffsetDateTime,
    pub to: OffsetDateTime,
    pub not_sent_since: OffsetDateTime,
}

/// Why a sweep was refused; each names the request field at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidSweep {
    #[error("must not be empty")]
    EmptyPrefix,
    #[error("must be after from")]
    EmptyRange,
    #[error("the range must span at most {MAX_SWEEP_DAYS} days")]
    TooLong,
    /// A moment the service has not reached yet would match what is being sent right now (a
    /// client whose clock runs ahead would delete its own import).
    #[error("must not be in the future")]
    FromTheFuture,
}

impl InvalidSweep {
    /// The request field the error is about.
    #[must_use]
    pub const fn field(&self) -> &'static str {
        match self {
            Self::EmptyPrefix => "external_task_id_prefix",
            Self::EmptyRange | Self::TooLong => "to",
            Self::FromTheFuture => "not_sent_since",
        }
    }
}

impl Sweep {
    /// Checks a sweep asked for at `now`. Times are kept to the microsecond, as stored.
    ///
    /// # Errors
    /// [`InvalidSweep`]: an empty prefix, `to` not after `from`, a range over
    /// [`MAX_SWEEP_DAYS`], or `not_sent_since` after `now`.
    pub fn new(
        prefix: SweepPrefix,
        from: OffsetDateTime,
        to: OffsetDateTime,
        not_sent_since: OffsetDateTime,
        now: OffsetDateTime,
    ) -> Result<Self, InvalidSweep> {
        use crate::clock::truncate_to_micros as micros;
        if prefix.as_str().is_empty() {
            return Err(InvalidSweep::EmptyPrefix);
        }
        let (from, to, not_sent_since) = (micros(from), micros(to), micros(not_sent_since));
        if to <= from {
            return Err(InvalidSweep::EmptyRange);
        }
        if to - from > Duration::days(MAX_SWEEP_DAYS) {
            return Err(InvalidSweep::TooLong);
        }
        if not_sent_since > now {
            return Err(InvalidSweep::FromTheFuture);
        }
        Ok(Self {
            prefix,
            from,
            to,
            not_sent_since,
        })
    }

    /// Whether an entry falls to this sweep: the rule the storage applies, stated once.
    #[must_use]
    pub fn takes(
        &self,
        external_task_id: &str,
        occurred_at: OffsetDateTime,
        updated_at: OffsetDateTime,
    ) -> bool {
        external_task_id.starts_with(self.prefix.as_str())
            && (self.from..self.to).contains(&occurred_at)
            && updated_at < self.not_sent_since
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    const NOW: OffsetDateTime = datetime!(2026-11-22 10:00 UTC);

    fn prefix(p: &str) -> SweepPrefix {
        SweepPrefix::new(p).unwrap()
    }

    fn sweep(
        from: OffsetDateTime,
        to: OffsetDateTime,
        since: OffsetDateTime,
    ) -> Result<Sweep, InvalidSweep> {
        Sweep::new(prefix("toggl:"), from, to, since, NOW)
    }

    #[test]
    fn a_range_of_exactly_a_leap_year_up_to_now_is_accepted() {
        let from = NOW - Duration::days(MAX_SWEEP_DAYS);
        assert!(sweep(from, NOW, NOW).is_ok());
    }

    #[test]
    fn empty_reversed_and_overlong_ranges_are_refused_naming_to() {
        let day = Duration::DAY;
        assert_eq!(sweep(NOW, NOW, NOW), Err(InvalidSweep::EmptyRange));
        assert_eq!(sweep(NOW, NOW - day, NOW), Err(InvalidSweep::EmptyRange));
        let too_long = sweep(NOW - day * 366 - Duration::SECOND, NOW, NOW).unwrap_err();
        assert_eq!(too_long, InvalidSweep::TooLong);
        assert_eq!(too_long.field(), "to");
    }

    #[test]
    fn not_sent_since_after_now_is_refused_and_an_empty_prefix_too() {
        let err = sweep(NOW - Duration::DAY, NOW, NOW + Duration::SECOND).unwrap_err();
        assert_eq!(
            (err.field(), err),
            ("not_sent_since", InvalidSweep::FromTheFuture)
        );
        let empty = Sweep::new(prefix(""), NOW - Duration::DAY, NOW, NOW, NOW);
        assert_eq!(empty, Err(InvalidSweep::EmptyPrefix));
    }

    #[test]
    fn an_entry_falls_only_when_prefix_range_and_age_all_match() {
        let s = sweep(NOW - Duration::DAY, NOW, NOW - Duration::HOUR).unwrap();
        let (inside, old) = (NOW - Duration::HOUR * 5, NOW - Duration::HOUR * 2);
        assert!(s.takes("toggl:abc", inside, old));
        assert!(!s.takes("Toggl:abc", inside, old), "case matters");
        assert!(!s.takes("clockify:abc", inside, old));
        assert!(!s.takes("toggl:abc", NOW, old), "to is excluded");
        assert!(
            s.takes("toggl:abc", NOW - Duration::DAY, old),
            "from is included"
        );
        assert!(
            !s.takes("toggl:abc", inside, NOW - Duration::HOUR),
            "sent since"
        );
    }
}
