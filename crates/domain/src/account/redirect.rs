//! Where a person may be sent after signing in: only a path on this service, never another
//! site (an open redirect would lend the service's name to a phishing page).

/// Whether `target` is a path on this service: starts with one `/`, no scheme, no authority, no
/// backslash tricks (`//evil.example`, `/\evil`, `https://evil.example` are refused).
#[must_use]
pub fn is_local_path(target: &str) -> bool {
    target.starts_with('/')
        && !target.starts_with("//")
        && !target.contains('\\')
        && !target.chars().any(char::is_control)
        && target.len() <= 2_000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_same_origin_paths_are_redirect_targets() {
        for ok in ["/", "/profile.html", "/a/b?c=d#e"] {
            assert!(is_local_path(ok), "{ok}");
        }
        for bad in [
            "//evil.example",
            "https://evil.example",
            "/\\evil.example",
            "\\\\evil",
            "evil",
            "",
            "/\u{0}x",
            "/x\ny",
        ] {
            assert!(!is_local_path(bad), "{bad:?}");
        }
    }
}
