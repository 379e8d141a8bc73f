//! The warning printed before the API key goes over plain `http` to another machine: the one
//! decision of which service addresses are this machine (loopback) and which are not.

use std::net::IpAddr;

use url::{Host, Url};

/// The warning for a run against `base_url`, or `None` when the key stays encrypted (`https`)
/// or on this machine (plain `http` to a loopback address or `localhost`). A URL that does not
/// parse gets none here: [`crate::client::Client::new`] refuses it.
#[must_use]
pub fn warning(base_url: &str) -> Option<String> {
    let url = Url::parse(base_url.trim()).ok()?;
    if url.scheme() != "http" || is_loopback(&url) {
        return None;
    }
    let host = url.host_str().unwrap_or_default();
    Some(format!(
        "warning: the API key goes over plain http to {host}, which is not this machine: \
         anyone on the way can read it and act as you; use an https:// --url"
    ))
}

/// Whether `url` names this machine: `localhost`, `127.0.0.0/8` or `::1` (also as an
/// IPv4-mapped address). Other names are not trusted to resolve to loopback.
fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(name)) => name.trim_end_matches('.').eq_ignore_ascii_case("localhost"),
        Some(Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(Host::Ipv6(ip)) => {
            ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
        None => false,
    }
}
