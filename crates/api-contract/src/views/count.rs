//! Counts and sums from storage (an `i64` there) as the contract's non-negative integers.

/// Never negative in fact; shown as 0 if it ever were, rather than wrapping around.
#[must_use]
pub fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}
