//! Keeping the passwords of URL settings (`DATABASE_URL`, `SMTP_URL`) out of what a binary
//! prints: a message that might quote one gets it replaced, as written and percent-decoded.

/// `text` with the password of `url` (as written, and percent-decoded) replaced by `***`.
#[must_use]
pub fn url_password(text: &str, url: &str) -> String {
    let Some(password) = password_of(url) else {
        return text.to_owned();
    };
    let mut out = text.to_owned();
    let decoded = percent_encoding::percent_decode_str(password).decode_utf8_lossy();
    for secret in [decoded.into_owned(), password.to_owned()] {
        if !secret.is_empty() {
            out = out.replace(&secret, "***");
        }
    }
    out
}

/// The password of `scheme://user:password@host/...` or of a `password=` query parameter.
fn password_of(url: &str) -> Option<&str> {
    let (_, rest) = url.split_once("://")?;
    let (base, query) = rest.split_once('?').unwrap_or((rest, ""));
    let in_query = query
        .split('&')
        .find_map(|pair| pair.strip_prefix("password="));
    let authority = base.split('/').next().unwrap_or(base);
    let in_userinfo = authority
        .rsplit_once('@')
        .and_then(|(userinfo, _)| userinfo.split_once(':'))
        .map(|(_, p)| p);
    in_userinfo.or(in_query).filter(|p| !p.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_of_the_url_is_redacted_as_written_and_decoded() {
        let url = "postgres://app:p%40ss-w0rd@db.example:5432/discovery?sslmode=require";
        assert_eq!(password_of(url), Some("p%40ss-w0rd"));
        assert_eq!(
            url_password("failed for p@ss-w0rd and p%40ss-w0rd at db.example", url),
            "failed for *** and *** at db.example"
        );
        assert_eq!(
            password_of("postgres://app@db.example/x?sslmode=disable&password=s3cret"),
            Some("s3cret")
        );
        for no_password in [
            "postgres://app@db.example/discovery",
            "postgres://app:@db.example/discovery",
            "sqlite://data/discovery.db",
            "data/discovery.db",
        ] {
            assert_eq!(password_of(no_password), None, "{no_password}");
            assert_eq!(url_password("text", no_password), "text");
        }
    }
}
