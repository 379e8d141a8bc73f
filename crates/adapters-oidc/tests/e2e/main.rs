//! End-to-end tests of the OpenID Connect adapter against a real OpenID provider
//! (`tests/oidc-provider`, panva/oidc-provider on Node), signing in through its development
//! login and consent pages with a plain HTTP client. One binary; modules by topic.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod helpers;
mod provider_availability;
mod sign_in;
mod token_checks;
