//! How long the activity log is kept: `ACTIVITY_RETENTION_DAYS`, which the service reports and
//! `discovery-batch prune-activity` applies.

use crate::error::invalid;
use crate::{SettingError, Vars};

/// Days kept without `ACTIVITY_RETENTION_DAYS`.
pub const DEFAULT_RETENTION_DAYS: u32 = 90;

/// `ACTIVITY_RETENTION_DAYS`: a whole number of days, at least 1.
///
/// # Errors
/// Anything else, quoting the value.
pub fn retention_days(vars: &Vars<'_>) -> Result<u32, SettingError> {
    let name = "ACTIVITY_RETENTION_DAYS";
    let days = vars.number(name, i64::from(DEFAULT_RETENTION_DAYS), 1)?;
    u32::try_from(days).map_err(|e| invalid(name, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retention_is_ninety_days_unless_a_positive_number_is_set() {
        let days = |v: &str| retention_days(&Vars::from_pairs([("ACTIVITY_RETENTION_DAYS", v)]));
        assert_eq!(days(""), Ok(90));
        assert_eq!(days(" 30 "), Ok(30));
        for bad in ["0", "-3", "a week", "1.5", "99999999999"] {
            let err = days(bad).unwrap_err().to_string();
            assert!(
                err.starts_with("ACTIVITY_RETENTION_DAYS is not valid"),
                "{bad}: {err}"
            );
        }
    }
}
