//! Name lookups for webhooks: an asynchronous DNS resolver (hickory) configured from the
//! system's `/etc/resolv.conf` and `/etc/hosts`, each lookup bounded in time. Not the system's
//! `getaddrinfo`: tokio runs that on its blocking pool, the one the database work waits on, and
//! a slow or silent name server would hold one of its threads per lookup for as long as the C
//! library keeps retrying, whatever timeout the caller puts around it.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::Duration;

use hickory_resolver::config::{LookupIpStrategy, NameServerConfig, ResolverConfig};
use hickory_resolver::net::NetError;
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use hickory_resolver::{ResolverBuilder, TokioResolver};

/// Why a name gave no address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    #[error("the name does not exist or has no address")]
    NotFound,
    #[error("the name server did not answer in time")]
    TimedOut,
    #[error("the name could not be resolved")]
    Failed,
}

/// The resolver could not be built.
#[derive(Debug, thiserror::Error)]
#[error("the DNS resolver could not be built: {0}")]
pub struct ResolverError(String);

/// A shared asynchronous resolver. Cloning is cheap; clones share its cache.
#[derive(Clone)]
pub struct Resolver {
    inner: Arc<TokioResolver>,
    bound: Duration,
}

impl std::fmt::Debug for Resolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolver")
            .field("bound", &self.bound)
            .finish_non_exhaustive()
    }
}

impl Resolver {
    /// The system's configuration, every lookup ending within `bound`. Without a usable
    /// `/etc/resolv.conf` (missing, or naming no name server) the name server is this machine's
    /// (127.0.0.1), as the C library does. `/etc/hosts` is read once, here.
    ///
    /// # Errors
    /// [`ResolverError`] when the resolver cannot be built.
    pub fn system(bound: Duration) -> Result<Self, ResolverError> {
        let builder = TokioResolver::builder_tokio().unwrap_or_else(|_| {
            let local = NameServerConfig::udp_and_tcp(IpAddr::V4(Ipv4Addr::LOCALHOST));
            TokioResolver::builder_with_config(
                ResolverConfig::from_name_servers(vec![local]),
                TokioRuntimeProvider::default(),
            )
        });
        Self::build(builder, bound)
    }

    fn build(
        mut builder: ResolverBuilder<TokioRuntimeProvider>,
        bound: Duration,
    ) -> Result<Self, ResolverError> {
        let options = builder.options_mut();
        // Both families, as getaddrinfo gives them: the guard sees every address a
        // connection could go to.
        options.ip_strategy = LookupIpStrategy::Ipv4AndIpv6;
        // No single try longer than the whole lookup may take.
        options.timeout = options.timeout.min(bound);
        let inner = builder.build().map_err(|e| ResolverError(e.to_string()))?;
        Ok(Self {
            inner: Arc::new(inner),
            bound,
        })
    }

    /// The addresses `host` resolves to (from `/etc/hosts`, `localhost` as RFC 6761 says, or
    /// DNS), never empty.
    ///
    /// # Errors
    /// [`LookupError::TimedOut`] when no answer came within the bound, [`LookupError::NotFound`]
    /// for a name without addresses, [`LookupError::Failed`] otherwise.
    pub async fn lookup(&self, host: &str) -> Result<Vec<IpAddr>, LookupError> {
        let found = tokio::time::timeout(self.bound, self.inner.lookup_ip(host))
            .await
            .map_err(|_| LookupError::TimedOut)?
            .map_err(|e| match e {
                NetError::Timeout => LookupError::TimedOut,
                e if e.is_nx_domain() || e.is_no_records_found() => LookupError::NotFound,
                _ => LookupError::Failed,
            })?;
        let addresses: Vec<IpAddr> = found.iter().collect();
        if addresses.is_empty() {
            return Err(LookupError::NotFound);
        }
        Ok(addresses)
    }
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;
    use std::time::Instant;

    use hickory_resolver::config::{ConnectionConfig, ResolveHosts};

    use super::*;

    /// A resolver asking only the name server at `server` over UDP, without `/etc/hosts`.
    fn asking(server: SocketAddr, bound: Duration) -> Resolver {
        let mut udp = ConnectionConfig::udp();
        udp.port = server.port();
        let config = ResolverConfig::from_name_servers(vec![NameServerConfig::new(
            server.ip(),
            true,
            vec![udp],
        )]);
        let mut builder =
            TokioResolver::builder_with_config(config, TokioRuntimeProvider::default());
        builder.options_mut().use_hosts_file = ResolveHosts::Never;
        Resolver::build(builder, bound).unwrap()
    }

    #[tokio::test]
    async fn a_name_server_that_never_answers_ends_the_lookup_at_the_bound() {
        // Bound, read from, never answered.
        let silent = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let bound = Duration::from_millis(300);
        let resolver = asking(silent.local_addr().unwrap(), bound);

        let started = Instant::now();
        let result = resolver.lookup("hooks.example.com.").await;
        let took = started.elapsed();

        assert_eq!(result, Err(LookupError::TimedOut));
        assert!(took >= bound, "{took:?}");
        assert!(took < Duration::from_secs(3), "{took:?}");
        // It did ask there: the query is waiting in the socket.
        let mut buf = [0_u8; 512];
        let asked = tokio::time::timeout(Duration::from_secs(1), silent.recv_from(&mut buf)).await;
        assert!(matches!(asked, Ok(Ok((n, _))) if n > 12), "{asked:?}");
    }

    #[tokio::test]
    async fn localhost_resolves_to_loopback_without_a_name_server() {
        let resolver = Resolver::system(Duration::from_secs(5)).unwrap();
        let addresses = resolver.lookup("localhost").await.unwrap();
        assert!(addresses.iter().all(IpAddr::is_loopback), "{addresses:?}");
        assert!(addresses.contains(&IpAddr::V4(Ipv4Addr::LOCALHOST)));
    }

    #[tokio::test]
    async fn a_reserved_name_is_not_found() {
        // RFC 6761: `.invalid` never resolves, and the resolver answers so without asking.
        let resolver = Resolver::system(Duration::from_secs(5)).unwrap();
        assert_eq!(
            resolver.lookup("does-not-exist.invalid").await,
            Err(LookupError::NotFound)
        );
    }
}
