//! Bounded text: strings whose length (in Unicode characters) and content the contract limits.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Why a piece of text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    #[error("must not be blank")]
    Blank,
    #[error("must be at most {max} characters (got {len})")]
    TooLong { max: usize, len: usize },
    /// PostgreSQL cannot store NUL in text, so it is refused everywhere alike.
    #[error("must not contain NUL characters")]
    ContainsNul,
}

/// A string of at most `MAX` characters without NUL. Other control characters, right-to-left
/// marks and emoji are kept exactly as given.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Text<const MAX: usize>(String);

impl<const MAX: usize> Text<MAX> {
    /// The limit, in characters.
    pub const MAX: usize = MAX;

    /// Accepts any text within the limit, blank included.
    ///
    /// # Errors
    /// [`TextError::TooLong`] or [`TextError::ContainsNul`].
    pub fn new(value: impl Into<String>) -> Result<Self, TextError> {
        let value = value.into();
        let len = value.chars().count();
        if len > MAX {
            return Err(TextError::TooLong { max: MAX, len });
        }
        if value.contains('\0') {
            return Err(TextError::ContainsNul);
        }
        Ok(Self(value))
    }

    /// Accepts text within the limit that is not empty or whitespace only.
    ///
    /// # Errors
    /// [`TextError::Blank`] in addition to those of [`Text::new`].
    pub fn non_blank(value: impl Into<String>) -> Result<Self, TextError> {
        let text = Self::new(value)?;
        if text.is_blank() {
            return Err(TextError::Blank);
        }
        Ok(text)
    }

    /// Cuts untrusted text (a model's reply) to the limit instead of refusing it, dropping NULs.
    #[must_use]
    pub fn capped(value: &str) -> Self {
        Self(value.chars().filter(|c| *c != '\0').take(MAX).collect())
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    #[must_use]
    pub fn into_string(self) -> String {
        self.0
    }

    #[must_use]
    pub fn is_blank(&self) -> bool {
        self.0.trim().is_empty()
    }
}

impl<const MAX: usize> AsRef<str> for Text<MAX> {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl<const MAX: usize> fmt::Display for Text<MAX> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de, const MAX: usize> Deserialize<'de> for Text<MAX> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        Self::new(raw).map_err(serde::de::Error::custom)
    }
}

/// A profile prose field (summary or narrative): at most 4,000 characters.
pub type Prose = Text<4_000>;
/// An answer to a discovery prompt: at most 10,000 characters.
pub type AnswerText = Text<10_000>;
/// One reflection turn written by the person: at most 4,000 characters.
pub type MessageText = Text<4_000>;
/// A short note (revision note, check-in response note): at most 2,000 characters.
pub type Note = Text<2_000>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_is_counted_in_characters_not_bytes() {
        let emoji = "🌱".repeat(4);
        assert!(Text::<4>::new(emoji.clone()).is_ok());
        assert_eq!(
            Text::<3>::new(emoji),
            Err(TextError::TooLong { max: 3, len: 4 })
        );
    }

    #[test]
    fn right_to_left_and_control_characters_are_kept_exactly() {
        let raw = "שלום\u{200f} \t line\u{7}";
        assert_eq!(Text::<100>::new(raw).unwrap().as_str(), raw);
    }

    #[test]
    fn nul_is_refused_and_blank_only_where_asked() {
        assert_eq!(Text::<10>::new("a\0b"), Err(TextError::ContainsNul));
        assert!(Text::<10>::new("  ").is_ok());
        assert_eq!(Text::<10>::non_blank(" \n "), Err(TextError::Blank));
    }

    #[test]
    fn capping_cuts_to_the_limit_and_drops_nul() {
        assert_eq!(Text::<3>::capped("a\0bcdef").as_str(), "abc");
    }

    #[test]
    fn deserialising_applies_the_same_limits() {
        assert!(serde_json::from_str::<Text<2>>("\"abc\"").is_err());
        assert_eq!(
            serde_json::from_str::<Text<3>>("\"abc\"").unwrap().as_str(),
            "abc"
        );
    }
}
