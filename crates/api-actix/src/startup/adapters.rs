//! The adapters `discovery-api` builds from its settings: the database pool's config, the
//! language model, the identity provider, the mailer and the operator's synthetic user.

use std::sync::Arc;

use adapters_delivery::SmtpMailer;
use adapters_diesel::DbConfig;
use adapters_llm::{LanguageModel, OfflineEngine, OpenAiClient, OpenAiConfig};
use adapters_oidc::{ClientSecret, OidcConfig, OidcProvider};
use anyhow::Context;
use credentials::Operator;
use domain::account::{Email, LoginIdentity};
use domain::ports::IdentityProvider;
use secrecy::ExposeSecret;

use crate::service_types::Accounts;
use settings::SettingError;
use settings::api::{ApiSettings as Settings, OidcSettings};
use settings::database::DatabaseSettings;
use settings::llm::{LlmSettings, OpenAiSettings};

/// The synthetic user the operator key (`API_KEY`) acts as.
pub const OPERATOR_SUBJECT: &str = "api-key-admin";

/// The extractor and coach of `LLM_PROVIDER`. One value (cheap to clone) serves both services,
/// so an OpenAI-compatible client shares its connections and what it learnt about structured
/// outputs.
pub(super) fn language_model(llm: &LlmSettings) -> anyhow::Result<LanguageModel> {
    match llm {
        LlmSettings::Offline => {
            tracing::info!(
                provider = "offline",
                "language model: the offline engine; nothing leaves the server"
            );
            Ok(LanguageModel::Offline(OfflineEngine))
        }
        LlmSettings::OpenAi(llm) => {
            let config = openai_config(llm)?;
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
        ClientSecret::from(oidc.client_secret.clone()),
        oidc.redirect_uri.clone(),
    );
    let provider = OidcProvider::new(config).context("OIDC settings")?;
    Ok(Arc::new(provider))
}

/// The SMTP mailer of `SMTP_URL`, when e-mail is configured.
pub(super) fn mailer(settings: &Settings) -> anyhow::Result<Option<SmtpMailer>> {
    match &settings.delivery.smtp {
        None => Ok(None),
        Some(smtp) => Ok(Some(SmtpMailer::from_url(
            smtp.url.expose_secret(),
            &smtp.from,
        )?)),
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
        key_digest: credentials::secrets::digest(key.expose_secret()),
        user: accounts.ensure_user(&operator_identity()?).await?,
    }))
}

/// The pool's config from the database settings.
pub(super) fn db_config(database: &DatabaseSettings) -> DbConfig {
    // The storage adapter's default (for tests and tools) is the settings' default too.
    const _: () = assert!(
        settings::database::DEFAULT_WAIT_TIMEOUT.as_millis()
            == adapters_diesel::DEFAULT_WAIT_TIMEOUT.as_millis()
    );
    let mut config = DbConfig::new(database.url.clone());
    config.max_connections = database.max_connections;
    config.wait_timeout = database.wait_timeout;
    config
}

/// The client's config from the LLM settings; the client checks what only it can judge (the
/// URL's shape, the ranges of the timeout and the token cap), naming the variable. `main`
/// calls it before start-up too, so such a value stops the service as any bad setting does.
///
/// # Errors
/// [`SettingError::Invalid`] naming the `LLM_*` variable.
pub fn openai_config(llm: &OpenAiSettings) -> Result<OpenAiConfig, SettingError> {
    let config = OpenAiConfig::new(&llm.base_url, &llm.model, llm.api_key.clone(), llm.timeout);
    config
        .and_then(|c| c.with_max_tokens(llm.max_tokens))
        .map_err(|e| SettingError::Invalid {
            name: e.setting,
            reason: e.reason,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoint() -> OpenAiSettings {
        OpenAiSettings {
            base_url: "http://127.0.0.1:11434/v1".into(),
            model: "llama3.1:8b".into(),
            api_key: Some("sk-live-key-never-printed".into()),
            timeout: std::time::Duration::from_secs(30),
            max_tokens: settings::llm::DEFAULT_MAX_TOKENS,
        }
    }

    #[test]
    fn the_client_config_keeps_the_key_hidden_and_its_own_checks_name_the_variable() {
        let config = openai_config(&endpoint()).unwrap();
        assert_eq!(config.model, "llama3.1:8b");
        assert_eq!(
            config.api_key.as_ref().map(ExposeSecret::expose_secret),
            Some("sk-live-key-never-printed")
        );
        assert!(!format!("{config:?}").contains("never-printed"));
        type Spoil = fn(&mut OpenAiSettings);
        let cases: [(&str, Spoil); 3] = [
            ("LLM_BASE_URL", |s| s.base_url = "localhost:11434".into()),
            ("LLM_TIMEOUT_SECONDS", |s| {
                s.timeout = std::time::Duration::from_secs(86_400);
            }),
            ("LLM_MAX_TOKENS", |s| s.max_tokens = 100),
        ];
        for (name, spoil) in cases {
            let mut settings = endpoint();
            spoil(&mut settings);
            let err = openai_config(&settings).unwrap_err().to_string();
            assert!(err.starts_with(name), "{name}: {err}");
            assert!(!err.contains('\n'));
        }
    }
}
