//! Sending: one signed webhook, one check-in e-mail, and the e-mail's links.

use async_trait::async_trait;
use time::OffsetDateTime;

use crate::ids::{CheckInId, EventId, UserId};
use crate::notifications::{DeliveryOutcome, WebhookSecret, WebhookUrl, WebhookUrlError};

/// The links a check-in e-mail carries.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait MailLinks: Send + Sync {
    /// The coaching page at this check-in.
    fn checkin_url(&self, checkin: CheckInId) -> String;
    /// The RFC 8058 one-click URL that turns this person's check-in e-mails off.
    fn unsubscribe_url(&self, user: UserId) -> String;
}

/// One signed webhook request to make: the event's payload, byte for byte, to `url`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookRequest {
    pub url: WebhookUrl,
    pub secret: WebhookSecret,
    /// The `webhook-id`: the same on every attempt of the event.
    pub event_id: EventId,
    /// The `webhook-timestamp` of this attempt.
    pub timestamp: OffsetDateTime,
    pub payload: String,
}

/// Sends webhooks (Standard Webhooks signatures), refusing private destinations unless allowed.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait WebhookSender: Send + Sync {
    /// Whether `url` may be registered now: its host resolves, and only to addresses a request
    /// may go to. Sending checks every connection again.
    async fn check_destination(&self, url: &WebhookUrl) -> Result<(), WebhookUrlError>;
    /// One attempt: delivered on a 2xx answer within the time limit, failed otherwise.
    async fn send(&self, request: &WebhookRequest) -> DeliveryOutcome;
}

/// A check-in by e-mail: what it says, where to answer it and how to stop these mails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckInMail {
    /// The account's e-mail address.
    pub to: String,
    /// The check-in's question.
    pub message: String,
    /// The person's goals, verbatim.
    pub quoted_goals: Vec<String>,
    pub observation: Option<String>,
    /// The coaching page, at this check-in.
    pub answer_url: String,
    /// The RFC 8058 one-click URL (`POST`), signed for this person and this setting.
    pub unsubscribe_url: String,
}

/// Sends e-mail.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait Mailer: Send + Sync {
    /// One attempt: delivered once the mail server accepted the message.
    async fn send_checkin(&self, mail: &CheckInMail) -> DeliveryOutcome;
}
