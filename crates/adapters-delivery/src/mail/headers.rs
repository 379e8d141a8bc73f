//! The two headers of RFC 8058 one-click unsubscribe, which lettre does not have:
//! `List-Unsubscribe: <https://…>` (RFC 2369) and `List-Unsubscribe-Post: List-Unsubscribe=One-Click`.
//! Mail programs show an "unsubscribe" button for them and `POST` the URL without a click on a
//! page, which is why the URL is signed for the person and the setting.

use std::error::Error;

use lettre::message::header::{Header, HeaderName, HeaderValue};

type BoxError = Box<dyn Error + Send + Sync>;

/// `List-Unsubscribe: <url>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListUnsubscribe(pub String);

impl Header for ListUnsubscribe {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("List-Unsubscribe")
    }

    fn parse(s: &str) -> Result<Self, BoxError> {
        s.trim()
            .strip_prefix('<')
            .and_then(|rest| rest.strip_suffix('>'))
            .map(|url| Self(url.to_owned()))
            .ok_or_else(|| "List-Unsubscribe is not <URL>".into())
    }

    fn display(&self) -> HeaderValue {
        // lettre encodes the value (RFC 2047) if it holds anything unsafe in a header, so a line
        // break in the URL could not start a header of its own.
        HeaderValue::new(Self::name(), format!("<{}>", self.0))
    }
}

/// `List-Unsubscribe-Post: List-Unsubscribe=One-Click`, the one value RFC 8058 defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListUnsubscribePost;

impl ListUnsubscribePost {
    pub const VALUE: &'static str = "List-Unsubscribe=One-Click";
}

impl Header for ListUnsubscribePost {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("List-Unsubscribe-Post")
    }

    fn parse(s: &str) -> Result<Self, BoxError> {
        if s.trim() == Self::VALUE {
            Ok(Self)
        } else {
            Err("List-Unsubscribe-Post is not List-Unsubscribe=One-Click".into())
        }
    }

    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), Self::VALUE.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use lettre::message::header::Headers;

    use super::*;

    #[test]
    fn both_headers_read_back_what_they_write() {
        let url = "https://discovery.example/api/unsubscribe?token=a.b-c";
        let mut headers = Headers::new();
        headers.set(ListUnsubscribe(url.to_owned()));
        headers.set(ListUnsubscribePost);
        assert_eq!(
            headers.get_raw("List-Unsubscribe"),
            Some(format!("<{url}>").as_str())
        );
        assert_eq!(
            headers.get_raw("List-Unsubscribe-Post"),
            Some("List-Unsubscribe=One-Click")
        );
        assert_eq!(
            headers.get::<ListUnsubscribe>(),
            Some(ListUnsubscribe(url.to_owned()))
        );
        assert_eq!(
            headers.get::<ListUnsubscribePost>(),
            Some(ListUnsubscribePost)
        );
        assert!(ListUnsubscribe::parse(url).is_err());
        assert!(ListUnsubscribePost::parse("List-Unsubscribe=Twice").is_err());
    }
}
