//! Notification use cases: the e-mail setting, registering webhook endpoints (rules on the URL,
//! then the destination as it resolves now), listing, deleting, testing them, and their
//! delivery log.

use crate::clock::Clock;
use crate::error::RepoError;
use crate::ids::{UserId, WebhookId};
use crate::notifications::{
    Delivery, EventType, MAX_WEBHOOKS_PER_USER, NotificationSettings, OutboxEvent, Webhook,
    WebhookSecret, WebhookUrl, WebhookUrlError,
};
use crate::pagination::{Cursor, Page, PageLimit};
use crate::ports::{NotificationRepository, WebhookSender};

/// The notification use cases.
#[derive(Debug, Clone)]
pub struct NotificationService<N, W, K> {
    notifications: N,
    sender: W,
    clock: K,
    /// `WEBHOOK_ALLOW_PRIVATE`: plain `http` and private addresses are allowed (tests, a home
    /// network).
    allow_private: bool,
}

/// Failure of [`NotificationService::set_email`].
#[derive(Debug, thiserror::Error)]
pub enum SetEmailError {
    /// E-mail cannot be turned on where the server sends none (`SMTP_URL` unset).
    #[error("this server sends no e-mail")]
    Unavailable,
    #[error(transparent)]
    Repo(#[from] RepoError),
}

/// Failure of [`NotificationService::register`].
#[derive(Debug, thiserror::Error)]
pub enum RegisterWebhookError {
    #[error("url {0}")]
    Url(#[from] WebhookUrlError),
    #[error("a person has at most {MAX_WEBHOOKS_PER_USER} webhooks")]
    TooMany,
    #[error(transparent)]
    Repo(#[from] RepoError),
}

/// A registration as asked: the URL as written and the events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookRegistration {
    pub url: String,
    /// Non-empty, without duplicates (the request layer checks the names).
    pub events: Vec<EventType>,
}

impl<N: NotificationRepository, W: WebhookSender, K: Clock> NotificationService<N, W, K> {
    pub fn new(notifications: N, sender: W, clock: K, allow_private: bool) -> Self {
        Self {
            notifications,
            sender,
            clock,
            allow_private,
        }
    }

    /// # Errors
    /// [`RepoError::Busy`] or [`RepoError::Unavailable`] when the database had no room or did not
    /// answer: nothing changed, and asking again shortly may succeed (the API answers 503).
    /// [`RepoError::Unexpected`] is a bug or corrupt data: asking again will not help.
    pub async fn settings(&self, user: UserId) -> Result<NotificationSettings, RepoError> {
        self.notifications.settings(user).await
    }

    /// Turns check-ins by e-mail on or off; on only where the server sends e-mail.
    ///
    /// # Errors
    /// See [`SetEmailError`].
    pub async fn set_email(
        &self,
        user: UserId,
        email_checkins: bool,
        email_available: bool,
    ) -> Result<NotificationSettings, SetEmailError> {
        if email_checkins && !email_available {
            return Err(SetEmailError::Unavailable);
        }
        let settings = NotificationSettings {
            user_id: user,
            email_checkins,
        };
        self.notifications
            .put_settings(settings, self.clock.now())
            .await?;
        Ok(settings)
    }

    /// Registers an endpoint signed with `secret`: the URL must pass the rules as written and
    /// resolve, now, only to addresses a delivery may go to.
    ///
    /// # Errors
    /// See [`RegisterWebhookError`].
    pub async fn register(
        &self,
        user: UserId,
        registration: WebhookRegistration,
        secret: WebhookSecret,
    ) -> Result<Webhook, RegisterWebhookError> {
        let url = WebhookUrl::parse(&registration.url, self.allow_private)?;
        self.sender.check_destination(&url).await?;
        let webhook = Webhook {
            id: WebhookId::new(),
            user_id: user,
            url,
            events: registration.events,
            secret,
            created_at: self.clock.now(),
            disabled_at: None,
            failures_in_a_row: 0,
        };
        if !self.notifications.create_webhook(&webhook).await? {
            return Err(RegisterWebhookError::TooMany);
        }
        Ok(webhook)
    }

    /// # Errors
    /// [`RepoError::Busy`] or [`RepoError::Unavailable`] when the database had no room or did not
    /// answer: nothing changed, and asking again shortly may succeed (the API answers 503).
    /// [`RepoError::Unexpected`] is a bug or corrupt data: asking again will not help.
    pub async fn webhooks(&self, user: UserId) -> Result<Vec<Webhook>, RepoError> {
        self.notifications.webhooks(user).await
    }

    /// `false` when the person has no such endpoint.
    ///
    /// # Errors
    /// [`RepoError::Busy`]: nothing was written, and the same call shortly may succeed.
    /// [`RepoError::Unavailable`]: the database did not answer, so whether it committed is unknown;
    /// deleting again is safe (it answers `false` once the webhook is gone).
    /// [`RepoError::Unexpected`] is a bug or corrupt data: repeating will not help.
    pub async fn delete(&self, user: UserId, id: WebhookId) -> Result<bool, RepoError> {
        self.notifications.delete_webhook(user, id).await
    }

    /// Queues a `ping` to the endpoint; `false` when the person has no such endpoint.
    ///
    /// # Errors
    /// [`RepoError::Busy`]: nothing was written, and the same call shortly may succeed.
    /// [`RepoError::Unavailable`]: the database did not answer, so whether it committed is unknown;
    /// a second test may send a second ping, which receivers must tolerate.
    /// [`RepoError::Unexpected`] is a bug or corrupt data: repeating will not help.
    pub async fn test(&self, user: UserId, id: WebhookId) -> Result<bool, RepoError> {
        let ping = OutboxEvent::ping(user, self.clock.now());
        self.notifications.ping(user, id, &ping).await
    }

    /// The endpoint's delivery log, newest first; `None` when the person has no such endpoint.
    ///
    /// # Errors
    /// [`RepoError::Busy`] or [`RepoError::Unavailable`] when the database had no room or did not
    /// answer: nothing changed, and asking again shortly may succeed (the API answers 503).
    /// [`RepoError::Unexpected`] is a bug or corrupt data: asking again will not help.
    pub async fn deliveries(
        &self,
        user: UserId,
        id: WebhookId,
        limit: PageLimit,
        before: Option<Cursor>,
    ) -> Result<Option<Page<Delivery>>, RepoError> {
        self.notifications.deliveries(user, id, limit, before).await
    }
}

#[cfg(test)]
mod tests {
    use futures::executor::block_on;
    use time::OffsetDateTime;
    use time::macros::datetime;

    use super::*;
    use crate::clock::MockClock;
    use crate::ports::{MockNotificationRepository, MockWebhookSender};

    const NOW: OffsetDateTime = datetime!(2026-11-26 10:00 UTC);

    fn clock() -> MockClock {
        let mut clock = MockClock::new();
        clock.expect_now().return_const(NOW);
        clock
    }

    fn secret() -> WebhookSecret {
        WebhookSecret::new("whsec_c2VjcmV0".to_owned())
    }

    fn registration(url: &str) -> WebhookRegistration {
        WebhookRegistration {
            url: url.to_owned(),
            events: vec![EventType::CheckinCreated],
        }
    }

    #[test]
    fn a_registration_checks_the_url_then_the_destination_then_stores() {
        let user = UserId::new();
        let mut repo = MockNotificationRepository::new();
        repo.expect_create_webhook()
            .withf(move |w| {
                w.user_id == user
                    && w.url.as_str() == "https://hooks.example.com/x"
                    && w.events == [EventType::CheckinCreated]
                    && w.created_at == NOW
                    && w.disabled_at.is_none()
            })
            .times(1)
            .returning(|_| Ok(true));
        let mut sender = MockWebhookSender::new();
        sender
            .expect_check_destination()
            .times(1)
            .returning(|_| Ok(()));
        let service = NotificationService::new(repo, sender, clock(), false);
        let webhook =
            block_on(service.register(user, registration("https://hooks.example.com/x"), secret()))
                .unwrap();
        assert_eq!(webhook.secret, secret());
    }

    #[test]
    fn a_private_address_is_refused_before_any_lookup_or_write() {
        let mut repo = MockNotificationRepository::new();
        repo.expect_create_webhook().never();
        let mut sender = MockWebhookSender::new();
        sender.expect_check_destination().never();
        let service = NotificationService::new(repo, sender, clock(), false);
        for url in ["https://127.0.0.1/", "http://hooks.example.com/"] {
            let err =
                block_on(service.register(UserId::new(), registration(url), secret())).unwrap_err();
            assert!(matches!(err, RegisterWebhookError::Url(_)), "{url}: {err}");
        }
    }

    #[test]
    fn a_name_that_resolves_to_a_private_address_is_refused_without_a_write() {
        let mut repo = MockNotificationRepository::new();
        repo.expect_create_webhook().never();
        let mut sender = MockWebhookSender::new();
        sender
            .expect_check_destination()
            .returning(|_| Err(WebhookUrlError::PrivateAddress));
        let service = NotificationService::new(repo, sender, clock(), false);
        let err = block_on(service.register(
            UserId::new(),
            registration("https://internal.example.com/"),
            secret(),
        ))
        .unwrap_err();
        assert!(matches!(
            err,
            RegisterWebhookError::Url(WebhookUrlError::PrivateAddress)
        ));
    }

    #[test]
    fn the_eleventh_webhook_is_refused() {
        let mut repo = MockNotificationRepository::new();
        repo.expect_create_webhook().returning(|_| Ok(false));
        let mut sender = MockWebhookSender::new();
        sender.expect_check_destination().returning(|_| Ok(()));
        let service = NotificationService::new(repo, sender, clock(), false);
        let err = block_on(service.register(
            UserId::new(),
            registration("https://hooks.example.com/"),
            secret(),
        ))
        .unwrap_err();
        assert!(matches!(err, RegisterWebhookError::TooMany));
    }

    #[test]
    fn email_is_turned_on_only_where_the_server_sends_it() {
        let user = UserId::new();
        let mut repo = MockNotificationRepository::new();
        repo.expect_put_settings()
            .withf(move |s, at| s.user_id == user && s.email_checkins && *at == NOW)
            .times(1)
            .returning(|_, _| Ok(()));
        let service = NotificationService::new(repo, MockWebhookSender::new(), clock(), false);
        assert!(matches!(
            block_on(service.set_email(user, true, false)),
            Err(SetEmailError::Unavailable)
        ));
        assert!(
            block_on(service.set_email(user, true, true))
                .unwrap()
                .email_checkins
        );
    }

    #[test]
    fn a_test_queues_a_ping_of_the_person() {
        let user = UserId::new();
        let id = WebhookId::new();
        let mut repo = MockNotificationRepository::new();
        repo.expect_ping()
            .withf(move |u, w, ping| {
                *u == user
                    && *w == id
                    && ping.user_id == user
                    && ping.event_type == EventType::Ping
                    && ping.created_at == NOW
            })
            .times(1)
            .returning(|_, _, _| Ok(true));
        let service = NotificationService::new(repo, MockWebhookSender::new(), clock(), false);
        assert!(block_on(service.test(user, id)).unwrap());
    }
}
