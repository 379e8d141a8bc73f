//! The adapters `discovery-api` builds from its settings beside the database: the language
//! model, the identity provider, the mailer and the operator's synthetic user.

use std::sync::Arc;

use adapters_delivery::SmtpMailer;
use adapters_llm::{LanguageModel, OfflineEngine, OpenAiClient};
use adapters_oidc::{ClientSecret, OidcConfig, OidcProvider};
use anyhow::Context;
use credentials::Operator;
use domain::account::{Email, LoginIdentity};
use domain::ports::IdentityProvider;

use crate::config::{LlmProvider, OidcSettings, Settings};
use crate::service_types::Accounts;

/// The synthetic user the operator key (`API_KEY`) acts as.
pub const OPERATOR_SUBJECT: &str = "api-key-admin";

/// The extractor and coach of `LLM_PROVIDER`. One value (cheap to clone) serves both services,
/// so an OpenAI-compatible client shares its connections and what it learnt about structured
/// outputs.
pub(super) fn language_model(provider: &LlmProvider) -> anyhow::Result<LanguageModel> {
    match provider {
        LlmProvider::Offline => {
            tracing::info!(
                provider = "offline",
                "language model: the offline engine; nothing leaves the server"
            );
            Ok(LanguageModel::Offline(OfflineEngine))
        }
        LlmProvider::OpenAi(config) => {
            if config.sends_in_clear_text() {
                tracing::warn!(
                    base_url = %config.base_url,
                    "LLM_BASE_URL is plain http to another machine: the person's answers and profile travel unencrypted"
                );
            }
            let client = OpenAiClient::new(config.clone()).context("the language-model client")?;
            tracing::info!(
                provider = "openai",
                endpoint = %client.endpoint(),
                model = %config.model,
                timeout_seconds = config.timeout.as_secs(),
                api_key = config.api_key.is_some(),
                "language model: an OpenAI-compatible endpoint"
            );
            Ok(LanguageModel::OpenAi(client))
        }
    }
}

fn operator_identity() -> anyhow::Result<LoginIdentity> {
    Ok(LoginIdentity {
        issuer: "urn:discovery:operator".to_owned(),
        subject: OPERATOR_SUBJECT.to_owned(),
        email: Email::new("api-key-admin@localhost").context("operator e-mail")?,
        name: Some(OPERATOR_SUBJECT.to_owned()),
    })
}

pub(super) fn identity_provider(oidc: &OidcSettings) -> anyhow::Result<Arc<dyn IdentityProvider>> {
    let config = OidcConfig::new(
        oidc.issuer_url.clone(),
        oidc.client_id.clone(),
        ClientSecret::new(oidc.client_secret.clone()),
        oidc.redirect_uri.clone(),
    );
    let provider = OidcProvider::new(config).context("OIDC settings")?;
    Ok(Arc::new(provider))
}

/// The SMTP mailer of `SMTP_URL`, when e-mail is configured.
pub(super) fn mailer(settings: &Settings) -> anyhow::Result<Option<SmtpMailer>> {
    match &settings.delivery.smtp {
        None => Ok(None),
        Some(smtp) => Ok(Some(SmtpMailer::from_url(&smtp.url, &smtp.from)?)),
    }
}

/// The operator of `API_KEY`, taken out of the settings so only its digest stays in memory.
pub(super) async fn operator(
    settings: &mut Settings,
    accounts: &Accounts,
) -> anyhow::Result<Option<Operator>> {
    let Some(key) = settings.auth.api_key.take() else {
        return Ok(None);
    };
    Ok(Some(Operator {
        key_digest: credentials::secrets::digest(&key),
        user: accounts.ensure_user(&operator_identity()?).await?,
    }))
}
