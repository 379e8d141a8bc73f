//! `deliver`: one pass over what is due in the outbox — every due webhook and e-mail attempted
//! once (those that fail wait for their next attempt). Safe beside the service's own worker and
//! other `deliver` runs: each due delivery is claimed by one of them. On SIGTERM it stops after
//! the pass under way.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use adapters_delivery::{SignedLinks, SmtpMailer, WebhookClient};
use adapters_diesel::DieselDeliveryQueue;
use domain::clock::SystemClock;
use domain::services::DeliveryService;
use secrecy::ExposeSecret;
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
        Some(smtp) => Some(SmtpMailer::from_url(smtp.url.expose_secret(), &smtp.from)?),
    };
    let service = DeliveryService::new(
        DieselDeliveryQueue::new(db),
        WebhookClient::new(settings.allow_private)?,
        mailer,
        SignedLinks::new(
            &settings.public_base_url,
            settings.jwt_secret.expose_secret(),
        ),
        SystemClock,
    );
    // SIGTERM or Ctrl-C: the pass under way finishes (its outcomes stored), and no other begins.
    let stopping = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stopping);
    tokio::spawn(async move {
        shutdown_signal().await;
        flag.store(true, Ordering::Relaxed);
    });
    let report = service
        .drain(PASS, || stopping.load(Ordering::Relaxed))
        .await?;
    let pending = service.stats().await?.pending;
    Ok(json!({
        "sent": report.sent(),
        "failed": report.failed(),
        "pending": pending,
    }))
}

/// SIGINT, or SIGTERM where there is one.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(_) => return std::future::pending().await,
            };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
}
