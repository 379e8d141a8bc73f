//! Where a webhook may go: the resolver behind every connection, which keeps only public
//! addresses, the same rule for URLs whose host is a literal IP (reqwest does not resolve those),
//! and the check made when an endpoint is registered. The rule itself is the domain's
//! [`is_public`]; the lookups are [`Resolver`]'s (asynchronous, bounded in time).

use std::error::Error;
use std::io;
use std::net::{IpAddr, SocketAddr};

use domain::notifications::WebhookUrlError;
use domain::notifications::address::is_public;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

use super::resolve::Resolver;

/// A connection was refused because its host resolves only to addresses a request may not go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the destination is not allowed: it resolves only to non-public addresses")]
pub struct DestinationRefused;

/// reqwest's DNS resolver for the webhook client: [`Resolver`]'s lookup, less every address
/// that is not public unless private ones are allowed. The connection is made only to what this
/// returns, so a name that resolves to a private address at send time is refused even if it was
/// public when the endpoint was registered.
#[derive(Debug, Clone)]
pub struct PublicResolver {
    resolver: Resolver,
    allow_private: bool,
}

impl PublicResolver {
    #[must_use]
    pub fn new(resolver: Resolver, allow_private: bool) -> Self {
        Self {
            resolver,
            allow_private,
        }
    }

    /// Whether `url` may be registered now: a literal IP is checked as it is, a name must
    /// resolve (within the resolver's bound) and every address it resolves to must be public,
    /// unless private ones are allowed. Every address, not just one: the connection may go to
    /// any of them.
    ///
    /// # Errors
    /// [`WebhookUrlError::Unresolvable`] when the name does not resolve,
    /// [`WebhookUrlError::PrivateAddress`] when an address is not public.
    pub async fn check(&self, url: &Url) -> Result<(), WebhookUrlError> {
        let addresses = match url.host() {
            Some(Host::Ipv4(ip)) => vec![IpAddr::V4(ip)],
            Some(Host::Ipv6(ip)) => vec![IpAddr::V6(ip)],
            Some(Host::Domain(name)) => self
                .resolver
                .lookup(name)
                .await
                .map_err(|_| WebhookUrlError::Unresolvable)?,
            None => return Err(WebhookUrlError::NotAUrl),
        };
        if !self.allow_private && !addresses.into_iter().all(is_public) {
            return Err(WebhookUrlError::PrivateAddress);
        }
        Ok(())
    }
}

impl Resolve for PublicResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let this = self.clone();
        Box::pin(async move {
            let resolved = this
                .resolver
                .lookup(name.as_str())
                .await
                .map_err(|e| io::Error::new(io::ErrorKind::NotFound, e))?;
            let allowed: Vec<SocketAddr> = resolved
                .into_iter()
                .filter(|ip| this.allow_private || is_public(*ip))
                // Port 0: reqwest puts the URL's port (or the scheme's) in its place.
                .map(|ip| SocketAddr::new(ip, 0))
                .collect();
            if allowed.is_empty() {
                return Err(Box::new(DestinationRefused) as Box<dyn Error + Send + Sync>);
            }
            Ok(Box::new(allowed.into_iter()) as Addrs)
        })
    }
}

/// Whether `url`'s host is a literal IP address a request may not go to (private ones not
/// allowed). Names are left to the resolver.
#[must_use]
pub fn is_refused_literal(url: &Url) -> bool {
    match url.host() {
        Some(Host::Ipv4(ip)) => !is_public(IpAddr::V4(ip)),
        Some(Host::Ipv6(ip)) => !is_public(IpAddr::V6(ip)),
        Some(Host::Domain(_)) | None => false,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn url(raw: &str) -> Url {
        Url::parse(raw).unwrap()
    }

    fn guard(allow_private: bool) -> PublicResolver {
        PublicResolver::new(
            Resolver::system(Duration::from_secs(5)).unwrap(),
            allow_private,
        )
    }

    #[test]
    fn literal_private_addresses_are_refused_and_names_left_to_the_resolver() {
        for refused in [
            "http://127.0.0.1:8080/",
            "https://10.1.2.3/",
            "https://[::1]/",
            "https://[::ffff:192.168.0.1]/",
            "https://169.254.169.254/latest/meta-data",
            "https://[::127.0.0.1]/",
            "https://[64:ff9b::a9fe:a9fe]/",
            "https://[2002:a00:1::1]/",
            "https://[100::1]/",
            "https://203.0.113.9/",
        ] {
            assert!(is_refused_literal(&url(refused)), "{refused}");
        }
        for passed in [
            "https://93.184.215.14/",
            "https://[2606:4700::6810:85e5]/",
            "https://[64:ff9b::5db8:d70e]/",
            "https://localhost/",
            "https://hooks.example.com/",
        ] {
            assert!(!is_refused_literal(&url(passed)), "{passed}");
        }
    }

    #[tokio::test]
    async fn literal_addresses_are_checked_as_they_are() {
        assert_eq!(
            guard(false).check(&url("https://10.0.0.1/")).await,
            Err(WebhookUrlError::PrivateAddress)
        );
        assert_eq!(
            guard(false).check(&url("https://[::127.0.0.1]/")).await,
            Err(WebhookUrlError::PrivateAddress)
        );
        assert_eq!(guard(true).check(&url("https://10.0.0.1/")).await, Ok(()));
        assert_eq!(
            guard(false).check(&url("https://93.184.215.14/")).await,
            Ok(())
        );
    }

    #[tokio::test]
    async fn a_name_is_checked_by_every_address_it_resolves_to() {
        assert_eq!(
            guard(false).check(&url("https://localhost/")).await,
            Err(WebhookUrlError::PrivateAddress)
        );
        assert_eq!(guard(true).check(&url("https://localhost/")).await, Ok(()));
        assert_eq!(
            guard(true)
                .check(&url("https://does-not-exist.invalid/"))
                .await,
            Err(WebhookUrlError::Unresolvable)
        );
    }

    #[tokio::test]
    async fn the_resolver_drops_private_addresses_unless_allowed() {
        let refused = guard(false)
            .resolve("localhost".parse().unwrap())
            .await
            .err()
            .expect("localhost is refused");
        assert!(refused.downcast_ref::<DestinationRefused>().is_some());
        let allowed: Vec<SocketAddr> = guard(true)
            .resolve("localhost".parse().unwrap())
            .await
            .unwrap()
            .collect();
        assert!(!allowed.is_empty());
        assert!(
            allowed
                .iter()
                .all(|a| a.ip().is_loopback() && a.port() == 0)
        );
    }
}
