//! What a personal API key may do: its scopes (docs/api.md, "Least privilege"). A key copied out of
//! a tracker's config file can then log time, and nothing more unless its owner chose so.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One thing a personal key may be used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum KeyScope {
    /// Every `/integration/*` route, and `GET /api/me`: what a time tracker needs.
    #[serde(rename = "integration")]
    Integration,
    /// Reading the profile, its reflection dialogue and its revisions.
    #[serde(rename = "profile:read")]
    ProfileRead,
    /// Reading the coaching preferences; reading, writing and answering check-ins.
    #[serde(rename = "coaching")]
    Coaching,
}

impl KeyScope {
    pub const ALL: [Self; 3] = [Self::Integration, Self::ProfileRead, Self::Coaching];

    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            Self::Integration => "integration",
            Self::ProfileRead => "profile:read",
            Self::Coaching => "coaching",
        }
    }

    const fn bit(self) -> u8 {
        match self {
            Self::Integration => 1,
            Self::ProfileRead => 2,
            Self::Coaching => 4,
        }
    }
}

impl fmt::Display for KeyScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// A string that names no scope.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown scope {0:?}")]
pub struct UnknownScope(pub String);

impl FromStr for KeyScope {
    type Err = UnknownScope;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|scope| scope.key() == s)
            .ok_or_else(|| UnknownScope(s.to_owned()))
    }
}

/// The scopes of one key: a non-empty set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyScopes(u8);

/// A key must be good for something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a key needs at least one scope")]
pub struct NoScopes;

impl KeyScopes {
    /// What a new key gets when no scope is asked for: `integration`.
    pub const DEFAULT: Self = Self(1);
    /// What keys made before scopes existed keep: all of them.
    pub const ALL: Self = Self(7);

    /// # Errors
    /// [`NoScopes`] for an empty set.
    pub fn new(scopes: impl IntoIterator<Item = KeyScope>) -> Result<Self, NoScopes> {
        let bits = scopes.into_iter().fold(0, |bits, s| bits | s.bit());
        if bits == 0 {
            Err(NoScopes)
        } else {
            Ok(Self(bits))
        }
    }

    #[must_use]
    pub const fn allows(self, scope: KeyScope) -> bool {
        self.0 & scope.bit() != 0
    }

    /// The scopes, in the contract's order.
    pub fn iter(self) -> impl Iterator<Item = KeyScope> {
        KeyScope::ALL.into_iter().filter(move |s| self.allows(*s))
    }

    /// As stored: the keys joined by spaces (`"integration coaching"`), as OAuth writes scopes.
    #[must_use]
    pub fn to_stored(self) -> String {
        self.iter().map(KeyScope::key).collect::<Vec<_>>().join(" ")
    }

    /// Reads [`KeyScopes::to_stored`]'s form.
    ///
    /// # Errors
    /// An unknown scope, or none.
    pub fn from_stored(stored: &str) -> Result<Self, UnknownScope> {
        let scopes = stored
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<Vec<KeyScope>, _>>()?;
        Self::new(scopes).map_err(|NoScopes| UnknownScope(stored.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_are_spelt_as_the_contract_spells_them() {
        let keys: Vec<_> = KeyScope::ALL.iter().map(|s| s.key()).collect();
        assert_eq!(keys, ["integration", "profile:read", "coaching"]);
        for scope in KeyScope::ALL {
            assert_eq!(
                serde_json::to_value(scope).unwrap(),
                serde_json::Value::from(scope.key())
            );
            assert_eq!(scope.key().parse::<KeyScope>(), Ok(scope));
        }
        assert!("admin".parse::<KeyScope>().is_err());
        assert!("Integration".parse::<KeyScope>().is_err());
    }

    #[test]
    fn a_set_is_never_empty_and_round_trips_through_storage() {
        assert_eq!(KeyScopes::new([]), Err(NoScopes));
        let set = KeyScopes::new([KeyScope::Coaching, KeyScope::Integration]).unwrap();
        assert!(set.allows(KeyScope::Coaching) && !set.allows(KeyScope::ProfileRead));
        assert_eq!(set.to_stored(), "integration coaching");
        assert_eq!(KeyScopes::from_stored("integration coaching"), Ok(set));
        assert_eq!(
            KeyScopes::from_stored(&KeyScopes::ALL.to_stored()),
            Ok(KeyScopes::ALL)
        );
        assert!(KeyScopes::from_stored("").is_err());
        assert!(KeyScopes::from_stored("integration root").is_err());
        assert_eq!(
            KeyScopes::DEFAULT.iter().collect::<Vec<_>>(),
            [KeyScope::Integration]
        );
    }
}
