//! The identity provider being down, late or restarted: the service starts regardless,
//! discovers on first use, and picks up new signing keys.

use adapters_oidc::{OidcError, OidcProvider};
use domain::ports::{IdentityError, IdentityProvider};

use crate::helpers::{IdpOptions, TestIdp, config_for, free_port, sign_in};

#[tokio::test]
async fn discovery_against_a_dead_port_reports_unreachable() {
    let issuer = format!("http://127.0.0.1:{}", free_port());

    let err = OidcProvider::discover(config_for(&issuer))
        .await
        .unwrap_err();
    assert!(matches!(err, OidcError::Discovery(_)), "{err:?}");
    assert!(matches!(
        IdentityError::from(err),
        IdentityError::Unreachable(_)
    ));

    let provider = OidcProvider::new(config_for(&issuer)).unwrap();
    let err = provider.begin().await.unwrap_err();
    assert!(matches!(err, IdentityError::Unreachable(_)), "{err:?}");
    let err = provider
        .finish("code", "verifier", "nonce", None)
        .await
        .unwrap_err();
    assert!(matches!(err, IdentityError::Unreachable(_)), "{err:?}");
}

#[tokio::test]
async fn the_service_can_start_before_the_identity_provider() {
    let port = free_port();
    let provider = OidcProvider::new(config_for(&format!("http://127.0.0.1:{port}"))).unwrap();
    assert!(provider.warm_up().await.is_err());
    assert!(matches!(
        provider.begin().await,
        Err(IdentityError::Unreachable(_))
    ));

    let options = IdpOptions {
        port,
        ..IdpOptions::default()
    };
    let Some(_idp) = TestIdp::start_with(options).await else {
        return;
    };
    let request = provider.begin().await.unwrap();
    let callback = sign_in(&request.url, "late.riser").await;
    let identity = provider
        .finish(
            &callback.code,
            &request.pkce_verifier,
            &request.nonce,
            callback.iss.clone(),
        )
        .await
        .unwrap();
    assert_eq!(identity.email, "late.riser@example.org");
}

#[tokio::test]
async fn new_signing_keys_after_a_provider_restart_are_fetched_again() {
    let Some(first) = TestIdp::start().await else {
        return;
    };
    let port = first.port();
    let provider = OidcProvider::discover(first.config()).await.unwrap();
    first.stop().await;

    // Same issuer, new process, new signing key: the JWKS we hold no longer has it.
    let options = IdpOptions {
        port,
        ..IdpOptions::default()
    };
    let Some(_second) = TestIdp::start_with(options).await else {
        return;
    };
    let request = provider.begin().await.unwrap();
    let callback = sign_in(&request.url, "ada").await;
    let identity = provider
        .finish(
            &callback.code,
            &request.pkce_verifier,
            &request.nonce,
            callback.iss.clone(),
        )
        .await
        .unwrap();
    assert_eq!(identity.subject, "ada");
}
