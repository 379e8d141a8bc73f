//! [`OidcProvider`]: the `IdentityProvider` port over a lazily discovered OpenID provider.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use domain::ports::{AuthorizationRequest, IdentityError, IdentityProvider, VerifiedIdentity};
use openidconnect::core::{CoreAuthenticationFlow, CoreTokenResponse};
use openidconnect::{
    AuthorizationCode, ClaimsVerificationError, CsrfToken, Nonce, OAuth2TokenResponse,
    PkceCodeChallenge, PkceCodeVerifier, SignatureVerificationError, reqwest,
};
use tokio::sync::RwLock;

use crate::config::OidcConfig;
use crate::discovery::{self, ClientSettings, Discovered};
use crate::error::{self, OidcError};
use crate::http;
use crate::identity::{self, Person};

/// An OpenID Connect provider reached through discovery.
///
/// Discovery happens on first use, not at construction, so the service starts while the
/// provider is still down; a failed discovery is retried by the next call. The result is then
/// kept, and fetched again once when an ID token is signed with a key we have not seen (the
/// provider rotated its keys).
pub struct OidcProvider {
    settings: ClientSettings,
    http: reqwest::Client,
    discovered: RwLock<Option<Arc<Discovered>>>,
}

impl fmt::Debug for OidcProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OidcProvider")
            .field("issuer", &self.settings.issuer.as_str())
            .finish_non_exhaustive()
    }
}

impl OidcProvider {
    /// Validates the configuration; no network I/O.
    ///
    /// # Errors
    /// [`OidcError::Config`] when a URL does not parse or the client id is empty.
    pub fn new(config: OidcConfig) -> Result<Self, OidcError> {
        Ok(Self {
            settings: ClientSettings::from_config(&config)?,
            http: http::build_client(config.http_timeout)?,
            discovered: RwLock::new(None),
        })
    }

    /// Validates the configuration and discovers the provider now.
    ///
    /// # Errors
    /// [`OidcError::Config`] as for [`OidcProvider::new`]; [`OidcError::Discovery`] when the
    /// provider cannot be reached or its metadata or JWKS are unusable.
    pub async fn discover(config: OidcConfig) -> Result<Self, OidcError> {
        let provider = Self::new(config)?;
        provider.warm_up().await?;
        Ok(provider)
    }

    /// Discovers the provider unless that is done already; the provider stays usable (and
    /// retries on first use) when this fails. Meant for start-up logging.
    ///
    /// # Errors
    /// [`OidcError::Discovery`] when the provider cannot be reached or makes no sense.
    pub async fn warm_up(&self) -> Result<(), OidcError> {
        self.current().await.map(|_| ())
    }

    /// The issuer identifier, as configured and as the provider confirmed it.
    pub fn issuer(&self) -> &str {
        self.settings.issuer.as_str()
    }

    /// Starts a sign-in: the authorization URL with PKCE (S256), a random `state` and `nonce`.
    ///
    /// # Errors
    /// [`OidcError::Discovery`] when the provider has not been discovered and cannot be.
    pub async fn authorization_request(&self) -> Result<AuthorizationRequest, OidcError> {
        let discovered = self.current().await?;
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = discovered.client.authorize_url(
            CoreAuthenticationFlow::AuthorizationCode,
            CsrfToken::new_random,
            Nonce::new_random,
        );
        for scope in &self.settings.scopes {
            request = request.add_scope(scope.clone());
        }
        let (url, state, nonce) = request.set_pkce_challenge(challenge).url();
        Ok(AuthorizationRequest {
            url: url.into(),
            state: state.into_secret(),
            nonce: nonce.secret().clone(),
            pkce_verifier: verifier.into_secret(),
        })
    }

    /// RFC 9207: checks the `iss` parameter of the authorization response against our issuer,
    /// before the code is redeemed. Absent is accepted only from a provider that does not
    /// announce the parameter.
    ///
    /// # Errors
    /// [`OidcError::IssuerMismatch`]; [`OidcError::Discovery`] as for
    /// [`OidcProvider::authorization_request`].
    pub async fn check_response_issuer(&self, iss: Option<&str>) -> Result<(), OidcError> {
        let discovered = self.current().await?;
        match iss {
            Some(iss) if iss == self.settings.issuer.as_str() => Ok(()),
            None if !discovered.sends_iss_parameter => Ok(()),
            _ => Err(OidcError::IssuerMismatch),
        }
    }

    /// Redeems the code with the PKCE verifier and verifies the ID token against the nonce.
    /// When the ID token has no e-mail, the user-info endpoint is asked (a provider following
    /// OIDC Core 5.4 keeps scope claims there when it issues an access token).
    ///
    /// # Errors
    /// [`OidcError::CodeRejected`] when the provider refuses the code or verifier;
    /// [`OidcError::InvalidToken`] and its neighbours when the ID token fails a check;
    /// [`OidcError::TokenEndpoint`], [`OidcError::ClientRejected`], [`OidcError::Discovery`]
    /// when the provider cannot be used.
    pub async fn redeem(
        &self,
        code: &str,
        pkce_verifier: &str,
        nonce: &str,
    ) -> Result<VerifiedIdentity, OidcError> {
        let mut discovered = self.current().await?;
        let token: CoreTokenResponse = discovered
            .client
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .map_err(|e| OidcError::Discovery(anyhow::Error::new(e)))?
            .set_pkce_verifier(PkceCodeVerifier::new(pkce_verifier.to_owned()))
            .request_async(&self.http)
            .await
            .map_err(error::from_token_request)?;

        let nonce = Nonce::new(nonce.to_owned());
        let claims = match identity::verify_id_token(&discovered.client, &token, &nonce) {
            Err(OidcError::InvalidToken(ClaimsVerificationError::SignatureVerification(
                SignatureVerificationError::NoMatchingKey,
            ))) => {
                // Signed with a key we do not know: the provider rotated its keys since we
                // discovered it. Fetch them again, once.
                tracing::info!(
                    issuer = self.issuer(),
                    "unknown ID-token key; fetching the JWKS again"
                );
                discovered = self.rediscover(&discovered).await?;
                identity::verify_id_token(&discovered.client, &token, &nonce)?
            }
            other => other?,
        };

        let mut person = Person::from_id_token(&claims);
        if person.email.is_none() {
            let from_user_info = self.user_info(&discovered, &token, &claims).await?;
            person = Person {
                name: person.name.or(from_user_info.name),
                ..from_user_info
            };
        }
        let email = person.email.ok_or(OidcError::MissingEmail)?;
        Ok(VerifiedIdentity {
            issuer: self.issuer().to_owned(),
            subject: claims.subject().as_str().to_owned(),
            email,
            email_verified: person.email_verified,
            name: person.name,
        })
    }

    async fn user_info(
        &self,
        discovered: &Discovered,
        token: &CoreTokenResponse,
        claims: &openidconnect::core::CoreIdTokenClaims,
    ) -> Result<Person, OidcError> {
        // No user-info endpoint: nothing more to learn; `redeem` reports the missing e-mail.
        let Ok(request) = discovered.client.user_info(
            token.access_token().clone(),
            // The user info must be about the person the ID token names (token substitution).
            Some(claims.subject().clone()),
        ) else {
            return Ok(Person {
                email: None,
                email_verified: false,
                name: None,
            });
        };
        let user_info = request
            .request_async(&self.http)
            .await
            .map_err(error::from_user_info)?;
        Ok(Person::from_user_info(&user_info))
    }

    /// The discovered provider, discovering it first when needed.
    async fn current(&self) -> Result<Arc<Discovered>, OidcError> {
        if let Some(discovered) = self.discovered.read().await.as_ref() {
            return Ok(Arc::clone(discovered));
        }
        let mut slot = self.discovered.write().await;
        // Another call may have discovered it while we waited for the lock.
        if let Some(discovered) = slot.as_ref() {
            return Ok(Arc::clone(discovered));
        }
        let discovered = Arc::new(discovery::discover(&self.settings, &self.http).await?);
        *slot = Some(Arc::clone(&discovered));
        Ok(discovered)
    }

    /// Replaces `stale` with a fresh discovery, unless another call replaced it already.
    async fn rediscover(&self, stale: &Arc<Discovered>) -> Result<Arc<Discovered>, OidcError> {
        let mut slot = self.discovered.write().await;
        if let Some(current) = slot.as_ref()
            && !Arc::ptr_eq(current, stale)
        {
            return Ok(Arc::clone(current));
        }
        let fresh = Arc::new(discovery::discover(&self.settings, &self.http).await?);
        *slot = Some(Arc::clone(&fresh));
        Ok(fresh)
    }
}

#[async_trait]
impl IdentityProvider for OidcProvider {
    async fn begin(&self) -> Result<AuthorizationRequest, IdentityError> {
        Ok(self.authorization_request().await?)
    }

    async fn finish(
        &self,
        code: &str,
        pkce_verifier: &str,
        nonce: &str,
        iss: Option<String>,
    ) -> Result<VerifiedIdentity, IdentityError> {
        // RFC 9207: refuse a response from another issuer before redeeming its code.
        self.check_response_issuer(iss.as_deref()).await?;
        Ok(self.redeem(code, pkce_verifier, nonce).await?)
    }
}
