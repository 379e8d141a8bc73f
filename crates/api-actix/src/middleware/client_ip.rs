//! Who sent a request: the peer address, or, behind a proxy the operator trusts
//! (`RATE_LIMIT_TRUST_FORWARDED_FOR`), the last `X-Forwarded-For` entry. Sign-in limits, the
//! activity log, sessions and request logs all name a caller by this one address.

use std::net::IpAddr;

use actix_web::HttpRequest;

/// Whether the operator trusts a proxy's `X-Forwarded-For` (`RATE_LIMIT_TRUST_FORWARDED_FOR`):
/// app data of its own, so the layers that name the client need nothing else of the state.
#[derive(Debug, Clone, Copy, Default)]
pub struct ForwardedFor {
    pub trusted: bool,
}

/// The client's address as [`of`] finds it, with the trust the app was configured with.
#[must_use]
pub fn of_request(req: &HttpRequest) -> Option<IpAddr> {
    let trusted = req.app_data::<ForwardedFor>().is_some_and(|f| f.trusted);
    of(req, trusted)
}

/// The client's address. Only the last `X-Forwarded-For` entry is taken, and only when trusted:
/// it is the one the proxy appended; earlier entries (and `Forwarded`, `X-Real-IP`) are the
/// client's own words, which anyone can write. `None` when the request did not come over TCP.
#[must_use]
pub fn of(req: &HttpRequest, trust_forwarded_for: bool) -> Option<IpAddr> {
    let forwarded = trust_forwarded_for
        .then(|| {
            req.headers()
                .get_all("x-forwarded-for")
                .last()
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.rsplit(',').next())
                .and_then(|v| v.trim().parse::<IpAddr>().ok())
        })
        .flatten();
    forwarded.or_else(|| req.peer_addr().map(|a| a.ip()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn request(headers: &[(&str, &str)]) -> HttpRequest {
        let mut req = TestRequest::default().peer_addr("192.0.2.1:4000".parse().unwrap());
        for (name, value) in headers {
            req = req.insert_header((*name, *value));
        }
        req.to_http_request()
    }

    #[test]
    fn untrusted_forwarding_headers_are_ignored() {
        let req = request(&[
            ("x-forwarded-for", "203.0.113.9"),
            ("forwarded", "for=203.0.113.10"),
            ("x-real-ip", "203.0.113.11"),
        ]);
        assert_eq!(of(&req, false), Some("192.0.2.1".parse().unwrap()));
    }

    #[test]
    fn a_trusted_proxy_names_the_client_in_its_last_entry() {
        let req = request(&[("x-forwarded-for", "203.0.113.9, 198.51.100.4")]);
        assert_eq!(of(&req, true), Some("198.51.100.4".parse().unwrap()));
        // Several headers: the proxy's is the last one.
        let req = request(&[
            ("x-forwarded-for", "203.0.113.9"),
            ("x-forwarded-for", "2001:db8::7"),
        ]);
        assert_eq!(of(&req, true), Some("2001:db8::7".parse().unwrap()));
    }

    #[test]
    fn a_trusted_but_unreadable_entry_falls_back_to_the_peer() {
        let req = request(&[("x-forwarded-for", "not-an-address")]);
        assert_eq!(of(&req, true), Some("192.0.2.1".parse().unwrap()));
        let req = request(&[]);
        assert_eq!(of(&req, true), Some("192.0.2.1".parse().unwrap()));
    }

    #[test]
    fn no_peer_no_address() {
        assert_eq!(of(&TestRequest::default().to_http_request(), false), None);
    }
}
