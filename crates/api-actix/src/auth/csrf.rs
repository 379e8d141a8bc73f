//! CSRF defence: a cookie-authenticated unsafe request must come from a page of the service
//! itself (or an allowed origin), as its `Origin` — or, failing that, `Referer` — shows.

use actix_web::HttpRequest;
use actix_web::http::{Method, header};

/// The origins (`scheme://host[:port]`) whose pages may write with the session cookie.
#[derive(Debug, Clone, Default)]
pub struct TrustedOrigins(Vec<String>);

impl TrustedOrigins {
    #[must_use]
    pub fn new(origins: impl IntoIterator<Item = String>) -> Self {
        Self(
            origins
                .into_iter()
                .map(|o| o.trim_end_matches('/').to_ascii_lowercase())
                .collect(),
        )
    }

    #[must_use]
    pub fn contains(&self, origin: &str) -> bool {
        let origin = origin.trim_end_matches('/').to_ascii_lowercase();
        self.0.contains(&origin)
    }

    /// Whether a cookie-authenticated request may proceed: safe methods always, unsafe ones only
    /// with a trusted `Origin` (or `Referer` when no `Origin` is sent).
    #[must_use]
    pub fn allows(&self, req: &HttpRequest) -> bool {
        if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
            return true;
        }
        let headers = req.headers();
        if let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) {
            return self.contains(origin);
        }
        headers
            .get(header::REFERER)
            .and_then(|v| v.to_str().ok())
            .and_then(origin_of)
            .is_some_and(|origin| self.contains(&origin))
    }
}

/// `https://host:port` of a URL.
fn origin_of(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    let origin = parsed.origin();
    origin.is_tuple().then(|| origin.ascii_serialization())
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn origins() -> TrustedOrigins {
        TrustedOrigins::new([
            "http://localhost:8011".to_owned(),
            "https://app.example/".to_owned(),
        ])
    }

    #[test]
    fn unsafe_requests_need_a_trusted_origin_or_referer() {
        let post = |headers: &[(&str, &str)]| {
            let mut req = TestRequest::post();
            for (k, v) in headers {
                req = req.insert_header((*k, *v));
            }
            origins().allows(&req.to_http_request())
        };
        assert!(post(&[("Origin", "http://localhost:8011")]));
        assert!(post(&[("Origin", "https://APP.example")]));
        assert!(!post(&[("Origin", "https://evil.example")]));
        assert!(!post(&[("Origin", "null")]));
        assert!(post(&[(
            "Referer",
            "http://localhost:8011/profile.html?x=1"
        )]));
        assert!(!post(&[("Referer", "http://localhost:8011.evil.example/")]));
        assert!(!post(&[]));
        // An Origin, when present, decides even if the Referer would pass.
        assert!(!post(&[
            ("Origin", "https://evil.example"),
            ("Referer", "http://localhost:8011/")
        ]));
        assert!(origins().allows(&TestRequest::get().to_http_request()));
    }
}
