//! The test identity provider and the browser stand-in live in `adapters_oidc::testing` (feature
//! `testing`), shared with the API's sign-in tests; this module re-exports what these tests use,
//! and adds the first half of a sign-in that many of them share.

pub use adapters_oidc::testing::{IdpOptions, TestIdp, config_for, free_port, sign_in};

use adapters_oidc::testing::Callback;
use adapters_oidc::{OidcConfig, OidcProvider};
use domain::ports::{AuthorizationRequest, IdentityProvider};

/// Discovers the provider as `config` says, begins a sign-in and goes through the provider's
/// pages as `login`: the request and the callback, with the code not yet redeemed.
pub async fn signed_in_at_provider(
    config: OidcConfig,
    login: &str,
) -> (OidcProvider, AuthorizationRequest, Callback) {
    let provider = OidcProvider::discover(config).await.unwrap();
    let request = provider.begin().await.unwrap();
    let callback = sign_in(&request.url, login).await;
    (provider, request, callback)
}
