//! The six foundations every logged minute belongs to, in the contract's order.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One of the six foundations. The declaration order is the contract's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Foundation {
    Love,
    Strength,
    Mission,
    Vocation,
    ShortTerm,
    LongTerm,
}

impl Foundation {
    /// All six, in order.
    pub const ALL: [Self; 6] = [
        Self::Love,
        Self::Strength,
        Self::Mission,
        Self::Vocation,
        Self::ShortTerm,
        Self::LongTerm,
    ];

    /// The six keys, in order: what clients that speak the contract (trackers, the MCP server)
    /// validate and offer.
    pub const KEYS: [&'static str; 6] = [
        Self::ALL[0].key(),
        Self::ALL[1].key(),
        Self::ALL[2].key(),
        Self::ALL[3].key(),
        Self::ALL[4].key(),
        Self::ALL[5].key(),
    ];

    /// The wire and storage key (`short_term`...).
    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            Self::Love => "love",
            Self::Strength => "strength",
            Self::Mission => "mission",
            Self::Vocation => "vocation",
            Self::ShortTerm => "short_term",
            Self::LongTerm => "long_term",
        }
    }

    /// A title for people.
    #[must_use]
    pub const fn title(self) -> &'static str {
        match self {
            Self::Love => "Love",
            Self::Strength => "Strength",
            Self::Mission => "Mission",
            Self::Vocation => "Vocation",
            // The profile's names for the two goals, so a foundation and its goal read alike.
            Self::ShortTerm => "Near-term goal",
            Self::LongTerm => "Long-term goal",
        }
    }

    /// What belongs under it, for people choosing a foundation for a task.
    #[must_use]
    pub const fn description(self) -> &'static str {
        match self {
            Self::Love => "What you love doing: time spent on things that light you up.",
            Self::Strength => "What you are good at: practising and using your strengths.",
            Self::Mission => "What the world needs: time given to a cause or to other people.",
            Self::Vocation => "What you can be paid for: your work and its craft.",
            Self::ShortTerm => "Steps towards your near-term goal, for the next 6-12 months.",
            Self::LongTerm => "Steps towards your long-term goal, for the next 3-5 years.",
        }
    }

    /// Position in [`Foundation::ALL`].
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Foundation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// A string that names no foundation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be one of love, strength, mission, vocation, short_term, long_term")]
pub struct UnknownFoundation;

impl FromStr for Foundation {
    type Err = UnknownFoundation;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|f| f.key() == s)
            .ok_or(UnknownFoundation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_six_foundations_come_in_the_contract_order() {
        let keys: Vec<_> = Foundation::ALL.iter().map(|f| f.key()).collect();
        assert_eq!(
            keys,
            [
                "love",
                "strength",
                "mission",
                "vocation",
                "short_term",
                "long_term"
            ]
        );
        for (i, f) in Foundation::ALL.iter().enumerate() {
            assert_eq!(f.index(), i);
        }
    }

    #[test]
    fn keys_parse_back_and_serialise_identically() {
        for f in Foundation::ALL {
            assert_eq!(f.key().parse::<Foundation>(), Ok(f));
            assert_eq!(
                serde_json::to_string(&f).unwrap(),
                format!("\"{}\"", f.key())
            );
        }
        assert_eq!("Love".parse::<Foundation>(), Err(UnknownFoundation));
    }
}
