//! Bounded text: strings whose length (in Unicode characters) and content the contract limits.
//! Every piece of text a person or a tracker sends is read through [`Text`], so the rule on
//! control characters lives here and nowhere else.

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
    /// A C0 control character other than tab, line feed and carriage return: no one types
    /// them, they garble terminals and logs, and pasted binary shows up as them.
    #[error("must not contain control characters (found U+{0:04X})")]
    ControlCharacter(u32),
}

/// Whether `c` may appear in text: anything but NUL and the other C0 controls, except tab, line
/// feed and carriage return. Right-to-left marks, combining characters and emoji are text.
#[must_use]
pub const fn is_allowed_char(c: char) -> bool {
    c >= ' ' || matches!(c, '\t' | '\n' | '\r')
}

/// The first character of `value` that text may not contain, as its error.
///
/// # Errors
/// [`TextError::ContainsNul`] or [`TextError::ControlCharacter`].
pub fn check_chars(value: &str) -> Result<(), TextError> {
    match value.chars().find(|c| !is_allowed_char(*c)) {
        None => Ok(()),
        Some('\0') => Err(TextError::ContainsNul),
        Some(c) => Err(TextError::ControlCharacter(u32::from(c))),
    }
}

/// A string of at most `MAX` characters without NUL or other C0 control characters (tab, line
/// feed and carriage return excepted). Right-to-left text, combining characters and emoji are
/// kept exactly as given, byte for byte.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Text<const MAX: usize>(String);

impl<const MAX: usize> Text<MAX> {
    /// The limit, in characters.
    pub const MAX: usize = MAX;

    /// Accepts any text within the limit, blank included.
    ///
    /// # Errors
    /// [`TextError::TooLong`], [`TextError::ContainsNul`] or [`TextError::ControlCharacter`].
    pub fn new(value: impl Into<String>) -> Result<Self, TextError> {
        let value = value.into();
        let len = value.chars().count();
        if len > MAX {
            return Err(TextError::TooLong { max: MAX, len });
        }
        check_chars(&value)?;
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

    /// Cuts untrusted text (a model's reply) to the limit instead of refusing it, dropping the
    /// characters [`Text::new`] refuses (so a person can send the text back unchanged).
    #[must_use]
    pub fn capped(value: &str) -> Self {
        Self(
            value
                .chars()
                .filter(|c| is_allowed_char(*c))
                .take(MAX)
                .collect(),
        )
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
/// A person's name as the identity provider gives it: untrusted, so it is capped (control
/// characters dropped, cut at the limit) rather than refused, which would refuse the sign-in.
pub type PersonName = Text<200>;

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
    fn right_to_left_combining_emoji_and_whitespace_controls_are_kept_exactly() {
        let raw = "שלום\u{200f} 👩🏽\u{200d}💻 ﷽ e\u{301}\t line\r\nnext\u{7f}\u{85}";
        assert_eq!(
            Text::<100>::new(raw).unwrap().as_str().as_bytes(),
            raw.as_bytes()
        );
    }

    #[test]
    fn c0_control_characters_other_than_tab_and_line_breaks_are_refused() {
        for c in (0u8..0x20).map(char::from) {
            let result = Text::<10>::new(format!("a{c}b"));
            match c {
                '\t' | '\n' | '\r' => assert!(result.is_ok(), "{c:?}"),
                '\0' => assert_eq!(result, Err(TextError::ContainsNul)),
                _ => assert_eq!(result, Err(TextError::ControlCharacter(u32::from(c)))),
            }
        }
        assert_eq!(
            Text::<10>::new("bell\u{7}").unwrap_err().to_string(),
            "must not contain control characters (found U+0007)"
        );
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
        assert_eq!(Text::<9>::capped("a\u{1b}[31mb\tc").as_str(), "a[31mb\tc");
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
