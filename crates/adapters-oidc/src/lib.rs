//! The OpenID Connect adapter: implements the domain's [`IdentityProvider`] port with the
//! `openidconnect` crate (discovery, authorization code + PKCE S256, `state`, `nonce`, ID-token
//! verification against the provider's JWKS).
//!
//! ```no_run
//! # async fn demo() -> Result<(), adapters_oidc::OidcError> {
//! use adapters_oidc::{ClientSecret, OidcConfig, OidcProvider};
//! let config = OidcConfig::new(
//!     "https://idp.example.org",
//!     "discovery",
//!     ClientSecret::new("s3cret".to_owned()),
//!     "http://127.0.0.1:8011/api/auth/callback",
//! );
//! // No I/O here: the service starts even while the identity provider is down.
//! let provider = OidcProvider::new(config)?;
//! // Optional: discover now so a misconfiguration shows up in the start-up log.
//! if let Err(e) = provider.warm_up().await {
//!     eprintln!("identity provider not ready yet, will retry on first sign-in: {e}");
//! }
//! # Ok(()) }
//! ```
//!
//! [`IdentityProvider`]: domain::ports::IdentityProvider

mod config;
mod discovery;
mod error;
mod http;
mod identity;
mod provider;
#[cfg(feature = "testing")]
pub mod testing;

pub use config::{ClientSecret, OidcConfig};
pub use error::OidcError;
pub use provider::OidcProvider;
