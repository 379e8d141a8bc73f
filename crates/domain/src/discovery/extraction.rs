//! Extraction: the answers an extractor reads, the draft it returns (untrusted), and the guards
//! that turn a draft into an [`Extraction`] the profile may hold.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};

use crate::model_output::{ModelOutputError, parse_first_object};
use crate::profile::{EnneagramType, ProseFields, Triad};
use crate::text::Prose;

/// The answers handed to an extractor. A goal the person did not state is `None`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExtractionInput {
    pub love: String,
    pub strength: String,
    pub mission: String,
    pub vocation: String,
    pub drives: String,
    pub near_term_goal: Option<String>,
    pub long_term_goal: Option<String>,
}

/// What an extractor returns, before any guard. Types and keys are strict; values are not trusted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtractionDraft {
    pub enneagram_type: i64,
    pub triad: String,
    pub love_summary: String,
    pub strength_summary: String,
    pub mission_summary: String,
    pub vocation_summary: String,
    pub overlap_narrative: String,
    pub near_term_goal_summary: Option<String>,
    pub long_term_goal_summary: Option<String>,
    /// For each summary (by its field name), the answer steps it came from, as the extractor
    /// states them: `{"love_summary": [1], "overlap_narrative": [1, 2, 3, 4]}`. Optional; a
    /// single number or `null` is read as a list of one or none.
    #[serde(
        default,
        deserialize_with = "step_lists",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub sources: BTreeMap<String, Vec<i64>>,
}

/// Reads `sources` values given as a list of steps, a single step or `null`.
fn step_lists<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, Vec<i64>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Steps {
        One(i64),
        Many(Vec<i64>),
    }
    let raw: Option<BTreeMap<String, Option<Steps>>> = Option::deserialize(d)?;
    Ok(raw
        .unwrap_or_default()
        .into_iter()
        .map(|(field, steps)| {
            let steps = match steps {
                None => Vec::new(),
                Some(Steps::One(step)) => vec![step],
                Some(Steps::Many(steps)) => steps,
            };
            (field, steps)
        })
        .collect())
}

/// A draft the guards refused (the service asks the extractor once more, then gives up).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExtractionRejected {
    #[error(transparent)]
    Unreadable(#[from] ModelOutputError),
    #[error("enneagram_type must be between 1 and 9 (got {0})")]
    TypeOutOfRange(i64),
    #[error("triad {given:?} does not match type {type_}, whose triad is {expected}")]
    TriadMismatch {
        type_: u8,
        given: String,
        expected: Triad,
    },
    #[error("{0} must not be empty")]
    BlankSummary(&'static str),
}

/// A guarded extraction: type, triad (implied by the type) and prose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extraction {
    pub enneagram_type: EnneagramType,
    pub prose: ProseFields,
}

impl ExtractionDraft {
    /// Reads a draft from a model's raw reply.
    ///
    /// # Errors
    /// [`ExtractionRejected::Unreadable`] when the reply holds no object of the draft's shape.
    pub fn parse(raw: &str) -> Result<Self, ExtractionRejected> {
        Ok(parse_first_object(raw)?)
    }

    /// Applies the guards: type in range, triad consistent with it, summaries present and capped,
    /// and goal summaries kept only for goals the person actually stated, and only when the
    /// extractor does not itself say it took them from another answer.
    ///
    /// # Errors
    /// [`ExtractionRejected`] naming the first broken rule.
    pub fn guard(self, input: &ExtractionInput) -> Result<Extraction, ExtractionRejected> {
        let enneagram_type = EnneagramType::new(self.enneagram_type)
            .map_err(|_| ExtractionRejected::TypeOutOfRange(self.enneagram_type))?;
        let expected = enneagram_type.triad();
        if self.triad.trim().to_ascii_lowercase() != expected.key() {
            return Err(ExtractionRejected::TriadMismatch {
                type_: enneagram_type.get(),
                given: self.triad,
                expected,
            });
        }
        let required = |name: &'static str, value: &str| {
            let prose = Prose::capped(value.trim());
            if prose.is_blank() {
                Err(ExtractionRejected::BlankSummary(name))
            } else {
                Ok(prose)
            }
        };
        // A summary for a goal the person left empty would be an invented goal: drop it. So is
        // one the extractor says it drew from another answer (a mission read as a goal).
        let sources = &self.sources;
        let goal = |field: &str, step: i64, stated: &Option<String>, summary: Option<String>| {
            stated.as_ref()?;
            if sources
                .get(field)
                .is_some_and(|steps| !steps.is_empty() && !steps.contains(&step))
            {
                return None;
            }
            summary
                .map(|s| Prose::capped(s.trim()))
                .filter(|p| !p.is_blank())
        };
        Ok(Extraction {
            enneagram_type,
            prose: ProseFields {
                love_summary: required("love_summary", &self.love_summary)?,
                strength_summary: required("strength_summary", &self.strength_summary)?,
                mission_summary: required("mission_summary", &self.mission_summary)?,
                vocation_summary: required("vocation_summary", &self.vocation_summary)?,
                overlap_narrative: required("overlap_narrative", &self.overlap_narrative)?,
                near_term_goal_summary: goal(
                    "near_term_goal_summary",
                    6,
                    &input.near_term_goal,
                    self.near_term_goal_summary,
                ),
                long_term_goal_summary: goal(
                    "long_term_goal_summary",
                    7,
                    &input.long_term_goal,
                    self.long_term_goal_summary,
                ),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(near: Option<&str>, long: Option<&str>) -> ExtractionInput {
        ExtractionInput {
            love: "l".into(),
            strength: "s".into(),
            mission: "m".into(),
            vocation: "v".into(),
            drives: "d".into(),
            near_term_goal: near.map(Into::into),
            long_term_goal: long.map(Into::into),
        }
    }

    fn draft(type_: i64, triad: &str) -> ExtractionDraft {
        ExtractionDraft {
            enneagram_type: type_,
            triad: triad.into(),
            love_summary: "You love teaching.".into(),
            strength_summary: "Explaining".into(),
            mission_summary: "Literacy".into(),
            vocation_summary: "Teacher".into(),
            overlap_narrative: "Teaching ties it together.".into(),
            near_term_goal_summary: Some("Finish the course".into()),
            long_term_goal_summary: Some("Open a school".into()),
            sources: BTreeMap::new(),
        }
    }

    #[test]
    fn a_consistent_draft_passes_with_its_goals() {
        let e = draft(7, "head")
            .guard(&input(Some("finish"), Some("school")))
            .unwrap();
        assert_eq!(e.enneagram_type.get(), 7);
        assert_eq!(
            e.prose.near_term_goal_summary.unwrap().as_str(),
            "Finish the course"
        );
        assert_eq!(
            e.prose.long_term_goal_summary.unwrap().as_str(),
            "Open a school"
        );
    }

    #[test]
    fn a_triad_that_does_not_match_the_type_is_rejected() {
        for (t, wrong) in [(1, "heart"), (3, "head"), (6, "gut"), (9, "unknown")] {
            assert!(
                matches!(
                    draft(t, wrong).guard(&input(None, None)),
                    Err(ExtractionRejected::TriadMismatch { .. })
                ),
                "type {t} with {wrong}"
            );
        }
    }

    #[test]
    fn types_outside_one_to_nine_are_rejected() {
        assert_eq!(
            draft(0, "gut").guard(&input(None, None)),
            Err(ExtractionRejected::TypeOutOfRange(0))
        );
    }

    #[test]
    fn a_goal_summary_for_an_unstated_goal_is_dropped() {
        let e = draft(2, "heart")
            .guard(&input(None, Some("school")))
            .unwrap();
        assert_eq!(e.prose.near_term_goal_summary, None);
        assert!(e.prose.long_term_goal_summary.is_some());
    }

    #[test]
    fn summaries_are_capped_and_blank_ones_rejected() {
        let mut d = draft(4, "heart");
        d.love_summary = "x".repeat(5_000);
        let e = d.guard(&input(None, None)).unwrap();
        assert_eq!(e.prose.love_summary.as_str().chars().count(), 4_000);

        let mut d = draft(4, "heart");
        d.overlap_narrative = "   ".into();
        assert_eq!(
            d.guard(&input(None, None)),
            Err(ExtractionRejected::BlankSummary("overlap_narrative"))
        );
    }

    #[test]
    fn a_reply_without_the_draft_shape_is_unreadable() {
        assert!(matches!(
            ExtractionDraft::parse("{\"enneagram_type\": 5}"),
            Err(ExtractionRejected::Unreadable(_))
        ));
        let raw = serde_json::to_string(&draft(5, "head")).unwrap();
        assert_eq!(ExtractionDraft::parse(&raw).unwrap(), draft(5, "head"));
    }

    #[test]
    fn a_goal_summary_the_extractor_took_from_another_answer_is_dropped() {
        let raw = r#"{"enneagram_type": 3, "triad": "heart", "love_summary": "l",
            "strength_summary": "s", "mission_summary": "m", "vocation_summary": "v",
            "overlap_narrative": "o", "near_term_goal_summary": "Lead the team",
            "long_term_goal_summary": "Open a school",
            "sources": {"love_summary": 1, "overlap_narrative": [1, 2, 3, 4],
                        "near_term_goal_summary": [3], "long_term_goal_summary": [7, 3]}}"#;
        let draft = ExtractionDraft::parse(raw).unwrap();
        assert_eq!(draft.sources["love_summary"], [1]);
        let e = draft.guard(&input(Some("lead"), Some("school"))).unwrap();
        assert_eq!(e.prose.near_term_goal_summary, None, "taken from step 3");
        assert_eq!(
            e.prose.long_term_goal_summary.unwrap().as_str(),
            "Open a school"
        );
    }

    #[test]
    fn sources_are_optional_and_may_be_null_or_single_steps() {
        let mut value = serde_json::to_value(draft(6, "head")).unwrap();
        assert!(
            value.get("sources").is_none(),
            "empty sources are not written"
        );
        value["sources"] = serde_json::json!({"near_term_goal_summary": null, "love_summary": 1});
        let d = ExtractionDraft::parse(&value.to_string()).unwrap();
        assert_eq!(d.sources["near_term_goal_summary"], Vec::<i64>::new());
        let e = d.guard(&input(Some("finish"), None)).unwrap();
        assert!(e.prose.near_term_goal_summary.is_some());
        value["sources"] = serde_json::Value::Null;
        assert!(ExtractionDraft::parse(&value.to_string()).is_ok());
        value["sources"] = serde_json::json!({"love_summary": "step one"});
        assert!(ExtractionDraft::parse(&value.to_string()).is_err());
    }

    #[test]
    fn a_triad_is_read_without_regard_to_case_or_spaces_but_never_corrected() {
        assert!(draft(5, " Head ").guard(&input(None, None)).is_ok());
        // The type is not adjusted to fit the triad, nor the triad to fit the type.
        let err = draft(5, "gut").guard(&input(None, None)).unwrap_err();
        assert!(err.to_string().contains("whose triad is head"), "{err}");
    }
}
