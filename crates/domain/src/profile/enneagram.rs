//! Enneagram types 1-9 and the triad each belongs to (gut 8, 9, 1; heart 2, 3, 4; head 5, 6, 7).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// An Enneagram type, 1 to 9.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct EnneagramType(u8);

/// A number outside 1-9.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("enneagram type must be between 1 and 9 (got {0})")]
pub struct InvalidEnneagramType(pub i64);

impl EnneagramType {
    /// # Errors
    /// [`InvalidEnneagramType`] outside 1-9.
    pub fn new(value: i64) -> Result<Self, InvalidEnneagramType> {
        match u8::try_from(value) {
            Ok(v @ 1..=9) => Ok(Self(v)),
            _ => Err(InvalidEnneagramType(value)),
        }
    }

    #[must_use]
    pub const fn get(self) -> u8 {
        self.0
    }

    /// The triad this type belongs to.
    #[must_use]
    pub const fn triad(self) -> Triad {
        match self.0 {
            8 | 9 | 1 => Triad::Gut,
            2..=4 => Triad::Heart,
            _ => Triad::Head,
        }
    }
}

impl<'de> Deserialize<'de> for EnneagramType {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = i64::deserialize(deserializer)?;
        Self::new(raw).map_err(serde::de::Error::custom)
    }
}

/// The three centres of intelligence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Triad {
    Gut,
    Heart,
    Head,
}

impl Triad {
    pub const ALL: [Self; 3] = [Self::Gut, Self::Heart, Self::Head];

    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            Self::Gut => "gut",
            Self::Heart => "heart",
            Self::Head => "head",
        }
    }
}

impl fmt::Display for Triad {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// A string that names no triad.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("triad must be one of gut, heart, head")]
pub struct UnknownTriad;

impl FromStr for Triad {
    type Err = UnknownTriad;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "gut" => Ok(Self::Gut),
            "heart" => Ok(Self::Heart),
            "head" => Ok(Self::Head),
            _ => Err(UnknownTriad),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_maps_to_the_contract_triad() {
        let table = [
            (1, Triad::Gut),
            (2, Triad::Heart),
            (3, Triad::Heart),
            (4, Triad::Heart),
            (5, Triad::Head),
            (6, Triad::Head),
            (7, Triad::Head),
            (8, Triad::Gut),
            (9, Triad::Gut),
        ];
        for (n, triad) in table {
            assert_eq!(EnneagramType::new(n).unwrap().triad(), triad, "type {n}");
        }
    }

    #[test]
    fn numbers_outside_one_to_nine_are_refused() {
        for n in [0, 10, -1, 256, i64::MAX] {
            assert_eq!(EnneagramType::new(n), Err(InvalidEnneagramType(n)));
        }
        assert!(serde_json::from_str::<EnneagramType>("10").is_err());
    }
}
