//! A sign-in that goes through, from the authorization URL to the verified person.

use adapters_oidc::{OidcError, OidcProvider};
use domain::ports::IdentityProvider;
use openidconnect::url::Url;

use crate::helpers::{IdpOptions, TestIdp, sign_in, signed_in_at_provider};

#[tokio::test]
async fn a_full_sign_in_returns_the_verified_identity() {
    let Some(idp) = TestIdp::start().await else {
        return;
    };
    let provider = OidcProvider::discover(idp.config()).await.unwrap();

    let request = provider.begin().await.unwrap();
    let callback = sign_in(&request.url, "ada.lovelace").await;
    assert_eq!(callback.state, request.state);
    assert_eq!(callback.iss.as_deref(), Some(idp.issuer.as_str()));
    provider
        .check_response_issuer(callback.iss.as_deref())
        .await
        .unwrap();
    let identity = provider
        .finish(
            &callback.code,
            &request.pkce_verifier,
            &request.nonce,
            callback.iss.clone(),
        )
        .await
        .unwrap();

    assert_eq!(identity.issuer, idp.issuer);
    assert_eq!(identity.subject, "ada.lovelace");
    assert_eq!(identity.email, "ada.lovelace@example.org");
    assert!(identity.email_verified);
    assert_eq!(identity.name.as_deref(), Some("Ada Lovelace"));
}

#[tokio::test]
async fn the_authorization_url_asks_for_a_code_with_pkce_s256_and_the_sign_in_scopes() {
    let Some(idp) = TestIdp::start().await else {
        return;
    };
    let provider = OidcProvider::discover(idp.config()).await.unwrap();

    let request = provider.begin().await.unwrap();
    let url = Url::parse(&request.url).unwrap();
    let param = |name: &str| {
        url.query_pairs()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
            .unwrap_or_else(|| panic!("no {name} in {url}"))
    };

    assert!(request.url.starts_with(&format!("{}/auth?", idp.issuer)));
    assert_eq!(param("response_type"), "code");
    assert_eq!(param("code_challenge_method"), "S256");
    assert_eq!(param("scope"), "openid email profile");
    assert_eq!(param("state"), request.state);
    assert_eq!(param("nonce"), request.nonce);
    assert!(!request.url.contains(&request.pkce_verifier));
    // Each sign-in gets its own secrets.
    let other = provider.begin().await.unwrap();
    assert_ne!(other.state, request.state);
    assert_ne!(other.nonce, request.nonce);
    assert_ne!(other.pkce_verifier, request.pkce_verifier);
}

#[tokio::test]
async fn an_unverified_email_is_reported_as_unverified() {
    let Some(idp) = TestIdp::start().await else {
        return;
    };
    let provider = OidcProvider::discover(idp.config()).await.unwrap();

    let request = provider.begin().await.unwrap();
    let callback = sign_in(&request.url, "unverified-bob").await;
    let identity = provider
        .finish(
            &callback.code,
            &request.pkce_verifier,
            &request.nonce,
            callback.iss.clone(),
        )
        .await
        .unwrap();

    assert_eq!(identity.email, "unverified-bob@example.org");
    assert!(!identity.email_verified);
}

#[tokio::test]
async fn claims_kept_at_the_user_info_endpoint_are_read_from_there() {
    let options = IdpOptions {
        conform_id_token_claims: true,
        ..IdpOptions::default()
    };
    let Some(idp) = TestIdp::start_with(options).await else {
        return;
    };
    let provider = OidcProvider::discover(idp.config()).await.unwrap();

    let request = provider.begin().await.unwrap();
    let callback = sign_in(&request.url, "grace@navy.mil").await;
    let identity = provider
        .finish(
            &callback.code,
            &request.pkce_verifier,
            &request.nonce,
            callback.iss.clone(),
        )
        .await
        .unwrap();

    assert_eq!(identity.subject, "grace@navy.mil");
    assert_eq!(identity.email, "grace@navy.mil");
    assert!(identity.email_verified);
    assert_eq!(identity.name.as_deref(), Some("Grace"));
}

/// A provider with [`CLIENT_ID`](adapters_oidc::testing::CLIENT_ID) registered as a public
/// client; `None` when these tests are skipped.
async fn public_client_idp() -> Option<TestIdp> {
    TestIdp::start_with(IdpOptions {
        public_client: true,
        ..IdpOptions::default()
    })
    .await
}

/// An empty client secret (an unset `OIDC_CLIENT_SECRET`) is a public client: the code is
/// redeemed with PKCE alone. The provider refuses a token request from this client that carries
/// any secret, so the sign-in going through shows that not even `""` was sent.
#[tokio::test]
async fn an_empty_client_secret_signs_in_as_a_public_client() {
    let Some(idp) = public_client_idp().await else {
        return;
    };
    let (provider, request, callback) =
        signed_in_at_provider(idp.public_config(), "ada.lovelace").await;

    let identity = provider
        .finish(
            &callback.code,
            &request.pkce_verifier,
            &request.nonce,
            callback.iss.clone(),
        )
        .await
        .unwrap();

    assert_eq!(identity.subject, "ada.lovelace");
    assert!(identity.email_verified);
}

/// The converse, so the test above cannot pass by accident: the same public client configured
/// with a secret is refused by the provider at the token endpoint.
#[tokio::test]
async fn a_public_client_that_sends_a_secret_is_refused_by_the_provider() {
    let Some(idp) = public_client_idp().await else {
        return;
    };
    let (provider, request, callback) = signed_in_at_provider(idp.config(), "ada.lovelace").await;

    let refused = provider
        .redeem(&callback.code, &request.pkce_verifier, &request.nonce)
        .await
        .unwrap_err();

    assert!(
        matches!(refused, OidcError::ClientRejected(ref code) if code == "invalid_client"),
        "{refused:?}"
    );
}
