//! OpenID discovery: fetches the provider metadata and JWKS and builds the client that holds
//! them. The `openidconnect` typestate stays in this module.

use openidconnect::core::{
    CoreAuthDisplay, CoreClaimName, CoreClaimType, CoreClient, CoreClientAuthMethod, CoreGrantType,
    CoreJsonWebKey, CoreJweContentEncryptionAlgorithm, CoreJweKeyManagementAlgorithm,
    CoreResponseMode, CoreResponseType, CoreSubjectIdentifierType,
};
use openidconnect::{
    AdditionalProviderMetadata, AuthType, ClientId, ClientSecret, EndpointMaybeSet, EndpointNotSet,
    EndpointSet, IssuerUrl, ProviderMetadata, RedirectUrl, Scope, reqwest,
};
use secrecy::ExposeSecret;
use serde::{Deserialize, Serialize};

use crate::config::OidcConfig;
use crate::error::{self, OidcError};

/// The client as discovery leaves it: authorization endpoint set, token and user-info endpoints
/// as the metadata had them, no device, introspection or revocation endpoints.
pub(crate) type DiscoveredClient = CoreClient<
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointMaybeSet,
    EndpointMaybeSet,
>;

/// The one metadata field `CoreProviderMetadata` lacks: whether the provider puts `iss` into the
/// authorization response (RFC 9207). When it says so, a response without `iss` is refused.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub(crate) struct IssParameter {
    #[serde(default)]
    authorization_response_iss_parameter_supported: bool,
}

impl AdditionalProviderMetadata for IssParameter {}

type Metadata = ProviderMetadata<
    IssParameter,
    CoreAuthDisplay,
    CoreClientAuthMethod,
    CoreClaimName,
    CoreClaimType,
    CoreGrantType,
    CoreJweContentEncryptionAlgorithm,
    CoreJweKeyManagementAlgorithm,
    CoreJsonWebKey,
    CoreResponseMode,
    CoreResponseType,
    CoreSubjectIdentifierType,
>;

/// The settings, validated once; discovery can then be repeated without re-parsing them.
#[derive(Debug)]
pub(crate) struct ClientSettings {
    pub(crate) issuer: IssuerUrl,
    client_id: ClientId,
    /// `None` for a public client.
    client_secret: Option<ClientSecret>,
    redirect_uri: RedirectUrl,
    /// The extra scopes; `openid` is added by `openidconnect` itself.
    pub(crate) scopes: Vec<Scope>,
}

impl ClientSettings {
    pub(crate) fn from_config(config: &OidcConfig) -> Result<Self, OidcError> {
        let issuer = IssuerUrl::new(config.issuer_url.clone())
            .map_err(|e| OidcError::Config(format!("the issuer URL is not a URL: {e}")))?;
        let redirect_uri = RedirectUrl::new(config.redirect_uri.clone())
            .map_err(|e| OidcError::Config(format!("the redirect URI is not a URL: {e}")))?;
        if config.client_id.is_empty() {
            return Err(OidcError::Config("the client id is empty".to_owned()));
        }
        let mut scopes: Vec<Scope> = Vec::new();
        for scope in config.scopes.iter().filter(|s| s.as_str() != "openid") {
            if !scopes.iter().any(|known| known.as_str() == scope) {
                scopes.push(Scope::new(scope.clone()));
            }
        }
        Ok(Self {
            issuer,
            client_id: ClientId::new(config.client_id.clone()),
            // An empty secret means a public client (PKCE only), never the secret "".
            client_secret: Some(config.client_secret.expose_secret())
                .filter(|s| !s.is_empty())
                .map(|s| ClientSecret::new(s.to_owned())),
            redirect_uri,
            scopes,
        })
    }
}

/// A discovered provider: the client with its JWKS, and what we learned about the provider.
#[derive(Debug)]
pub(crate) struct Discovered {
    pub(crate) client: DiscoveredClient,
    pub(crate) sends_iss_parameter: bool,
}

/// Fetches `/.well-known/openid-configuration` and the JWKS. `openidconnect` checks that the
/// metadata's `issuer` is exactly the configured one.
pub(crate) async fn discover(
    settings: &ClientSettings,
    http: &reqwest::Client,
) -> Result<Discovered, OidcError> {
    let metadata = Metadata::discover_async(settings.issuer.clone(), http)
        .await
        .map_err(error::from_discovery)?;
    let sends_iss_parameter = metadata
        .additional_metadata()
        .authorization_response_iss_parameter_supported;
    let auth_type = client_auth_type(metadata.token_endpoint_auth_methods_supported());
    let client = CoreClient::from_provider_metadata(
        metadata,
        settings.client_id.clone(),
        settings.client_secret.clone(),
    )
    .set_redirect_uri(settings.redirect_uri.clone())
    .set_auth_type(auth_type);
    Ok(Discovered {
        client,
        sends_iss_parameter,
    })
}

/// HTTP Basic is the default of the spec and of most providers; the form body is used only when
/// the provider says it accepts that and not Basic.
fn client_auth_type(supported: Option<&Vec<CoreClientAuthMethod>>) -> AuthType {
    match supported {
        Some(methods)
            if !methods.contains(&CoreClientAuthMethod::ClientSecretBasic)
                && methods.contains(&CoreClientAuthMethod::ClientSecretPost) =>
        {
            AuthType::RequestBody
        }
        _ => AuthType::BasicAuth,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ClientSecret as ConfigSecret;

    fn config() -> OidcConfig {
        OidcConfig::new(
            "https://idp.example.org",
            "discovery",
            ConfigSecret::new("secret".to_owned()),
            "http://127.0.0.1:8011/api/auth/callback",
        )
    }

    #[test]
    fn openid_and_repeated_scopes_are_sent_once() {
        let mut config = config();
        config.scopes = ["openid", "email", "profile", "email"]
            .map(str::to_owned)
            .to_vec();
        let settings = ClientSettings::from_config(&config).unwrap();
        let scopes: Vec<&str> = settings.scopes.iter().map(|s| s.as_str()).collect();
        assert_eq!(scopes, ["email", "profile"]);
    }

    #[test]
    fn a_redirect_uri_that_is_not_a_url_is_a_configuration_error() {
        let mut config = config();
        config.redirect_uri = "/api/auth/callback".to_owned();
        let err = ClientSettings::from_config(&config).unwrap_err();
        assert!(matches!(err, OidcError::Config(_)), "{err:?}");
    }

    #[test]
    fn the_form_body_is_used_only_when_basic_auth_is_not_offered() {
        use CoreClientAuthMethod::{ClientSecretBasic, ClientSecretPost};
        let post_only = vec![ClientSecretPost];
        let both = vec![ClientSecretPost, ClientSecretBasic];
        assert!(matches!(
            client_auth_type(Some(&post_only)),
            AuthType::RequestBody
        ));
        assert!(matches!(client_auth_type(Some(&both)), AuthType::BasicAuth));
        assert!(matches!(client_auth_type(None), AuthType::BasicAuth));
    }
}
