//! Delivery adapters: implementations of the domain's `WebhookSender`, `Mailer` and `MailLinks`
//! ports.
//!
//! - [`WebhookClient`] posts an event's payload signed per Standard Webhooks, and refuses, on
//!   every connection, destinations that resolve to private, loopback or link-local addresses
//!   (unless built with `allow_private`, from `WEBHOOK_ALLOW_PRIVATE`).
//! - [`SmtpMailer`] sends check-in e-mails (`SMTP_URL`, `SMTP_FROM`) as plain text and HTML, with
//!   the RFC 8058 one-click unsubscribe headers.
//! - [`SignedLinks`] makes the links of those e-mails and checks the unsubscribe tokens.
//!
//! The senders answer a `DeliveryOutcome` in a few words: never a signing secret, an SMTP password, the
//! payload or the person's words.

pub mod links;
pub mod mail;
pub mod webhook;

pub use links::SignedLinks;
pub use mail::{MailConfigError, SmtpMailer};
pub use webhook::{WebhookClient, WebhookClientError};
