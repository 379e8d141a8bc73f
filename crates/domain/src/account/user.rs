//! Users: one row per person, keyed by the verified e-mail their identity provider vouched for.

use time::OffsetDateTime;

use crate::ids::UserId;
use crate::text::Text;

/// A verified e-mail address, its ASCII letters lower-cased: 3-320 characters, exactly one `@`
/// between a non-empty local part and domain, and nothing of mailbox syntax (see
/// [`Email::MAILBOX_SYNTAX`]). An address, not a mailbox expression: `x<victim@evil.example>`
/// would send the account's e-mail to `victim@evil.example`.
/// Only ASCII is folded: Unicode case folding maps look-alikes onto plain letters (the Kelvin
/// sign `K` to `k`), which would let an address that only looks like an admin's match it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Email(String);

/// Not an e-mail address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "must be a bare e-mail address (name@domain, no display name, brackets, quotes, commas, white space or control characters)"
)]
pub struct InvalidEmail;

impl Email {
    /// The longest address, in characters as given.
    pub const MAX_CHARS: usize = 320;

    /// The characters that make a mailbox expression of an address: RFC 5322's specials but
    /// `@` and `.` (a display name's `<...>`, a comment's `(...)`, a quoted string, a list's `,`
    /// and `;`, a group's `:`, a domain literal's `[...]`, an escape's `\`). White space and
    /// control characters are refused besides.
    pub const MAILBOX_SYNTAX: [char; 11] = ['<', '>', '(', ')', '"', ',', ';', ':', '[', ']', '\\'];

    /// An address given when an account is created or its e-mail set (sign-in, dev login).
    ///
    /// # Errors
    /// [`InvalidEmail`] without exactly one `@` between non-empty parts, with any mailbox
    /// syntax, white space or control character, or over 320 characters.
    pub fn new(value: &str) -> Result<Self, InvalidEmail> {
        let value = Self::folded(value)?;
        let bare = !value
            .chars()
            .any(|c| c.is_control() || Self::MAILBOX_SYNTAX.contains(&c));
        if bare {
            Ok(Self(value))
        } else {
            Err(InvalidEmail)
        }
    }

    /// An address read back from storage, checked only as addresses were before mailbox syntax
    /// was refused (one `@` between non-empty parts, no white space), so an account stored
    /// then stays readable. Never for input: use [`Email::new`]. What is sent to it must take
    /// it as one bare address (the mailer does), so it can still name no other recipient.
    ///
    /// # Errors
    /// [`InvalidEmail`] as described.
    pub fn stored(value: &str) -> Result<Self, InvalidEmail> {
        Self::folded(value).map(Self)
    }

    /// `value` trimmed and ASCII-lower-cased, if it has one `@` between non-empty parts, no
    /// white space and at most [`Email::MAX_CHARS`] characters.
    fn folded(value: &str) -> Result<String, InvalidEmail> {
        let given = value.trim();
        let within_limit = Text::<{ Self::MAX_CHARS }>::new(given).is_ok();
        let value = given.to_ascii_lowercase();
        let valid = within_limit
            && !value.chars().any(char::is_whitespace)
            && matches!(value.split_once('@'), Some((local, domain))
                if !local.is_empty() && !domain.is_empty() && !domain.contains('@'));
        if valid { Ok(value) } else { Err(InvalidEmail) }
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

    #[test]
    fn ordinary_addresses_are_accepted_as_they_are() {
        for good in [
            "ada@example.org",
            "first.last+tag@sub.example.org",
            "o'brien@example.ie",
            "user_name-1@example-host.co.uk",
            "x!#$%&*/=?^`{|}~@example.org",
            // Internationalised: a domain in Unicode and in its A-label form, a Unicode local part.
            "ada@bücher.example",
            "ada@xn--bcher-kva.example",
            "jürgen@example.de",
        ] {
            assert_eq!(Email::new(good).map(|e| e.0), Ok(good.to_owned()), "{good}");
        }
    }

    #[test]
    fn mailbox_syntax_is_refused_so_an_address_names_one_recipient() {
        for bad in [
            "x<victim@evil.example>",
            "<victim@evil.example>",
            "Victim <victim@evil.example>",
            "victim@evil.example>",
            "ada@example.org (Ada)",
            "ada(comment)@example.org",
            "\"ada\"@example.org",
            "\"a@b\"@example.org",
            "ada@example.org,victim@evil.example",
            "ada@example.org;victim@evil.example",
            "group:victim@evil.example;",
            "ada@[192.0.2.1]",
            "a\\@b@example.org",
            "ada\\x@example.org",
            // White space and control characters, inside as well as around.
            "ada @example.org",
            "ada@example.org\r\nBcc: victim@evil.example",
            "ada\t@example.org",
            "ada\u{0}@example.org",
            "ada\u{7f}@example.org",
            "ada\u{85}@example.org",
            "ada\u{a0}@example.org",
            "ada\u{2028}@example.org",
            // Not exactly one `@` between non-empty parts.
            "ada",
            "ada@@example.org",
            "a@b@example.org",
            "@example.org",
            "ada@",
            "@",
        ] {
            assert_eq!(Email::new(bad), Err(InvalidEmail), "{bad:?}");
        }
    }

    #[test]
    fn a_stored_address_is_read_back_as_the_old_rule_allowed_but_never_taken_as_input() {
        let stored = Email::stored("x<Victim@evil.example>").unwrap();
        assert_eq!(stored.as_str(), "x<victim@evil.example>");
        assert_eq!(Email::new(stored.as_str()), Err(InvalidEmail));
        for bad in ["", "ada", "a b@c.d", "a@b@c"] {
            assert_eq!(Email::stored(bad), Err(InvalidEmail), "{bad}");
        }
    }
}
