//! The mapping file: ordered rules from a tag to a foundation (first match wins) and a default
//! for intervals no rule matches, either a foundation or `"skip"`.
//!
//! ```toml
//! default = "skip"            # or a foundation; "skip" when left out
//!
//! [[rule]]
//! tag = "writing"
//! foundation = "vocation"
//!
//! [[rule]]
//! tag = "private"
//! foundation = "skip"         # a rule may skip too
//! ```

use std::path::Path;

use serde::Deserialize;

use crate::{FOUNDATIONS, Failure};

/// What to do with an interval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Send it under this foundation (one of [`FOUNDATIONS`]).
    Foundation(String),
    /// Leave it out.
    Skip,
}

/// One rule: intervals carrying `tag` go to `target`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub tag: String,
    pub target: Target,
}

/// The parsed, validated mapping file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapping {
    pub rules: Vec<Rule>,
    pub default: Target,
}

// Unknown keys are refused so a typo (`foundaton`, `defualt`) is an error rather than a rule
// that silently never applies.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMapping {
    default: Option<String>,
    #[serde(default)]
    rule: Vec<RawRule>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    tag: String,
    foundation: String,
}

/// `"skip"` or one of the six foundations; anything else names the valid choices.
fn target(value: &str, at: &str) -> Result<Target, String> {
    if value == "skip" {
        Ok(Target::Skip)
    } else if FOUNDATIONS.contains(&value) {
        Ok(Target::Foundation(value.to_owned()))
    } else {
        Err(format!(
            "{at}: unknown foundation {value:?} (expected one of {}, or \"skip\")",
            FOUNDATIONS.join(", ")
        ))
    }
}

impl Mapping {
    /// Parses and validates the text of a mapping file.
    ///
    /// # Errors
    /// A message naming the problem: TOML syntax (with line and column), an unknown key, a
    /// blank tag, or an unknown foundation (with the rule's number).
    pub fn parse(text: &str) -> Result<Self, String> {
        let raw: RawMapping = toml::from_str(text).map_err(|e| e.to_string().trim().to_owned())?;
        let rules = raw
            .rule
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                let at = format!("rule {}", i + 1);
                if r.tag.trim().is_empty() {
                    return Err(format!("{at}: the tag is empty"));
                }
                Ok(Rule {
                    target: target(&r.foundation, &at)?,
                    tag: r.tag,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let default = match raw.default.as_deref() {
            None => Target::Skip,
            Some(value) => target(value, "default")?,
        };
        Ok(Self { rules, default })
    }

    /// Reads and parses the mapping file at `path`.
    ///
    /// # Errors
    /// [`Failure::Usage`] when the file cannot be read or is not a valid mapping.
    pub fn load(path: &Path) -> Result<Self, Failure> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Failure::Usage(format!(
                "cannot read the mapping file {}: {e}",
                path.display()
            ))
        })?;
        Self::parse(&text)
            .map_err(|e| Failure::Usage(format!("bad mapping file {}: {e}", path.display())))
    }

    /// The target of an interval with these tags: the first rule whose tag it carries, else
    /// the default. Tags match exactly (Timewarrior's tags are case-sensitive).
    #[must_use]
    pub fn target_of(&self, tags: &[String]) -> &Target {
        self.rules
            .iter()
            .find(|rule| tags.contains(&rule.tag))
            .map_or(&self.default, |rule| &rule.target)
    }
}
