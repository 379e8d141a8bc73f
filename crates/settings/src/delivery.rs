//! How notifications leave, for the service's delivery worker and `discovery-batch deliver`
//! alike: `SMTP_URL` and `SMTP_FROM` for e-mail, `WEBHOOK_ALLOW_PRIVATE` for webhooks.

use secrecy::SecretString;
use url::Url;

use crate::error::invalid;
use crate::{SettingError, Vars};

/// Where e-mail goes out.
#[derive(Debug, Clone)]
pub struct SmtpSettings {
    /// `smtp://` with `?tls=required` for STARTTLS, `smtps://` for implicit TLS, credentials in
    /// the URL: a secret, as it may hold a password, so `Debug` shows none of it.
    pub url: SecretString,
    pub from: String,
}

/// `SMTP_URL` and `SMTP_FROM`; `None` when `SMTP_URL` is unset (no e-mail is sent).
///
/// # Errors
/// `SMTP_URL` without `SMTP_FROM`, an `SMTP_URL` that names a query parameter twice, or one
/// that would send its password without TLS to another machine. The message never quotes the
/// URL.
pub fn smtp(vars: &Vars<'_>) -> Result<Option<SmtpSettings>, SettingError> {
    match (vars.get("SMTP_URL"), vars.get("SMTP_FROM")) {
        (None, _) => Ok(None),
        (Some(_), None) => Err(invalid(
            "SMTP_FROM",
            "must be set with SMTP_URL, e.g. Discovery <discovery@example.org>",
        )),
        (Some(url), Some(from)) => {
            if let Some(key) = repeated_query_key(&url) {
                // The mail library reads the first of them and this check could read another:
                // one value per key keeps both readings the same.
                return Err(invalid(
                    "SMTP_URL",
                    format!("names the parameter {key:?} more than once"),
                ));
            }
            if sends_password_in_clear(&url) {
                return Err(invalid(
                    "SMTP_URL",
                    "would send its password unencrypted: use smtps:// or add ?tls=required",
                ));
            }
            Ok(Some(SmtpSettings {
                url: url.into(),
                from,
            }))
        }
    }
}

/// `WEBHOOK_ALLOW_PRIVATE` (false): plain `http` and private, loopback or link-local webhook
/// destinations.
///
/// # Errors
/// A value that is not a flag.
pub fn webhook_allow_private(vars: &Vars<'_>) -> Result<bool, SettingError> {
    vars.flag("WEBHOOK_ALLOW_PRIVATE", false)
}

/// The first query key an `SMTP_URL` names more than once; an unparsable URL is left to the
/// mailer. The key is not secret (the password lives in the user-info), but it is cut short so
/// that a pasted value cannot fill the log line.
fn repeated_query_key(smtp_url: &str) -> Option<String> {
    let url = Url::parse(smtp_url).ok()?;
    let mut seen = std::collections::HashSet::new();
    url.query_pairs()
        .map(|(k, _)| k.into_owned())
        .find(|k| !seen.insert(k.clone()))
        .map(|k| k.chars().take(32).collect())
}

/// Whether an `SMTP_URL` carries a password over plain SMTP to another machine (lettre sends
/// `AUTH PLAIN` on a connection without TLS unless the URL asks for it). An unparsable URL is
/// left to the mailer, which names `SMTP_URL` in its error.
fn sends_password_in_clear(smtp_url: &str) -> bool {
    let Ok(url) = Url::parse(smtp_url) else {
        return false;
    };
    // `smtp:` is not a special scheme to the URL parser, so an IPv4 host comes back as a name.
    let loopback = match url.host() {
        Some(url::Host::Domain(d)) => {
            d.eq_ignore_ascii_case("localhost")
                || d.parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback())
        }
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    let tls_required = url
        .query_pairs()
        .any(|(k, v)| k == "tls" && v == "required");
    url.scheme() == "smtp" && url.password().is_some() && !tls_required && !loopback
}

#[cfg(test)]
mod tests {
    use super::*;
    use secrecy::ExposeSecret;

    fn with(url: &str) -> Result<Option<SmtpSettings>, SettingError> {
        smtp(&Vars::from_pairs([
            ("SMTP_URL", url),
            ("SMTP_FROM", "d@example.org"),
        ]))
    }

    #[test]
    fn without_smtp_url_no_e_mail_and_no_private_webhooks() {
        let none = Vars::from_pairs([("SMTP_FROM", "d@example.org")]);
        assert!(matches!(smtp(&none), Ok(None)));
        assert_eq!(webhook_allow_private(&none), Ok(false));
    }

    #[test]
    fn a_password_never_travels_in_clear_to_another_host() {
        for fine in [
            "smtps://user:pw@mail.example.org",
            "smtp://user:pw@mail.example.org?tls=required",
            "smtp://mail.example.org",
            "smtp://user:pw@127.0.0.1:2525",
            "smtp://user:pw@localhost:2525",
            "smtp://user:pw@[::1]:2525",
        ] {
            let s = with(fine).unwrap().unwrap();
            assert_eq!(s.url.expose_secret(), fine);
            let shown = format!("{s:?}");
            assert!(!shown.contains("pw@"), "no password in Debug: {shown}");
            assert!(shown.contains("d@example.org"), "{shown}");
        }
        for refused in [
            "smtp://user:pw@mail.example.org:587",
            "smtp://user:pw@10.0.0.5:25",
            "smtp://user:pw@mail.example.org?tls=opportunistic",
        ] {
            let err = with(refused).unwrap_err().to_string();
            assert!(err.starts_with("SMTP_URL is not valid"), "{refused}: {err}");
            assert!(!err.contains("pw"), "{err}");
            assert!(!err.contains('\n'));
        }
    }

    #[test]
    fn a_query_parameter_is_named_once() {
        // The reproduction of issue 43: lettre used the first `tls` and sent the password in
        // clear, while this check saw the second.
        for refused in [
            "smtp://user:secret@mail.example.org:587?tls=opportunistic&tls=required",
            "smtp://user:secret@mail.example.org?tls=required&tls=required",
            "smtps://user:secret@mail.example.org?tls=wrapper&x=1&tls=wrapper",
        ] {
            let err = with(refused).unwrap_err().to_string();
            assert!(err.starts_with("SMTP_URL is not valid"), "{refused}: {err}");
            assert!(err.contains("\"tls\" more than once"), "{err}");
            assert!(!err.contains("secret"), "{err}");
        }
        let two_keys = "smtp://user:pw@mail.example.org?tls=required&x=1";
        assert_eq!(
            with(two_keys).unwrap().unwrap().url.expose_secret(),
            two_keys
        );
    }

    #[test]
    fn smtp_url_needs_smtp_from() {
        let err = smtp(&Vars::from_pairs([(
            "SMTP_URL",
            "smtps://mail.example.org",
        )]))
        .unwrap_err();
        assert!(
            err.to_string().starts_with("SMTP_FROM is not valid"),
            "{err}"
        );
    }

    #[test]
    fn the_private_webhook_flag_is_a_flag() {
        let on = Vars::from_pairs([("WEBHOOK_ALLOW_PRIVATE", "true")]);
        assert_eq!(webhook_allow_private(&on), Ok(true));
        let bad = Vars::from_pairs([("WEBHOOK_ALLOW_PRIVATE", "sometimes")]);
        let err = webhook_allow_private(&bad).unwrap_err().to_string();
        assert!(
            err.starts_with("WEBHOOK_ALLOW_PRIVATE is not valid"),
            "{err}"
        );
    }
}
