//! The correction corpus: the profile the phrasings are read against and the phrasings with
//! what each should do (corrections/README.md describes the format).

use std::path::Path;

use domain::discovery::Extraction;
use domain::ids::UserId;
use domain::profile::provenance::Sources;
use domain::profile::{EditableField, EnneagramType, Profile, ProseFields};
use domain::text::Prose;
use serde::Deserialize;

/// One phrasing and what it should do.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub say: String,
    pub kind: Kind,
    pub field: Option<EditableField>,
    pub effect: Effect,
    /// Words the new text must contain.
    pub has: Option<String>,
    /// Words of the old text the new text must still contain.
    pub keeps: Option<String>,
    /// Words of the old text the new text must no longer contain.
    pub gone: Option<String>,
}

/// How a person said it: the category precision and recall are reported by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Correction,
    Addition,
    Replacement,
    Removal,
    Comparison,
    Goal,
    None,
    Ambiguous,
}

/// What the coach should do to the profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    Replace,
    Add,
    Remove,
    Goal,
    None,
    Ask,
}

impl Kind {
    pub const ALL: [Self; 8] = [
        Self::Correction,
        Self::Addition,
        Self::Replacement,
        Self::Removal,
        Self::Comparison,
        Self::Goal,
        Self::None,
        Self::Ambiguous,
    ];

    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Correction => "correction",
            Self::Addition => "addition",
            Self::Replacement => "replacement",
            Self::Removal => "removal",
            Self::Comparison => "comparison",
            Self::Goal => "goal",
            Self::None => "none",
            Self::Ambiguous => "ambiguous",
        }
    }
}

impl Effect {
    pub const ALL: [Self; 6] = [
        Self::Replace,
        Self::Add,
        Self::Remove,
        Self::Goal,
        Self::None,
        Self::Ask,
    ];

    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Replace => "replace",
            Self::Add => "add",
            Self::Remove => "remove",
            Self::Goal => "goal",
            Self::None => "none",
            Self::Ask => "ask",
        }
    }

    /// Whether the effect changes a field.
    #[must_use]
    pub const fn changes(self) -> bool {
        matches!(self, Self::Replace | Self::Add | Self::Remove | Self::Goal)
    }
}

#[derive(Debug, Deserialize)]
struct CaseFile {
    case: Vec<Case>,
}

/// The profile's seven fields as the corpus writes them.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfileFile {
    love_summary: String,
    strength_summary: String,
    mission_summary: String,
    vocation_summary: String,
    overlap_narrative: String,
    near_term_goal_summary: Option<String>,
    long_term_goal_summary: Option<String>,
}

/// A named set of cases (`tuned`, `held-out`).
#[derive(Debug, Clone)]
pub struct Set {
    pub name: String,
    pub cases: Vec<Case>,
}

/// The corpus: the profile and the sets, tuned first.
#[derive(Debug, Clone)]
pub struct Corpus {
    pub profile: Profile,
    pub sets: Vec<Set>,
}

/// The sets of the corpus, in the order they are reported.
pub const SETS: [&str; 2] = ["tuned", "held-out"];

/// Loads `profile.toml` and the sets from `dir`.
///
/// # Errors
/// A message naming the file that cannot be read or parsed.
pub fn load(dir: &Path) -> Result<Corpus, String> {
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))
    };
    let fields: ProfileFile =
        toml::from_str(&read("profile.toml")?).map_err(|e| format!("profile.toml: {e}"))?;
    let mut sets = Vec::new();
    for name in SETS {
        let file = format!("{name}.toml");
        let cases: CaseFile = toml::from_str(&read(&file)?).map_err(|e| format!("{file}: {e}"))?;
        sets.push(Set {
            name: name.to_owned(),
            cases: cases.case,
        });
    }
    Ok(Corpus {
        profile: profile(fields)?,
        sets,
    })
}

fn profile(f: ProfileFile) -> Result<Profile, String> {
    let prose = |text: String| Prose::new(text).map_err(|e| format!("profile.toml: {e}"));
    let goal = |text: Option<String>| text.map(prose).transpose();
    let extraction = Extraction {
        enneagram_type: EnneagramType::new(2).map_err(|e| e.to_string())?,
        prose: ProseFields {
            love_summary: prose(f.love_summary)?,
            strength_summary: prose(f.strength_summary)?,
            mission_summary: prose(f.mission_summary)?,
            vocation_summary: prose(f.vocation_summary)?,
            overlap_narrative: prose(f.overlap_narrative)?,
            near_term_goal_summary: goal(f.near_term_goal_summary)?,
            long_term_goal_summary: goal(f.long_term_goal_summary)?,
        },
        sources: Sources::default(),
    };
    let now = time::OffsetDateTime::UNIX_EPOCH;
    Ok(Profile::extracted(UserId::new(), extraction, now).profile)
}
