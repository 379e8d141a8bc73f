//! The webhook sender: one signed `POST` of an event's payload per attempt, bounded in time and
//! in what is read back, never following a redirect, and only ever to public addresses unless
//! private ones are allowed.
//!
//! The address rule is checked where the connection is made (a DNS resolver that keeps only
//! public addresses; asynchronous, each lookup bounded in time), not only when the endpoint is
//! registered: a name may point anywhere later
//! (DNS rebinding), and a redirect could point anywhere at once, which is why none is followed.

pub mod destination;
pub mod limits;
pub mod resolve;
pub mod response;
pub mod signature;

use std::sync::Arc;

use async_trait::async_trait;
use domain::notifications::{DeliveryOutcome, WebhookUrl, WebhookUrlError};
use domain::ports::{WebhookRequest, WebhookSender};
use reqwest::header::CONTENT_TYPE;
use reqwest::redirect::Policy;

use destination::PublicResolver;
use resolve::{Resolver, ResolverError};

pub use limits::{MAX_ANSWER_BYTES, RESOLVE_TIMEOUT, TIMEOUT};

const USER_AGENT: &str = concat!("discovery-service/", env!("CARGO_PKG_VERSION"));

/// The client could not be built.
#[derive(Debug, thiserror::Error)]
pub enum WebhookClientError {
    /// The HTTP client's TLS backend failed to start.
    #[error("the webhook HTTP client could not be built")]
    Http(#[source] reqwest::Error),
    #[error(transparent)]
    Resolver(#[from] ResolverError),
}

/// The sender. Cloning is cheap and clones share the connection pool.
#[derive(Debug, Clone)]
pub struct WebhookClient {
    http: reqwest::Client,
    destinations: PublicResolver,
    allow_private: bool,
}

impl WebhookClient {
    /// A client that sends only to public addresses, or to any when `allow_private` (a
    /// development or test setup with its receiver on this machine or network). Names are
    /// looked up by [`Resolver::system`], each within [`RESOLVE_TIMEOUT`]. Call it inside a
    /// tokio runtime.
    ///
    /// # Errors
    /// [`WebhookClientError`] when the HTTP client or the resolver cannot be built.
    pub fn new(allow_private: bool) -> Result<Self, WebhookClientError> {
        let destinations = PublicResolver::new(Resolver::system(RESOLVE_TIMEOUT)?, allow_private);
        let http = reqwest::Client::builder()
            .timeout(TIMEOUT)
            // A 3xx is the endpoint's answer, and a failure: following it would send the signed
            // payload to an address nobody checked.
            .redirect(Policy::none())
            // No proxy from the environment: a proxy resolves the name itself, so the resolver
            // below would never see it and the address rule would not hold.
            .no_proxy()
            .dns_resolver(Arc::new(destinations.clone()))
            .user_agent(USER_AGENT)
            .build()
            .map_err(WebhookClientError::Http)?;
        Ok(Self {
            http,
            destinations,
            allow_private,
        })
    }

    /// Whether private destinations are allowed.
    #[must_use]
    pub fn allows_private(&self) -> bool {
        self.allow_private
    }
}

#[async_trait]
impl WebhookSender for WebhookClient {
    async fn check_destination(&self, url: &WebhookUrl) -> Result<(), WebhookUrlError> {
        self.destinations.check(url.url()).await
    }

    async fn send(&self, request: &WebhookRequest) -> DeliveryOutcome {
        // reqwest connects to a literal IP without asking the resolver, so it is checked here.
        if !self.allow_private && destination::is_refused_literal(request.url.url()) {
            return response::failed(response::REFUSED);
        }
        let webhook_id = request.event_id.to_string();
        let timestamp = request.timestamp.unix_timestamp();
        let signature =
            match signature::sign(&request.secret, &webhook_id, timestamp, &request.payload) {
                Ok(signature) => signature,
                Err(e) => return response::failed(&e.to_string()),
            };
        let sent = self
            .http
            .post(request.url.url().clone())
            .header(CONTENT_TYPE, "application/json")
            .header(signature::HEADER_ID, webhook_id)
            .header(signature::HEADER_TIMESTAMP, timestamp.to_string())
            .header(signature::HEADER_SIGNATURE, signature)
            .body(request.payload.clone())
            .send()
            .await;
        match sent {
            Ok(answer) => response::outcome(answer).await,
            Err(e) => response::failed(response::describe(&e)),
        }
    }
}
