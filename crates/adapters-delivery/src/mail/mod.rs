//! The check-in mailer: one SMTP submission per attempt through lettre, to the server `SMTP_URL`
//! names (`smtp://` plain, `smtp://…?tls=required` for STARTTLS, `smtps://` for implicit TLS,
//! `user:password@` when it asks for them), from `SMTP_FROM`.
//!
//! No connection pool: check-ins go out a few at a time from the batch job, and a pool would keep
//! a connection (and a task) open between them for nothing.

pub mod compose;
pub mod headers;

use std::time::Duration;

use async_trait::async_trait;
use domain::notifications::DeliveryOutcome;
use domain::ports::{CheckInMail, Mailer};
use lettre::message::Mailbox;
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};

/// The bound on connecting and on each SMTP command.
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// The bound on one whole submission, so a server that answers slowly but within [`TIMEOUT`] at
/// each step cannot hold the batch job for long.
pub const TOTAL_TIMEOUT: Duration = Duration::from_secs(30);

/// A setting that cannot be used. The messages name the variable and never quote its value, so
/// a password in `SMTP_URL` cannot reach a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MailConfigError {
    #[error(
        "SMTP_URL is not a usable SMTP URL: use smtp://host:port (plain), \
         smtp://host:port?tls=required (STARTTLS) or smtps://host:port (TLS), \
         with user:password@ before the host when the server asks for them"
    )]
    Url,
    #[error("SMTP_FROM is not an e-mail address (like `Discovery <checkins@example.com>`)")]
    From,
}

/// The mailer. Cloning is cheap.
#[derive(Debug, Clone)]
pub struct SmtpMailer {
    /// Holds the server's credentials as lettre's `Credentials`, whose `Debug` prints neither
    /// the user nor the password (the test below checks it).
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

impl SmtpMailer {
    /// A mailer for the server `smtp_url`, sending from `from`. Nothing is connected until the
    /// first mail.
    ///
    /// # Errors
    /// [`MailConfigError`] naming the variable that cannot be used.
    pub fn from_url(smtp_url: &str, from: &str) -> Result<Self, MailConfigError> {
        let from: Mailbox = from.trim().parse().map_err(|_| MailConfigError::From)?;
        // lettre's own error is dropped: it is not needed to fix the URL, and it is safer never
        // to carry anything derived from a string that may hold a password.
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(smtp_url.trim())
            .map_err(|_| MailConfigError::Url)?
            .timeout(Some(TIMEOUT))
            .build();
        Ok(Self { transport, from })
    }

    /// The sender's address.
    #[must_use]
    pub fn from(&self) -> &Mailbox {
        &self.from
    }
}

#[async_trait]
impl Mailer for SmtpMailer {
    async fn send_checkin(&self, mail: &CheckInMail) -> DeliveryOutcome {
        let message = match compose::checkin(mail, &self.from) {
            Ok(message) => message,
            Err(e) => return failed(e.to_string()),
        };
        match tokio::time::timeout(TOTAL_TIMEOUT, self.transport.send(message)).await {
            Ok(Ok(_)) => DeliveryOutcome::Delivered {
                response_status: None,
            },
            Ok(Err(e)) => failed(describe(&e)),
            Err(_) => failed(format!(
                "the mail server took more than {} s",
                TOTAL_TIMEOUT.as_secs()
            )),
        }
    }
}

fn failed(error: String) -> DeliveryOutcome {
    DeliveryOutcome::Failed {
        response_status: None,
        error,
    }
}

/// A few words on a failed submission: the SMTP reply code when the server refused, never the
/// server's text (it may quote the address) nor anything about the credentials but that they
/// were refused.
fn describe(e: &lettre::transport::smtp::Error) -> String {
    if let Some(code) = e.status() {
        let code = code.to_string();
        return match code.as_str() {
            "535" | "534" | "530" => format!("the mail server refused the credentials ({code})"),
            _ if e.is_transient() => format!("the mail server deferred the message ({code})"),
            _ => format!("the mail server refused the message ({code})"),
        };
    }
    if e.is_timeout() {
        format!(
            "the mail server did not answer within {} s",
            TIMEOUT.as_secs()
        )
    } else if e.is_tls() {
        "TLS with the mail server failed".to_owned()
    } else if e.is_client() {
        "the mail server does not offer what sending needs".to_owned()
    } else {
        "could not talk to the mail server".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_accepted_url_forms_build_a_mailer() {
        for url in [
            "smtp://localhost:2525",
            "smtp://mail.example.com?tls=required",
            "smtp://user:p%40ss@mail.example.com:587?tls=required",
            "smtps://user:pass@mail.example.com",
        ] {
            assert!(
                SmtpMailer::from_url(url, "checkins@example.com").is_ok(),
                "{url}"
            );
        }
    }

    #[test]
    fn a_bad_url_names_smtp_url_and_never_the_password() {
        for url in [
            "http://user:hunter2@mail.example.com",
            "smtp://user:hunter2@mail.example.com?tls=sometimes",
            "user:hunter2@mail.example.com",
            "",
        ] {
            let error = SmtpMailer::from_url(url, "checkins@example.com").unwrap_err();
            assert_eq!(error, MailConfigError::Url, "{url}");
            let shown = format!("{error} {error:?}");
            assert!(shown.contains("SMTP_URL"));
            assert!(!shown.contains("hunter2"), "{shown}");
        }
    }

    #[test]
    fn a_bad_from_names_smtp_from() {
        let error = SmtpMailer::from_url("smtp://localhost", "nobody").unwrap_err();
        assert_eq!(error, MailConfigError::From);
        assert!(error.to_string().contains("SMTP_FROM"));
    }

    #[test]
    fn the_debug_output_leaves_the_credentials_out() {
        let mailer =
            SmtpMailer::from_url("smtps://user:hunter2@mail.example.com", "a@example.com").unwrap();
        let shown = format!("{mailer:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("mail.example.com"), "{shown}");
    }
}
