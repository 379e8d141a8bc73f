//! The links a check-in e-mail carries: the coaching page at the check-in, and the RFC 8058
//! one-click unsubscribe URL. Its token names one person and one setting and is signed with a
//! key derived from `JWT_SECRET` (HMAC-SHA256); it never expires, and nothing is stored for it.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use domain::ids::{CheckInId, UserId};
use domain::ports::MailLinks;
use hmac::{Hmac, KeyInit, Mac};
use secrecy::{ExposeSecret, SecretSlice};
use sha2::Sha256;

/// The one setting these tokens turn off.
const SETTING: &str = "email_checkins";
/// Separates this use of the service's secret from every other.
const KEY_CONTEXT: &[u8] = b"discovery-service unsubscribe links v1";

/// Builds and checks the links.
#[derive(Debug, Clone)]
pub struct SignedLinks {
    /// `PUBLIC_BASE_URL`, without a trailing slash.
    base_url: String,
    /// Whoever has it can unsubscribe anyone: a secret, so `Debug` shows none of it.
    key: SecretSlice<u8>,
}

impl SignedLinks {
    /// Links under `base_url` signed with a key derived from `secret` (the service's
    /// `JWT_SECRET`): rotating that secret voids the links already sent.
    #[must_use]
    pub fn new(base_url: &str, secret: &[u8]) -> Self {
        Self {
            base_url: base_url.trim_end_matches('/').to_owned(),
            key: mac(secret, KEY_CONTEXT).to_vec().into(),
        }
    }

    /// The token of `user`'s one-click unsubscribe: `email_checkins.<user id>.<signature>`.
    #[must_use]
    pub fn unsubscribe_token(&self, user: UserId) -> String {
        let claim = format!("{SETTING}.{user}");
        let signature = URL_SAFE_NO_PAD.encode(mac(self.key.expose_secret(), claim.as_bytes()));
        format!("{claim}.{signature}")
    }

    /// The person a token names, when this service signed it (compared in constant time).
    #[must_use]
    pub fn verify(&self, token: &str) -> Option<UserId> {
        let (claim, signature) = token.rsplit_once('.')?;
        let user = claim.strip_prefix(SETTING)?.strip_prefix('.')?;
        let user: UserId = user.parse().ok()?;
        let signature = URL_SAFE_NO_PAD.decode(signature).ok()?;
        let mut check = keyed(self.key.expose_secret());
        check.update(claim.as_bytes());
        check.verify_slice(&signature).ok()?;
        Some(user)
    }
}

impl MailLinks for SignedLinks {
    fn checkin_url(&self, checkin: CheckInId) -> String {
        format!("{}/coaching.html#checkin-{checkin}", self.base_url)
    }

    fn unsubscribe_url(&self, user: UserId) -> String {
        format!(
            "{}/api/notifications/unsubscribe?token={}",
            self.base_url,
            self.unsubscribe_token(user)
        )
    }
}

fn keyed(key: &[u8]) -> Hmac<Sha256> {
    // HMAC takes a key of any length.
    <Hmac<Sha256> as KeyInit>::new_from_slice(key).unwrap_or_else(|_| unreachable!("any length"))
}

fn mac(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut mac = keyed(key);
    mac.update(message);
    mac.finalize().into_bytes().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"a-jwt-secret-of-at-least-32-bytes!!";

    fn links() -> SignedLinks {
        SignedLinks::new("https://discovery.example/", SECRET)
    }

    #[test]
    fn a_token_names_its_person_and_only_this_service_signs_one() {
        let ada = UserId::new();
        let token = links().unsubscribe_token(ada);
        assert_eq!(links().verify(&token), Some(ada));
        let other_service = SignedLinks::new(
            "https://discovery.example",
            b"another-secret-of-32-bytes-or-more",
        );
        assert_eq!(other_service.verify(&token), None);

        // Another person's id under Ada's signature, a changed setting, a cut signature.
        let eve = UserId::new();
        let forged = token.replace(&ada.to_string(), &eve.to_string());
        assert_eq!(links().verify(&forged), None);
        assert_eq!(
            links().verify(&token.replacen(SETTING, "email_all", 1)),
            None
        );
        assert_eq!(links().verify(&token[..token.len() - 2]), None);
        for junk in ["", ".", "email_checkins..", "email_checkins.x.y", "a.b.c.d"] {
            assert_eq!(links().verify(junk), None, "{junk:?}");
        }
    }

    #[test]
    fn the_links_live_under_the_public_base_url() {
        let checkin = CheckInId::new();
        assert_eq!(
            links().checkin_url(checkin),
            format!("https://discovery.example/coaching.html#checkin-{checkin}")
        );
        let ada = UserId::new();
        let url = links().unsubscribe_url(ada);
        assert!(url.starts_with(
            "https://discovery.example/api/notifications/unsubscribe?token=email_checkins."
        ));
        let token = url.split_once("token=").unwrap().1;
        assert_eq!(links().verify(token), Some(ada), "URL-safe as it stands");
    }

    #[test]
    fn the_key_never_reaches_debug_output() {
        let shown = format!("{:?}", links());
        // Neither the derived key's bytes (its first three, as a byte array's `Debug` would
        // print them) nor the service's secret they come from.
        let key = mac(SECRET, KEY_CONTEXT);
        let head = format!("{}, {}, {}", key[0], key[1], key[2]);
        assert!(!shown.contains(&head), "{shown}");
        assert!(!shown.contains("a-jwt-secret"), "{shown}");
        assert!(shown.contains("https://discovery.example"), "{shown}");
    }
}
