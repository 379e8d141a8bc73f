//! Whole numbers as JSON carries them: JSON has one number type, and `90.0` is the integer 90
//! (as JSON Schema's `integer` says), so an integral float is taken and `90.5` is not.

use serde::Deserialize;

/// A whole number read from JSON (an integer, or a float with no fractional part).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WholeNumber(pub i64);

impl<'de> Deserialize<'de> for WholeNumber {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(WholeNumberVisitor)
    }
}

struct WholeNumberVisitor;

impl serde::de::Visitor<'_> for WholeNumberVisitor {
    type Value = WholeNumber;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a whole number")
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<WholeNumber, E> {
        Ok(WholeNumber(v))
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<WholeNumber, E> {
        Ok(WholeNumber(i64::try_from(v).unwrap_or(i64::MAX)))
    }

    #[allow(clippy::cast_possible_truncation)] // Integral and within range: checked first.
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<WholeNumber, E> {
        // i64::MAX as f64 rounds up to 2^63, which is out of range: hence `<`.
        if v.fract() != 0.0 || !(-(2f64.powi(63))..2f64.powi(63)).contains(&v) {
            return Err(E::custom("must be a whole number"));
        }
        Ok(WholeNumber(v as i64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_and_integral_floats_are_whole_numbers_and_nothing_else_is() {
        for (json, n) in [("46", 46), ("46.0", 46), ("-3", -3), ("0.0", 0)] {
            assert_eq!(
                serde_json::from_str::<WholeNumber>(json).unwrap(),
                WholeNumber(n)
            );
        }
        for bad in ["46.5", "\"46\"", "null", "1e300", "[1]"] {
            assert!(serde_json::from_str::<WholeNumber>(bad).is_err(), "{bad}");
        }
    }
}
