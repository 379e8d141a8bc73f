//! Users: one row per person, keyed by the verified e-mail their identity provider vouched for.

use time::OffsetDateTime;

use crate::ids::UserId;
use crate::text::Text;

/// A verified e-mail address, its ASCII letters lower-cased: 3-320 characters with one `@`.
/// Only ASCII is folded: Unicode case folding maps look-alikes onto plain letters (the Kelvin
/// sign `K` to `k`), which would let an address that only looks like an admin's match it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Email(String);

/// Not an e-mail address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be an e-mail address")]
pub struct InvalidEmail;

impl Email {
    /// The longest address, in characters as given.
    pub const MAX_CHARS: usize = 320;

    /// # Errors
    /// [`InvalidEmail`] without exactly one `@` between non-empty parts, or over 320 characters.
    pub fn new(value: &str) -> Result<Self, InvalidEmail> {
        let given = value.trim();
        let within_limit = Text::<{ Self::MAX_CHARS }>::new(given).is_ok();
        let value = given.to_ascii_lowercase();
        let valid = within_limit
            && !value.chars().any(char::is_whitespace)
            && matches!(value.split_once('@'), Some((local, domain))
                if !local.is_empty() && !domain.is_empty() && !domain.contains('@'));
        if valid {
            Ok(Self(value))
        } else {
            Err(InvalidEmail)
        }
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The part after `@`.
    #[must_use]
    pub fn domain(&self) -> &str {
        self.0.split_once('@').map_or("", |(_, d)| d)
    }
}

/// Who signed in, as the identity provider (or dev login) vouched: `(issuer, subject)` names the
/// person for good; the e-mail and name are refreshed at each sign-in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginIdentity {
    pub issuer: String,
    pub subject: String,
    pub email: Email,
    pub name: Option<String>,
}

/// A person (or the synthetic operator user).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub id: UserId,
    pub email: Email,
    /// Who vouched for the person at their last sign-in: the identity provider's issuer, or
    /// the dev login's or the operator's own name (`urn:discovery:...`).
    pub issuer: String,
    pub name: Option<String>,
    pub created_at: OffsetDateTime,
    pub last_login_at: Option<OffsetDateTime>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_length_limit_counts_characters() {
        let given = format!("{}@x.io", "İ".repeat(300));
        assert!(Email::new(&given).is_ok());
        assert!(Email::new(&format!("{}@x.io", "a".repeat(316))).is_err());
    }

    #[test]
    fn only_ascii_letters_are_folded_so_look_alikes_stay_distinct() {
        // U+212A KELVIN SIGN would fold to "k"; U+0130 to "i̇".
        let kelvin = Email::new("\u{212A}im@Example.org").unwrap();
        assert_eq!(kelvin.as_str(), "\u{212A}im@example.org");
        assert_ne!(kelvin, Email::new("kim@example.org").unwrap());
        assert_eq!(Email::new("İda@x.io").unwrap().as_str(), "İda@x.io");
    }

    #[test]
    fn emails_are_normalised_and_checked() {
        let e = Email::new("  Ada@Example.ORG ").unwrap();
        assert_eq!(e.as_str(), "ada@example.org");
        assert_eq!(e.domain(), "example.org");
        for bad in ["", "ada", "@example.org", "ada@", "a@b@c", "a b@c.d"] {
            assert_eq!(Email::new(bad), Err(InvalidEmail), "{bad}");
        }
    }
}
