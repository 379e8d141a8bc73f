//! The settings `discovery-api` reads, each with the default named where it is read, and
//! `.env.example` kept in line with them: the file's values are derived from the code, so a
//! default is written once, in its reading; the file's comments, which say what each setting
//! does, are written by hand. `cargo test -p settings --test env_example` compares the two and
//! `just env-example` rewrites the values.

use crate::Vars;
use crate::api::ApiSettings;
pub use crate::vars::Asked;

/// Variables the service reads outside this crate, listed in `.env.example` as they stand:
/// `WEB_DIR`, the pages' directory (`crates/site`), whose default is a search (`web` in the
/// working directory, else the source tree's), not a value.
pub const READ_ELSEWHERE: &[&str] = &["WEB_DIR"];

/// The comment above settings the code reads that `.env.example` did not list: a test refuses
/// the file while it holds it, so each new setting is moved to its section and described.
pub const UNDESCRIBED: &str = "# Read by the code, not yet described: move each to its section, under a comment saying what \
     it does.";

/// An environment in which every reading of [`ApiSettings`] happens: the identity provider, the
/// model endpoint and e-mail configured (their other settings are read only then), outside dev
/// mode (whose defaults differ: `COOKIE_SECURE`, `AUTH_DEV_LOGIN`). What is not set here is
/// read at its default, so `PUBLIC_BASE_URL` is left unset and `OAUTH_REDIRECT_URI`'s default
/// is derived from its default.
const EVERY_READING: [(&str, &str); 8] = [
    ("JWT_SECRET", "a secret of at least thirty-two bytes"),
    ("OIDC_ISSUER_URL", "https://id.example.org"),
    ("OIDC_CLIENT_ID", "discovery"),
    ("LLM_PROVIDER", "openai"),
    ("LLM_BASE_URL", "https://llm.example.org/v1"),
    ("LLM_MODEL", "a-model"),
    ("SMTP_URL", "smtps://mail.example.org"),
    ("SMTP_FROM", "Discovery <discovery@example.org>"),
];

/// Every variable `discovery-api` reads through this crate, in the order it reads them, each
/// with its default (`None`: off or required when unset). `discovery-batch` reads a part of
/// them, with the same readings.
///
/// # Errors
/// When the readings refuse [`EVERY_READING`], or a variable is read with two different
/// defaults (its default would not be in one place).
pub fn service_settings() -> Result<Vec<Asked>, String> {
    let vars = Vars::from_pairs(EVERY_READING);
    ApiSettings::from_vars(Vec::<String>::new(), &vars).map_err(|e| e.to_string())?;
    // Read before the others, when logging starts.
    let _ = crate::service::log_filter(&vars);
    let conflicts = vars.conflicts();
    if !conflicts.is_empty() {
        return Err(format!(
            "read with two different defaults: {}",
            conflicts.join(", ")
        ));
    }
    Ok(vars.asked())
}

/// `current` (the text of `.env.example`) with each setting's value line set to its default
/// (empty when it has none); a setting the code no longer reads removed; and one it reads that
/// the file lacks appended under [`UNDESCRIBED`]. A commented line such as
/// `# SMTP_URL=smtps://...` is an example and stays as written, if it names a setting; for a
/// setting without a default it may stand in for the value line. Comments and blank lines stay.
#[must_use]
pub fn env_example(current: &str, settings: &[Asked]) -> String {
    let known = |name: &str| settings.iter().find(|s| s.name == name);
    let mut out = Vec::new();
    let mut valued: Vec<&str> = Vec::new();
    let mut exemplified: Vec<&str> = Vec::new();
    for line in current.lines() {
        let Some((commented, name)) = setting_line(line) else {
            out.push(line.to_owned());
            continue;
        };
        let elsewhere = READ_ELSEWHERE.contains(&name);
        match (known(name), commented) {
            (None, _) if elsewhere => out.push(line.to_owned()),
            (None, _) => {}
            (Some(_), true) => {
                exemplified.push(name);
                out.push(line.to_owned());
            }
            (Some(_), false) if valued.contains(&name) => {}
            (Some(setting), false) => {
                valued.push(name);
                out.push(value_line(setting));
            }
        }
    }
    let missing: Vec<&Asked> = settings
        .iter()
        .filter(|s| !valued.contains(&s.name.as_str()))
        .filter(|s| s.default.is_some() || !exemplified.contains(&s.name.as_str()))
        .collect();
    if !missing.is_empty() {
        if out.last().is_some_and(|l| !l.is_empty()) {
            out.push(String::new());
        }
        if !out.iter().any(|l| l == UNDESCRIBED) {
            out.push(UNDESCRIBED.to_owned());
        }
        out.extend(missing.into_iter().map(value_line));
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

fn value_line(setting: &Asked) -> String {
    format!(
        "{}={}",
        setting.name,
        setting.default.as_deref().unwrap_or_default()
    )
}

/// `NAME=...` (`false`) or `# NAME=...` (`true`) with `NAME` in capitals, digits and `_`.
fn setting_line(line: &str) -> Option<(bool, &str)> {
    let (commented, rest) = match line.strip_prefix("# ") {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let (name, _) = rest.split_once('=')?;
    let is_name = name.starts_with(|c: char| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    is_name.then_some((commented, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(name: &str, default: Option<&str>) -> Asked {
        Asked {
            name: name.to_owned(),
            default: default.map(str::to_owned),
        }
    }

    #[test]
    fn values_follow_the_code_and_comments_stay() {
        let settings = [asked("PORT", Some("80")), asked("KEY", None)];
        let current = "# The port.\nPORT=8080\n# The key, e.g.\nKEY=abc\n";
        assert_eq!(
            env_example(current, &settings),
            "# The port.\nPORT=80\n# The key, e.g.\nKEY=\n"
        );
    }

    #[test]
    fn a_setting_no_longer_read_goes_and_a_new_one_is_appended_to_be_described() {
        let settings = [asked("PORT", Some("80")), asked("NEW_ONE", Some("5"))];
        let current = "# The port.\nPORT=80\n# Gone.\nGONE=1\n# GONE=2\n";
        let rendered = env_example(current, &settings);
        assert_eq!(
            rendered,
            format!("# The port.\nPORT=80\n# Gone.\n\n{UNDESCRIBED}\nNEW_ONE=5\n")
        );
        assert_eq!(env_example(&rendered, &settings), rendered, "idempotent");
    }

    #[test]
    fn an_example_stands_for_a_setting_without_default_but_not_for_one_with() {
        let settings = [asked("SMTP_URL", None), asked("LIMIT", Some("10"))];
        let current = "# SMTP_URL=smtps://host\n# LIMIT=20\nWEB_DIR=web\n# the words of a=b\n";
        assert_eq!(
            env_example(current, &settings),
            format!(
                "# SMTP_URL=smtps://host\n# LIMIT=20\nWEB_DIR=web\n# the words of a=b\n\n\
                 {UNDESCRIBED}\nLIMIT=10\n"
            )
        );
    }

    #[test]
    fn a_value_line_written_twice_is_kept_once() {
        let settings = [asked("PORT", Some("80"))];
        assert_eq!(env_example("PORT=80\nPORT=81\n", &settings), "PORT=80\n");
    }

    #[test]
    fn every_reading_of_the_service_is_found_with_its_default() {
        let settings = service_settings().unwrap();
        let default = |name: &str| {
            settings
                .iter()
                .find(|s| s.name == name)
                .unwrap_or_else(|| panic!("{name} not found"))
                .default
                .clone()
        };
        assert_eq!(default("DATABASE_MAX_CONNECTIONS").as_deref(), Some("10"));
        assert_eq!(default("COOKIE_SECURE").as_deref(), Some("true"));
        assert_eq!(default("LLM_PROVIDER").as_deref(), Some("offline"));
        assert_eq!(default("LLM_MAX_TOKENS").as_deref(), Some("2048"));
        assert_eq!(default("RUST_LOG").as_deref(), Some("info"));
        assert_eq!(
            default("OAUTH_REDIRECT_URI").as_deref(),
            Some("http://localhost:8011/api/auth/callback")
        );
        assert_eq!(default("JWT_SECRET"), None);
        assert_eq!(default("SMTP_FROM"), None);
    }
}
