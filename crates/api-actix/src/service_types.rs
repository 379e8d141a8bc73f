//! Type aliases naming the domain's use-case services over the concrete adapters this binary wires
//! (Diesel storage, the metered model, the system clock), so the handlers and the workers can name them.

use adapters_delivery::{SignedLinks, SmtpMailer, WebhookClient};
use adapters_diesel::{
    DieselApiKeyRepository, DieselCheckInRepository, DieselConversationRepository,
    DieselDeliveryQueue, DieselNotificationRepository, DieselPreferencesRepository,
    DieselProfileRepository, DieselReflectionRepository, DieselRuleRepository,
    DieselSessionRepository, DieselTaskMappingRepository, DieselUserRepository,
};
use domain::clock::SystemClock;
use domain::services::{
    AccountService, CoachingService, DeliveryService, DiscoveryService, IntegrationService,
    NotificationService, ProfileService,
};

use service_metrics::MeteredModel;

/// The configured language model (`LLM_PROVIDER`), with its calls measured.
pub type Model = MeteredModel<adapters_llm::LanguageModel>;

pub type Accounts = AccountService<
    DieselUserRepository,
    DieselSessionRepository,
    DieselApiKeyRepository,
    SystemClock,
>;

pub type Discovery =
    DiscoveryService<DieselConversationRepository, DieselProfileRepository, Model, SystemClock>;

pub type Profiles = ProfileService<
    DieselProfileRepository,
    DieselReflectionRepository,
    Model,
    DieselPreferencesRepository,
    SystemClock,
>;

pub type Coaching = CoachingService<
    DieselProfileRepository,
    DieselPreferencesRepository,
    DieselCheckInRepository,
    DieselTaskMappingRepository,
    SystemClock,
>;

pub type Integration =
    IntegrationService<DieselTaskMappingRepository, DieselRuleRepository, SystemClock>;

pub type Notifications =
    NotificationService<DieselNotificationRepository, WebhookClient, SystemClock>;

pub type Deliveries =
    DeliveryService<DieselDeliveryQueue, WebhookClient, SmtpMailer, SignedLinks, SystemClock>;

/// The credential checks over the account use cases (the authentication middleware's app data).
pub type Authenticator = credentials::Authenticator<Accounts>;
