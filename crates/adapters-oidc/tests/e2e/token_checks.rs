//! What the adapter refuses: a wrong nonce, a replayed code, a wrong PKCE verifier, an
//! authorization response from another issuer. Refusals never echo a secret.

use adapters_oidc::{OidcError, OidcProvider};
use domain::ports::{IdentityError, IdentityProvider};

use crate::helpers::{TestIdp, sign_in};

/// The error and all its causes, as a log line would show them.
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[tokio::test]
async fn a_wrong_nonce_is_refused_as_an_invalid_token() {
    let Some(idp) = TestIdp::start().await else {
        return;
    };
    let provider = OidcProvider::discover(idp.config()).await.unwrap();

    let request = provider.begin().await.unwrap();
    let callback = sign_in(&request.url, "ada").await;
    let other = provider.begin().await.unwrap();
    let err = provider
        .finish(
            &callback.code,
            &request.pkce_verifier,
            &other.nonce,
            callback.iss.clone(),
        )
        .await
        .unwrap_err();

    assert!(matches!(err, IdentityError::InvalidToken(_)), "{err:?}");
    let text = chain(&err);
    assert!(text.contains("nonce"), "{text}");
    for secret in [
        &callback.code,
        &request.nonce,
        &other.nonce,
        &request.pkce_verifier,
    ] {
        assert!(!text.contains(secret.as_str()), "{text}");
    }
}

#[tokio::test]
async fn a_replayed_code_is_refused() {
    let Some(idp) = TestIdp::start().await else {
        return;
    };
    let provider = OidcProvider::discover(idp.config()).await.unwrap();

    let request = provider.begin().await.unwrap();
    let callback = sign_in(&request.url, "ada").await;
    provider
        .finish(
            &callback.code,
            &request.pkce_verifier,
            &request.nonce,
            callback.iss.clone(),
        )
        .await
        .unwrap();
    let err = provider
        .finish(
            &callback.code,
            &request.pkce_verifier,
            &request.nonce,
            callback.iss.clone(),
        )
        .await
        .unwrap_err();

    assert!(matches!(err, IdentityError::CodeRejected), "{err:?}");
}

#[tokio::test]
async fn a_wrong_pkce_verifier_is_refused() {
    let Some(idp) = TestIdp::start().await else {
        return;
    };
    let provider = OidcProvider::discover(idp.config()).await.unwrap();

    let request = provider.begin().await.unwrap();
    let callback = sign_in(&request.url, "ada").await;
    let other = provider.begin().await.unwrap();
    let err = provider
        .redeem(&callback.code, &other.pkce_verifier, &request.nonce)
        .await
        .unwrap_err();

    assert!(matches!(err, OidcError::CodeRejected(_)), "{err:?}");
    let text = chain(&err);
    assert!(
        !text.contains(&callback.code) && !text.contains(&other.pkce_verifier),
        "{text}"
    );
    assert!(matches!(
        IdentityError::from(err),
        IdentityError::CodeRejected
    ));
}

#[tokio::test]
async fn a_wrong_client_secret_is_a_provider_problem_not_the_users() {
    let Some(idp) = TestIdp::start().await else {
        return;
    };
    let mut config = idp.config();
    config.client_secret = adapters_oidc::ClientSecret::new("not-the-secret".to_owned());
    let provider = OidcProvider::discover(config).await.unwrap();

    let request = provider.begin().await.unwrap();
    let callback = sign_in(&request.url, "ada").await;
    let err = provider
        .redeem(&callback.code, &request.pkce_verifier, &request.nonce)
        .await
        .unwrap_err();

    assert!(
        matches!(err, OidcError::ClientRejected(ref code) if code == "invalid_client"),
        "{err:?}"
    );
    assert!(!chain(&err).contains("not-the-secret"));
    assert!(matches!(
        IdentityError::from(err),
        IdentityError::Misconfigured(_)
    ));
}

#[tokio::test]
async fn an_authorization_response_from_another_issuer_is_refused() {
    let Some(idp) = TestIdp::start().await else {
        return;
    };
    let provider = OidcProvider::discover(idp.config()).await.unwrap();

    provider
        .check_response_issuer(Some(&idp.issuer))
        .await
        .unwrap();
    let other = provider
        .check_response_issuer(Some("https://attacker.example"))
        .await
        .unwrap_err();
    assert!(matches!(other, OidcError::IssuerMismatch), "{other:?}");
    // This provider announces `iss` (RFC 9207), so a response without it is refused too.
    let missing = provider.check_response_issuer(None).await.unwrap_err();
    assert!(matches!(missing, OidcError::IssuerMismatch), "{missing:?}");

    // Through the port: a mismatched `iss` is refused before the code is redeemed, so the
    // same code still works afterwards with the right one.
    let request = provider.begin().await.unwrap();
    let callback = sign_in(&request.url, "ada").await;
    let refused = provider
        .finish(
            &callback.code,
            &request.pkce_verifier,
            &request.nonce,
            Some("https://attacker.example".into()),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(refused, IdentityError::CodeRejected),
        "{refused:?}"
    );
    provider
        .finish(
            &callback.code,
            &request.pkce_verifier,
            &request.nonce,
            callback.iss.clone(),
        )
        .await
        .unwrap();
}

/// A provider that signs ID tokens with HS256 (keyed with the client secret, which the client
/// itself knows): whoever holds the secret could mint a token for anyone, so it is refused.
#[tokio::test]
async fn an_id_token_signed_with_a_symmetric_algorithm_is_refused() {
    let Some(idp) = TestIdp::start_with(adapters_oidc::testing::IdpOptions {
        id_token_alg: Some("HS256".to_owned()),
        ..adapters_oidc::testing::IdpOptions::default()
    })
    .await
    else {
        return;
    };
    let provider = OidcProvider::discover(idp.config()).await.unwrap();
    let request = provider.begin().await.unwrap();
    let callback = sign_in(&request.url, "ada").await;
    let err = provider
        .finish(
            &callback.code,
            &request.pkce_verifier,
            &request.nonce,
            callback.iss.clone(),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, IdentityError::InvalidToken(_)), "{err:?}");
    let text = chain(&err);
    assert!(
        text.to_lowercase().contains("alg") || text.contains("HS256"),
        "{text}"
    );
}
