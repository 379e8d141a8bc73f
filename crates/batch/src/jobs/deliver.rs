//! `deliver`: one pass over what is due in the outbox — every due webhook and e-mail attempted
//! once (those that fail wait for their next attempt). Safe beside the service's own worker and
//! other `deliver` runs: each due delivery is claimed by one of them.

use adapters_delivery::{SignedLinks, SmtpMailer, WebhookClient};
use adapters_diesel::DieselDeliveryQueue;
use domain::clock::SystemClock;
use domain::services::DeliveryService;
use serde_json::{Value, json};

/// Deliveries claimed and attempted at once.
const PASS: u32 = 50;

/// # Errors
/// A bad setting, or a database failure.
pub async fn run() -> anyhow::Result<Value> {
    let settings = crate::config::delivery()?;
    let db = crate::config::database().await?;
    let mailer = match &settings.smtp {
        None => None,
        Some((url, from)) => Some(SmtpMailer::from_url(url, from)?),
    };
    let service = DeliveryService::new(
        DieselDeliveryQueue::new(db),
        WebhookClient::new(settings.allow_private)?,
        mailer,
        SignedLinks::new(&settings.public_base_url, &settings.jwt_secret),
        SystemClock,
    );
    let report = service.drain(PASS).await?;
    let pending = service.stats().await?.pending;
    Ok(json!({
        "sent": report.sent(),
        "failed": report.failed(),
        "pending": pending,
    }))
}
