//! Fixtures: one person's seven answers and the expectations checked mechanically against what
//! the service would store (fixtures/README.md describes the format).

use std::fmt;
use std::path::{Path, PathBuf};

use domain::discovery::ExtractionInput;
use domain::profile::Triad;
use domain::profile::provenance::GOAL_MIN_WORDS;
use domain::text::AnswerText;
use serde::{Deserialize, Serialize};
use unicode_segmentation::UnicodeSegmentation;

use crate::phrase::contains_phrase;

/// One answer set and its expectations. `name` is the file's stem.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fixture {
    #[serde(skip)]
    pub name: String,
    pub description: String,
    pub answers: Answers,
    pub expect: Expect,
}

/// The seven answers as the person typed them. A blank goal is "no such goal".
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answers {
    pub love: String,
    pub strength: String,
    pub mission: String,
    pub vocation: String,
    pub drives: String,
    #[serde(default)]
    pub near_term_goal: String,
    #[serde(default)]
    pub long_term_goal: String,
}

impl Answers {
    /// What the service hands the extractor: the answers as stored, a blank goal as `None`
    /// (as `Conversation::extraction_input` does).
    #[must_use]
    pub fn input(&self) -> ExtractionInput {
        let goal = |g: &str| Some(g.to_owned()).filter(|g| !g.trim().is_empty());
        ExtractionInput {
            love: self.love.clone(),
            strength: self.strength.clone(),
            mission: self.mission.clone(),
            vocation: self.vocation.clone(),
            drives: self.drives.clone(),
            near_term_goal: goal(&self.near_term_goal),
            long_term_goal: goal(&self.long_term_goal),
        }
    }

    fn steps(&self) -> [(&'static str, &str); 7] {
        [
            ("love", &self.love),
            ("strength", &self.strength),
            ("mission", &self.mission),
            ("vocation", &self.vocation),
            ("drives", &self.drives),
            ("near_term_goal", &self.near_term_goal),
            ("long_term_goal", &self.long_term_goal),
        ]
    }
}

/// What a goal answer holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GoalExpectation {
    /// A goal: a stored summary is expected ("stated goals kept").
    Stated,
    /// Stated, but too short ("Marathon.") or too unsure ("not sure yet") to require it: `null`
    /// and a kept summary both pass, and neither counts in "stated goals kept".
    Vague,
    /// A blank answer: any stored summary is an invented goal.
    None,
}

impl GoalExpectation {
    /// Whether the person stated something for this goal (`stated` or `vague`).
    #[must_use]
    pub const fn is_stated(self) -> bool {
        !matches!(self, Self::None)
    }
}

/// The mechanical expectations of a fixture.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    pub near_goal: GoalExpectation,
    pub long_goal: GoalExpectation,
    /// The triad, where the drives answer is unambiguous; `None` (left out) otherwise.
    #[serde(default)]
    pub triad: Option<Triad>,
    /// Phrases that must never appear in any stored field.
    #[serde(default)]
    pub forbidden: Vec<String>,
    /// Phrases that must never appear in a stored goal summary.
    #[serde(default)]
    pub forbidden_in_goals: Vec<String>,
}

/// A fixture file that cannot be used, with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixtureError {
    pub path: PathBuf,
    pub reason: String,
}

impl fmt::Display for FixtureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.reason)
    }
}

impl std::error::Error for FixtureError {}

/// Reads every `*.toml` of `dir`, in name order.
///
/// # Errors
/// The first file that cannot be read, parsed or that contradicts itself ([`validate`]).
pub fn load_dir(dir: &Path) -> Result<Vec<Fixture>, FixtureError> {
    let error = |path: &Path, reason: String| FixtureError {
        path: path.to_owned(),
        reason,
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| error(dir, e.to_string()))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(error(dir, "no *.toml fixtures here".to_owned()));
    }
    paths
        .iter()
        .map(|path| {
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let text = std::fs::read_to_string(path).map_err(|e| error(path, e.to_string()))?;
            parse(&name, &text).map_err(|reason| error(path, reason))
        })
        .collect()
}

/// Parses and validates one fixture.
///
/// # Errors
/// The TOML error or the first contradiction found by [`validate`].
pub fn parse(name: &str, text: &str) -> Result<Fixture, String> {
    let mut fixture: Fixture = toml::from_str(text).map_err(|e| e.to_string())?;
    fixture.name = name.to_owned();
    validate(&fixture)?;
    Ok(fixture)
}

/// Refuses a fixture the service would not accept or whose expectations contradict its answers.
///
/// # Errors
/// The first problem, in one sentence.
pub fn validate(fixture: &Fixture) -> Result<(), String> {
    let answers = &fixture.answers;
    validate_answers(answers)?;
    validate_goal(
        "near_goal",
        &answers.near_term_goal,
        fixture.expect.near_goal,
    )?;
    validate_goal(
        "long_goal",
        &answers.long_term_goal,
        fixture.expect.long_goal,
    )?;
    validate_forbidden(answers, &fixture.expect)
}

/// Every answer is one the service accepts, and steps 1-5 are not blank.
fn validate_answers(answers: &Answers) -> Result<(), String> {
    for (key, text) in answers.steps() {
        AnswerText::new(text).map_err(|e| format!("answers.{key} {e}"))?;
    }
    for (key, text) in answers.steps().into_iter().take(5) {
        if text.trim().is_empty() {
            return Err(format!(
                "answers.{key} must not be blank (steps 1-5 are required)"
            ));
        }
    }
    Ok(())
}

/// The expectation of the goal `key` fits its answer: none for a blank one, and a stated goal
/// long enough to be quoted.
fn validate_goal(key: &str, text: &str, expected: GoalExpectation) -> Result<(), String> {
    let blank = text.trim().is_empty();
    let words = text.unicode_words().count();
    match expected {
        GoalExpectation::None if !blank => Err(format!(
            "expect.{key} is \"none\" but the answer has text: use \"stated\" or \"vague\""
        )),
        GoalExpectation::Stated | GoalExpectation::Vague if blank => Err(format!(
            "expect.{key} says a goal was stated but the answer is blank: use \"none\""
        )),
        GoalExpectation::Stated if words < GOAL_MIN_WORDS => Err(format!(
            "expect.{key} is \"stated\" but the answer has {words} word(s); a goal needs a \
             quote of {GOAL_MIN_WORDS} words to be kept: use \"vague\""
        )),
        _ => Ok(()),
    }
}

/// The forbidden phrases are not blank and are not the person's own words: `forbidden` occurs
/// in no answer, `forbidden_in_goals` in neither goal.
fn validate_forbidden(answers: &Answers, expect: &Expect) -> Result<(), String> {
    for phrase in &expect.forbidden {
        if let Some((key, _)) = answers
            .steps()
            .into_iter()
            .find(|(_, text)| contains_phrase(text, phrase))
        {
            return Err(format!(
                "expect.forbidden {phrase:?} occurs in answers.{key}: quoting the person is not a \
                 failure (use forbidden_in_goals for an injected goal)"
            ));
        }
    }
    for phrase in &expect.forbidden_in_goals {
        if let Some((key, _)) = answers
            .steps()
            .into_iter()
            .skip(5)
            .find(|(_, text)| contains_phrase(text, phrase))
        {
            return Err(format!(
                "expect.forbidden_in_goals {phrase:?} occurs in answers.{key}, the goal itself"
            ));
        }
    }
    let all = expect.forbidden.iter().chain(&expect.forbidden_in_goals);
    for phrase in all {
        if phrase.trim().is_empty() {
            return Err("a forbidden phrase must not be blank".to_owned());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"
description = "test"
[answers]
love = "Bread."
strength = "Patience."
mission = "Bakeries."
vocation = "Baker."
drives = "Doing it right."
near_term_goal = "@NEAR@"
long_term_goal = "@LONG@"
[expect]
near_goal = "@NG@"
long_goal = "@LG@"
triad = "gut"
forbidden = ["@FORBIDDEN@"]
forbidden_in_goals = ["@IN_GOALS@"]
"#;

    fn fixture(near: &str, ng: &str, long: &str, lg: &str) -> Result<Fixture, String> {
        fixture_with(near, ng, long, lg, "system prompt", "open a bakery")
    }

    fn fixture_with(
        near: &str,
        ng: &str,
        long: &str,
        lg: &str,
        forbidden: &str,
        in_goals: &str,
    ) -> Result<Fixture, String> {
        let text = BASE
            .replace("@NEAR@", near)
            .replace("@NG@", ng)
            .replace("@LONG@", long)
            .replace("@LG@", lg)
            .replace("@FORBIDDEN@", forbidden)
            .replace("@IN_GOALS@", in_goals);
        parse("t", &text)
    }

    #[test]
    fn a_consistent_fixture_reads_into_the_input_the_service_would_build() {
        let f = fixture("Run a marathon in May.", "stated", "   ", "none").unwrap();
        assert_eq!(f.name, "t");
        assert_eq!(f.expect.triad, Some(Triad::Gut));
        let input = f.answers.input();
        assert_eq!(
            input.near_term_goal.as_deref(),
            Some("Run a marathon in May.")
        );
        assert_eq!(input.long_term_goal, None, "blank is no goal");
    }

    #[test]
    fn goal_expectations_must_match_the_answers() {
        let err = fixture("", "stated", "", "none").unwrap_err();
        assert!(err.contains("blank"), "{err}");
        let err = fixture("Run far.", "none", "", "none").unwrap_err();
        assert!(err.contains("has text"), "{err}");
        let err = fixture("Marathon.", "stated", "", "none").unwrap_err();
        assert!(err.contains("use \"vague\""), "{err}");
        assert!(fixture("Marathon.", "vague", "", "none").is_ok());
        assert!(fixture("not sure yet", "vague", "", "none").is_ok());
    }

    #[test]
    fn a_forbidden_phrase_the_person_wrote_is_refused() {
        let err = fixture_with("", "none", "", "none", "doing IT", "x y").unwrap_err();
        assert!(err.contains("answers.drives"), "{err}");
        let err = fixture_with(
            "Open a Bakery soon.",
            "stated",
            "",
            "none",
            "z",
            "open a bakery",
        )
        .unwrap_err();
        assert!(err.contains("the goal itself"), "{err}");
    }

    #[test]
    fn unknown_keys_and_triads_are_refused() {
        assert!(parse("t", &BASE.replace("triad = \"gut\"", "triad = \"belly\"")).is_err());
        assert!(parse("t", &BASE.replace("forbidden = ", "forbiden = ")).is_err());
    }

    #[test]
    fn the_fixture_set_loads_and_covers_what_the_eval_promises() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let all = load_dir(&dir).unwrap();
        assert!(all.len() >= 24, "{} fixtures", all.len());
        let triads: Vec<Triad> = all.iter().filter_map(|f| f.expect.triad).collect();
        for triad in [Triad::Gut, Triad::Heart, Triad::Head] {
            assert!(
                triads.iter().filter(|t| **t == triad).count() >= 3,
                "{triad:?}"
            );
        }
        let goals = || {
            all.iter()
                .flat_map(|f| [f.expect.near_goal, f.expect.long_goal])
        };
        for kind in [
            GoalExpectation::Stated,
            GoalExpectation::Vague,
            GoalExpectation::None,
        ] {
            assert!(goals().filter(|g| *g == kind).count() >= 3, "{kind:?}");
        }
        assert!(all.iter().any(|f| !f.expect.forbidden.is_empty()));
        assert!(all.iter().any(|f| !f.expect.forbidden_in_goals.is_empty()));
        assert!(
            all.iter().any(|f| f.answers.love.chars().count() > 2_000),
            "a very long answer"
        );
    }
}
