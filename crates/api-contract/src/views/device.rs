//! A device's name in words ("Firefox on Linux") from a session's `User-Agent`, for the account
//! page's list of sessions; the raw string stays beside it in `user_agent`.

use woothee::parser::Parser;
use woothee::woothee::VALUE_UNKNOWN;

/// The browser and the system it runs on, as people name them; `None` when the parser does not
/// know the browser (a raw string says more than "Unknown" would).
#[must_use]
pub fn device_name(user_agent: &str) -> Option<String> {
    let parsed = Parser::new().parse(user_agent)?;
    let known = |s: &str| !s.is_empty() && s != VALUE_UNKNOWN;
    if !known(parsed.name) {
        return None;
    }
    Some(if known(parsed.os) {
        format!("{} on {}", parsed.name, system(parsed.os))
    } else {
        parsed.name.to_owned()
    })
}

/// Woothee's system names, spelled as their makers do today.
fn system(os: &str) -> &str {
    match os {
        "Mac OSX" => "macOS",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::device_name;

    #[test]
    fn real_browsers_are_named_with_their_system() {
        for (agent, name) in [
            (
                "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
                "Firefox on Linux",
            ),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) \
                 Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
                "Edge on Windows 10",
            ),
            (
                "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like \
                 Gecko) Version/18.1 Safari/605.1.15",
                "Safari on macOS",
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 \
                 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
                "Safari on iPhone",
            ),
            (
                "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) \
                 Chrome/131.0.0.0 Mobile Safari/537.36",
                "Chrome on Android",
            ),
        ] {
            assert_eq!(device_name(agent).as_deref(), Some(name), "{agent}");
        }
    }

    #[test]
    fn an_unknown_agent_has_no_name() {
        for agent in ["", "Other device", "-"] {
            assert_eq!(device_name(agent), None, "{agent:?}");
        }
    }
}
