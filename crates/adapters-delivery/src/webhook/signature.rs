//! Standard Webhooks signatures (<https://www.standardwebhooks.com/>): HMAC-SHA256 of
//! `{webhook-id}.{webhook-timestamp}.{body}` keyed with the base64-decoded secret (its `whsec_`
//! prefix removed), sent as `v1,<base64>`. The reference library `standardwebhooks` computes it:
//! it takes the secret with or without the prefix and the timestamp as Unix seconds (`i64`),
//! exactly what a request has.

use domain::notifications::WebhookSecret;
use secrecy::ExposeSecret;
use standardwebhooks::Webhook;

pub const HEADER_ID: &str = standardwebhooks::HEADER_WEBHOOK_ID;
pub const HEADER_TIMESTAMP: &str = standardwebhooks::HEADER_WEBHOOK_TIMESTAMP;
pub const HEADER_SIGNATURE: &str = standardwebhooks::HEADER_WEBHOOK_SIGNATURE;

/// Why a request could not be signed. The secret itself is never part of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SignError {
    #[error("the webhook's signing secret is not valid")]
    InvalidSecret,
    #[error("the payload could not be signed")]
    Payload,
}

/// The `webhook-signature` header's value for one request.
///
/// # Errors
/// [`SignError::InvalidSecret`] when the secret is empty or not base64 (after `whsec_`).
pub fn sign(
    secret: &WebhookSecret,
    webhook_id: &str,
    timestamp: i64,
    payload: &str,
) -> Result<String, SignError> {
    let raw = secret.expose_secret();
    // An empty key would sign with nothing; the library accepts it, a receiver should not.
    if raw
        .strip_prefix(WebhookSecret::PREFIX)
        .unwrap_or(raw)
        .is_empty()
    {
        return Err(SignError::InvalidSecret);
    }
    let webhook = Webhook::new(raw).map_err(|_| SignError::InvalidSecret)?;
    webhook
        .sign(webhook_id, timestamp, payload.as_bytes())
        .map_err(|_| SignError::Payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";
    const ID: &str = "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk";
    const TIMESTAMP: i64 = 1_649_367_553;
    const PAYLOAD: &str = r#"{"email":"test@example.com","username":"test_user"}"#;

    #[test]
    fn the_standard_webhooks_test_vector_signs_as_published() {
        // The vector the Standard Webhooks libraries share (their `test_sign`).
        let signed = sign(
            &WebhookSecret::new(SECRET.to_owned()),
            ID,
            TIMESTAMP,
            PAYLOAD,
        );
        assert_eq!(
            signed.as_deref(),
            Ok("v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=")
        );
    }

    #[test]
    fn the_prefix_is_optional() {
        let bare = SECRET.trim_start_matches("whsec_").to_owned();
        assert_eq!(
            sign(&WebhookSecret::new(bare), ID, TIMESTAMP, PAYLOAD),
            sign(
                &WebhookSecret::new(SECRET.to_owned()),
                ID,
                TIMESTAMP,
                PAYLOAD
            ),
        );
    }

    #[test]
    fn an_empty_or_broken_secret_is_refused_without_being_quoted() {
        for bad in ["whsec_", "", "whsec_not base64!"] {
            let error =
                sign(&WebhookSecret::new(bad.to_owned()), ID, TIMESTAMP, PAYLOAD).expect_err(bad);
            assert_eq!(error, SignError::InvalidSecret);
            assert!(!error.to_string().contains("base64!"));
        }
    }
}
