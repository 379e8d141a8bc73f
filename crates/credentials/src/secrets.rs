//! Secrets: random tokens from the OS, their SHA-256 (the only form ever stored), personal API
//! keys (`dsk_` + 64 hex digits), webhook signing secrets (`whsec_`) and a constant-time
//! comparison for the operator key.

use std::hash::{Hash, Hasher};

use domain::account::TokenHash;
use secrecy::{ExposeSecret, SecretSlice};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Prefix of personal API keys, so they are recognisable in a leaked-secret scan.
pub const API_KEY_PREFIX: &str = "dsk_";
/// How many characters of a key are shown back to tell keys apart (`dsk_` + 8).
const SHOWN_PREFIX_LEN: usize = API_KEY_PREFIX.len() + 8;

/// 32 random bytes from the operating system, hex-encoded.
///
/// # Errors
/// When the OS has no randomness to give (never on a working system).
pub fn random_token() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(hex::encode(bytes))
}

/// The SHA-256 of a secret, as raw bytes (what the credential cache is keyed by). Kept as a
/// secret itself: the digest of an operator key a person chose could be guessed at offline, so
/// `Debug` shows none of it.
#[derive(Debug, Clone)]
pub struct SecretDigest(SecretSlice<u8>);

/// The cache finds a key's owner by its digest: equal digests are the same key, compared in
/// constant time like every other comparison of secrets here.
impl PartialEq for SecretDigest {
    fn eq(&self, other: &Self) -> bool {
        same_digest(self, other)
    }
}

impl Eq for SecretDigest {}

impl Hash for SecretDigest {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.expose_secret().hash(state);
    }
}

#[must_use]
pub fn digest(secret: &str) -> SecretDigest {
    SecretDigest(Sha256::digest(secret.as_bytes()).to_vec().into())
}

/// The SHA-256 of a secret, as stored.
#[must_use]
pub fn hash(secret: &str) -> TokenHash {
    stored_form(&digest(secret))
}

/// A digest as the database stores it.
#[must_use]
pub fn stored_form(digest: &SecretDigest) -> TokenHash {
    // A hex SHA-256 digest is always 64 lower-case hex digits.
    TokenHash::from_hex(&hex::encode(digest.0.expose_secret()))
        .unwrap_or_else(|_| unreachable!("hex digest"))
}

/// A new personal API key and the part of it shown in lists.
///
/// # Errors
/// When the OS has no randomness to give.
pub fn new_api_key() -> Result<(String, String), getrandom::Error> {
    let key = format!("{API_KEY_PREFIX}{}", random_token()?);
    let shown = key[..SHOWN_PREFIX_LEN].to_owned();
    Ok((key, shown))
}

/// A new webhook signing secret as Standard Webhooks spells it: `whsec_` and the base64 of 32
/// random bytes.
///
/// # Errors
/// When the OS has no randomness to give.
pub fn new_webhook_secret() -> Result<String, getrandom::Error> {
    use base64::Engine as _;
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(format!(
        "{}{}",
        domain::notifications::WebhookSecret::PREFIX,
        base64::engine::general_purpose::STANDARD.encode(bytes)
    ))
}

/// Compares a presented secret with the configured one in time independent of where they differ.
#[must_use]
pub fn same_secret(presented: &str, expected: &str) -> bool {
    // Hashing first makes the lengths equal, so not even the length leaks.
    same_digest(&digest(presented), &digest(expected))
}

/// Compares two digests in time independent of where they differ.
#[must_use]
pub fn same_digest(presented: &SecretDigest, expected: &SecretDigest) -> bool {
    presented
        .0
        .expose_secret()
        .ct_eq(expected.0.expose_secret())
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_and_hashes_are_stable() {
        let (a, b) = (random_token().unwrap(), random_token().unwrap());
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        assert_eq!(hash(&a), hash(&a));
        assert_ne!(hash(&a), hash(&b));
        assert_eq!(
            hash("abc").as_hex(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(stored_form(&digest("abc")), hash("abc"));
    }

    #[test]
    fn api_keys_carry_a_short_visible_prefix() {
        let (key, shown) = new_api_key().unwrap();
        assert!(key.starts_with("dsk_") && key.len() == 68);
        assert_eq!(shown, &key[..12]);
    }

    #[test]
    fn secrets_compare_exactly() {
        assert!(same_secret("operator-key", "operator-key"));
        assert!(!same_secret("operator-kez", "operator-key"));
        assert!(!same_secret("", "operator-key"));
        assert!(same_digest(
            &digest("operator-key"),
            &digest("operator-key")
        ));
        assert!(!same_digest(
            &digest("operator-kez"),
            &digest("operator-key")
        ));
        assert_eq!(digest("operator-key"), digest("operator-key"));
        assert_ne!(digest("operator-kez"), digest("operator-key"));
    }

    #[test]
    fn a_digest_never_reaches_debug_output() {
        // SHA-256("abc") begins ba 78 16 bf: neither its hex nor its bytes may show.
        let shown = format!("{:?}", digest("abc"));
        assert!(!shown.contains("ba7816"), "{shown}");
        assert!(!shown.contains("186, 120, 22"), "{shown}");
        assert!(shown.starts_with("SecretDigest("), "{shown}");
    }
}
