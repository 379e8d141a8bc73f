//! The use cases over the Diesel adapters, the metered model and the delivery clients: what the
//! handlers and the workers call.

use std::sync::Arc;

use actix_web::web;
use adapters_delivery::{SignedLinks, WebhookClient};
use adapters_diesel::{
    Database, DieselApiKeyRepository, DieselCheckInRepository, DieselConversationRepository,
    DieselDeliveryQueue, DieselNotificationRepository, DieselPreferencesRepository,
    DieselProfileRepository, DieselReflectionRepository, DieselRuleRepository,
    DieselSessionRepository, DieselTaskMappingRepository, DieselUserRepository,
};
use adapters_llm::LanguageModel;
use anyhow::Context;
use domain::clock::SystemClock;
use domain::services::{
    AccountService, CoachingService, DeliveryService, DiscoveryService, IntegrationService,
    NotificationService, ProfileService,
};
use secrecy::ExposeSecret;
use service_metrics::{MeteredModel, Metrics};

use super::adapters;
use crate::service_types::{
    Accounts, Coaching, Deliveries, Discovery, Integration, Model, Notifications, Profiles,
};
use settings::api::ApiSettings as Settings;

/// Every use case of the service, wired, each as the app data its handlers take.
#[derive(Clone)]
pub(super) struct Services {
    pub accounts: web::Data<Accounts>,
    pub discovery: web::Data<Discovery>,
    pub profiles: web::Data<Profiles>,
    pub coaching: web::Data<Coaching>,
    pub integration: web::Data<Integration>,
    pub notifications: web::Data<Notifications>,
    pub deliveries: web::Data<Deliveries>,
    /// Checks the tokens of the e-mails' one-click unsubscribe links.
    pub links: web::Data<SignedLinks>,
    /// The extractor and coach the services use (`LLM_PROVIDER`), for the request preview.
    pub language_model: web::Data<LanguageModel>,
}

impl Services {
    /// # Errors
    /// When the language model, the webhook client or the mailer cannot be built from the
    /// settings.
    pub fn wire(
        settings: &Settings,
        db: &Database,
        metrics: &Arc<Metrics>,
    ) -> anyhow::Result<Self> {
        let language_model = adapters::language_model(&settings.llm)?;
        let model = MeteredModel::new(language_model.clone(), Arc::clone(metrics));
        let (notifications, webhook_client) = notifications(settings, db)?;
        let links = SignedLinks::new(
            &settings.public_base_url,
            settings.auth.jwt_secret.expose_secret(),
        );
        let deliveries = web::Data::new(DeliveryService::new(
            DieselDeliveryQueue::new(db.clone()),
            webhook_client,
            adapters::mailer(settings)?,
            links.clone(),
            SystemClock,
        ));
        let (discovery, profiles, coaching) = profile_services(db, &model);
        Ok(Self {
            accounts: web::Data::new(accounts(settings, db)),
            discovery: web::Data::new(discovery),
            profiles: web::Data::new(profiles),
            coaching: web::Data::new(coaching),
            integration: web::Data::new(IntegrationService::new(
                DieselTaskMappingRepository::new(db.clone()),
                DieselRuleRepository::new(db.clone()),
                SystemClock,
            )),
            notifications: web::Data::new(notifications),
            deliveries,
            links: web::Data::new(links),
            language_model: web::Data::new(language_model),
        })
    }

    /// Registers each use case as app data of its own.
    pub fn register(&self, cfg: &mut web::ServiceConfig) {
        cfg.app_data(self.accounts.clone())
            .app_data(self.discovery.clone())
            .app_data(self.profiles.clone())
            .app_data(self.coaching.clone())
            .app_data(self.integration.clone())
            .app_data(self.notifications.clone())
            .app_data(self.deliveries.clone())
            .app_data(self.links.clone())
            .app_data(self.language_model.clone());
    }
}

/// Sign-in, sessions and keys, with the session lifetimes of the settings.
fn accounts(settings: &Settings, db: &Database) -> Accounts {
    AccountService::new(
        DieselUserRepository::new(db.clone()),
        DieselSessionRepository::new(db.clone()),
        DieselApiKeyRepository::new(db.clone()),
        SystemClock,
        time::Duration::seconds(settings.auth.refresh_ttl_seconds),
    )
    .with_session_limits(
        time::Duration::seconds(settings.auth.refresh_reuse_grace_seconds),
        time::Duration::seconds(settings.auth.session_idle_timeout_seconds),
    )
}

/// The three services that read profiles, over one repository, so that their profile reads
/// share one queue (reads that arrive together share a statement: adapters-diesel
/// `read_group.rs`).
fn profile_services(db: &Database, model: &Model) -> (Discovery, Profiles, Coaching) {
    let profile_repository = DieselProfileRepository::new(db.clone());
    let discovery = DiscoveryService::new(
        DieselConversationRepository::new(db.clone()),
        profile_repository.clone(),
        model.clone(),
        SystemClock,
    );
    let profiles = ProfileService::new(
        profile_repository.clone(),
        DieselReflectionRepository::new(db.clone()),
        model.clone(),
        DieselPreferencesRepository::new(db.clone()),
        SystemClock,
    );
    let coaching = CoachingService::new(
        profile_repository,
        DieselPreferencesRepository::new(db.clone()),
        DieselCheckInRepository::new(db.clone()),
        DieselTaskMappingRepository::new(db.clone()),
        SystemClock,
    );
    (discovery, profiles, coaching)
}

/// Webhook endpoints and their events, and the client that checks and posts to them.
fn notifications(
    settings: &Settings,
    db: &Database,
) -> anyhow::Result<(Notifications, WebhookClient)> {
    let allow_private = settings.delivery.webhook_allow_private;
    if allow_private {
        tracing::warn!(
            "WEBHOOK_ALLOW_PRIVATE is on: webhooks may go to plain http and private addresses"
        );
    }
    let webhook_client = WebhookClient::new(allow_private).context("the webhook client")?;
    let notifications = NotificationService::new(
        DieselNotificationRepository::new(db.clone()),
        webhook_client.clone(),
        SystemClock,
        allow_private,
    );
    Ok((notifications, webhook_client))
}
