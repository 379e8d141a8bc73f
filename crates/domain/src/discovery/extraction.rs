//! Extraction: the answers an extractor reads, the draft it returns (untrusted), and the guards
//! that turn a draft into an [`Extraction`] the profile may hold.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::Step;
use crate::model_output::{ModelOutputError, parse_first_object};
use crate::profile::provenance::{
    Quotable, Source, SourceOrigin, Sources, push_unique, supports_goal, verify,
};
use crate::profile::{EditableField, EnneagramType, ProseFields, Triad, states_no_goal};
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

impl ExtractionInput {
    /// The answer of a step (`None` for a goal the person did not state).
    #[must_use]
    pub fn answer(&self, step: Step) -> Option<&str> {
        match step.get() {
            1 => Some(&self.love),
            2 => Some(&self.strength),
            3 => Some(&self.mission),
            4 => Some(&self.vocation),
            5 => Some(&self.drives),
            6 => self.near_term_goal.as_deref(),
            _ => self.long_term_goal.as_deref(),
        }
    }

    /// Every answer given, as text a quote may be checked against.
    #[must_use]
    pub fn quotable(&self) -> Vec<Quotable<'_>> {
        Step::all()
            .filter_map(|step| {
                Some(Quotable {
                    origin: SourceOrigin::Step(step),
                    text: self.answer(step)?,
                })
            })
            .collect()
    }
}

/// What an extractor returns, before any guard. Types and keys are strict; values are not trusted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtractionDraft {
    pub enneagram_type: i64,
    /// Not asked for (the triad follows from the type), but checked when an extractor sends it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub triad: Option<String>,
    /// The sentences of the drives answer (step 5) the type rests on, as claimed (read as
    /// leniently as `sources`); the type rule ([`super::type_rule`]) believes only those found
    /// in step 5. Missing means none.
    #[serde(
        default,
        deserialize_with = "claimed_list",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub type_sources: Vec<ClaimedSource>,
    pub love_summary: String,
    pub strength_summary: String,
    pub mission_summary: String,
    pub vocation_summary: String,
    pub overlap_narrative: String,
    pub near_term_goal_summary: Option<String>,
    pub long_term_goal_summary: Option<String>,
    /// For each field (by its name), the person's words it rests on, as the extractor claims
    /// them: `{"love_summary": [{"step": 1, "quote": "..."}]}`. Read leniently (a bare quote, a
    /// single item or `null` are understood; an item without a quote is ignored), because none
    /// of it is believed: the guard keeps only quotes found in the answers.
    #[serde(
        default,
        deserialize_with = "claimed_sources",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub sources: BTreeMap<String, Vec<ClaimedSource>>,
}

/// A quote an extractor or coach says the person wrote, and where (unverified).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClaimedSource {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<i64>,
    pub quote: String,
}

impl ClaimedSource {
    /// Reads one claimed source: `{"step", "quote"}`, `{"quote"}` or a bare string. Anything
    /// else (a bare step number, as extractor.v1 gave) carries no quote and is `None`.
    #[must_use]
    pub fn read(value: &Value) -> Option<Self> {
        match value {
            Value::String(quote) => Some(Self {
                step: None,
                quote: quote.clone(),
            }),
            Value::Object(map) => Some(Self {
                step: map.get("step").and_then(Value::as_i64),
                quote: map.get("quote")?.as_str()?.to_owned(),
            }),
            _ => None,
        }
    }

    /// Reads a list of claimed sources, or a single one, or `null`.
    #[must_use]
    pub fn read_list(value: &Value) -> Vec<Self> {
        match value {
            Value::Array(items) => items.iter().filter_map(Self::read).collect(),
            other => Self::read(other).into_iter().collect(),
        }
    }
}

fn claimed_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<ClaimedSource>, D::Error> {
    let raw: Option<Value> = Option::deserialize(d)?;
    Ok(raw
        .as_ref()
        .map(ClaimedSource::read_list)
        .unwrap_or_default())
}

fn claimed_sources<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<BTreeMap<String, Vec<ClaimedSource>>, D::Error> {
    let raw: Option<BTreeMap<String, Value>> = Option::deserialize(d)?;
    Ok(raw
        .unwrap_or_default()
        .into_iter()
        .map(|(field, value)| (field, ClaimedSource::read_list(&value)))
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
    #[error(
        "{field} says {sentence:?}, which is not in the person's words: use only what they wrote"
    )]
    Ungrounded {
        field: EditableField,
        sentence: String,
    },
}

/// A guarded extraction: type, triad (implied by the type), prose and the verified sources.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extraction {
    pub enneagram_type: EnneagramType,
    pub prose: ProseFields,
    pub sources: Sources,
}

impl ExtractionDraft {
    /// Reads a draft from a model's raw reply.
    ///
    /// # Errors
    /// [`ExtractionRejected::Unreadable`] when the reply holds no object of the draft's shape.
    pub fn parse(raw: &str) -> Result<Self, ExtractionRejected> {
        Ok(parse_first_object(raw)?)
    }

    /// The claimed type sources found in the drives answer (step 5), each once.
    #[must_use]
    pub fn verified_type_sources(&self, input: &ExtractionInput) -> Vec<Source> {
        let Ok(drives) = Step::new(5) else {
            return Vec::new();
        };
        let own = SourceOrigin::Step(drives);
        let texts: Vec<Quotable<'_>> = input
            .quotable()
            .into_iter()
            .filter(|q| q.origin == own)
            .collect();
        let mut kept = Vec::new();
        for item in &self.type_sources {
            if let Some(source) = verify(&item.quote, Some(own), &texts) {
                push_unique(&mut kept, source);
            }
        }
        kept
    }

    /// How many quotes the extractor offered (verified or not).
    #[must_use]
    pub fn quotes_offered(&self) -> usize {
        self.sources.values().map(Vec::len).sum()
    }

    /// Applies the guards: type in range, triad (when given) consistent with it, summaries
    /// present and capped, every quote verified against the answers, and goal summaries kept
    /// only for goals the person stated (not "not sure yet": see [`states_no_goal`]) and only when a verified quote of at least three words
    /// comes from the goal's own answer: otherwise the goal is `None`, never invented.
    ///
    /// # Errors
    /// [`ExtractionRejected`] naming the first broken rule.
    pub fn guard(self, input: &ExtractionInput) -> Result<Extraction, ExtractionRejected> {
        let enneagram_type = EnneagramType::new(self.enneagram_type)
            .map_err(|_| ExtractionRejected::TypeOutOfRange(self.enneagram_type))?;
        let expected = enneagram_type.triad();
        if let Some(given) = self.triad
            && given.trim().to_ascii_lowercase() != expected.key()
        {
            return Err(ExtractionRejected::TriadMismatch {
                type_: enneagram_type.get(),
                given,
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
        let mut sources = verified_sources(&self.sources, input);
        // A goal summary must rest on the person's own goal answer; else it is dropped with
        // its sources (a mission read as a goal, or a goal the model made up). An answer that
        // says there is no goal ("not sure yet") states none, whatever the engine wrote.
        let mut goal = |field: EditableField, step: i64, summary: Option<String>| {
            let own_step = Step::new(step).ok()?;
            let own = SourceOrigin::Step(own_step);
            let stated = input.answer(own_step).is_some_and(|a| !states_no_goal(a));
            let kept = summary
                .filter(|_| stated)
                .map(|s| Prose::capped(s.trim()))
                .filter(|p| !p.is_blank())
                .filter(|_| supports_goal(sources.get(field), |o| *o == own));
            if kept.is_none() {
                sources.set(field, Vec::new());
            }
            kept
        };
        let near_term_goal_summary = goal(
            EditableField::NearTermGoalSummary,
            6,
            self.near_term_goal_summary,
        );
        let long_term_goal_summary = goal(
            EditableField::LongTermGoalSummary,
            7,
            self.long_term_goal_summary,
        );
        Ok(Extraction {
            enneagram_type,
            prose: ProseFields {
                love_summary: required("love_summary", &self.love_summary)?,
                strength_summary: required("strength_summary", &self.strength_summary)?,
                mission_summary: required("mission_summary", &self.mission_summary)?,
                vocation_summary: required("vocation_summary", &self.vocation_summary)?,
                overlap_narrative: required("overlap_narrative", &self.overlap_narrative)?,
                near_term_goal_summary,
                long_term_goal_summary,
            },
            sources,
        })
    }
}

/// The claimed sources that are found in the answers, by field (unknown field names dropped).
fn verified_sources(
    claimed: &BTreeMap<String, Vec<ClaimedSource>>,
    input: &ExtractionInput,
) -> Sources {
    let texts = input.quotable();
    let mut sources = Sources::default();
    for (name, items) in claimed {
        let Ok(field) = name.parse::<EditableField>() else {
            continue;
        };
        let mut kept = Vec::new();
        for item in items {
            let claimed_step = item
                .step
                .and_then(|n| Step::new(n).ok())
                .map(SourceOrigin::Step);
            if let Some(source) = verify(&item.quote, claimed_step, &texts) {
                push_unique(&mut kept, source);
            }
        }
        sources.set(field, kept);
    }
    sources
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{Source, SourceOrigin};

    fn input(near: Option<&str>, long: Option<&str>) -> ExtractionInput {
        ExtractionInput {
            love: "I love teaching children to read.".into(),
            strength: "Explaining hard things simply.".into(),
            mission: "Literacy for every village.".into(),
            vocation: "Teacher".into(),
            drives: "Getting it right.".into(),
            near_term_goal: near.map(Into::into),
            long_term_goal: long.map(Into::into),
        }
    }

    fn quote(step: i64, quote: &str) -> ClaimedSource {
        ClaimedSource {
            step: Some(step),
            quote: quote.into(),
        }
    }

    fn draft(type_: i64, triad: &str) -> ExtractionDraft {
        ExtractionDraft {
            enneagram_type: type_,
            triad: Some(triad.into()),
            type_sources: Vec::new(),
            love_summary: "You love teaching.".into(),
            strength_summary: "Explaining".into(),
            mission_summary: "Literacy".into(),
            vocation_summary: "Teacher".into(),
            overlap_narrative: "Teaching ties it together.".into(),
            near_term_goal_summary: Some("Finish the course".into()),
            long_term_goal_summary: Some("Open a school".into()),
            sources: [
                ("love_summary", vec![quote(1, "teaching children to read")]),
                (
                    "near_term_goal_summary",
                    vec![quote(6, "finish the reading course")],
                ),
                (
                    "long_term_goal_summary",
                    vec![quote(7, "open a village school")],
                ),
            ]
            .into_iter()
            .map(|(f, s)| (f.to_owned(), s))
            .collect(),
        }
    }

    const NEAR: &str = "Finish the reading course this spring.";
    const LONG: &str = "Open a village school.";

    #[test]
    fn a_consistent_draft_passes_with_its_goals_and_their_sources() {
        let e = draft(7, "head")
            .guard(&input(Some(NEAR), Some(LONG)))
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
        assert_eq!(
            e.sources.get(EditableField::NearTermGoalSummary),
            [Source {
                origin: SourceOrigin::Step(Step::new(6).unwrap()),
                quote: "Finish the reading course".into(),
            }],
            "stored as the person wrote it"
        );
        assert_eq!(e.sources.count(), 3);
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
    fn the_triad_may_be_left_out_and_then_follows_the_type() {
        let mut d = draft(8, "gut");
        d.triad = None;
        let e = d.guard(&input(None, None)).unwrap();
        assert_eq!(e.enneagram_type.triad(), Triad::Gut);
    }

    #[test]
    fn types_outside_one_to_nine_are_rejected() {
        assert_eq!(
            draft(0, "gut").guard(&input(None, None)),
            Err(ExtractionRejected::TypeOutOfRange(0))
        );
    }

    #[test]
    fn a_goal_summary_for_an_unstated_goal_is_dropped_with_its_sources() {
        let e = draft(2, "heart").guard(&input(None, Some(LONG))).unwrap();
        assert_eq!(e.prose.near_term_goal_summary, None);
        assert!(e.sources.get(EditableField::NearTermGoalSummary).is_empty());
        assert!(e.prose.long_term_goal_summary.is_some());
    }

    #[test]
    fn a_goal_answer_that_states_no_goal_gives_no_goal_whatever_the_engine_wrote() {
        // "not sure yet" is three words and quoted verbatim: only the answer's meaning drops it.
        let mut d = draft(3, "heart");
        d.near_term_goal_summary = Some("You are not sure yet.".into());
        d.long_term_goal_summary = Some("Keine Ahnung.".into());
        d.sources.insert(
            "near_term_goal_summary".into(),
            vec![quote(6, "not sure yet")],
        );
        d.sources.insert(
            "long_term_goal_summary".into(),
            vec![quote(7, "Keine Ahnung, ehrlich gesagt")],
        );
        let e = d
            .guard(&input(
                Some("Not sure yet."),
                Some("Keine Ahnung, ehrlich gesagt."),
            ))
            .unwrap();
        assert_eq!(e.prose.near_term_goal_summary, None);
        assert_eq!(e.prose.long_term_goal_summary, None);
        assert!(e.sources.get(EditableField::NearTermGoalSummary).is_empty());
        assert!(e.sources.get(EditableField::LongTermGoalSummary).is_empty());

        // A goal that hesitates first is still a goal.
        let hesitant = "I don't know how yet, but I want to open a bakery by next spring";
        let mut d = draft(3, "heart");
        d.sources.insert(
            "near_term_goal_summary".into(),
            vec![quote(6, "open a bakery by next spring")],
        );
        let e = d.guard(&input(Some(hesitant), Some(LONG))).unwrap();
        assert_eq!(
            e.prose.near_term_goal_summary.unwrap().as_str(),
            "Finish the course"
        );
    }

    #[test]
    fn a_goal_summary_without_a_verified_quote_of_three_words_from_its_step_is_dropped() {
        let stated = input(Some(NEAR), Some(LONG));
        // An invented quote, as a small model gives: the goal is dropped.
        let mut d = draft(3, "heart");
        d.sources.insert(
            "near_term_goal_summary".into(),
            vec![quote(6, "reducing plastic pollution")],
        );
        // Two words only.
        d.sources.insert(
            "long_term_goal_summary".into(),
            vec![quote(7, "village school")],
        );
        let e = d.guard(&stated).unwrap();
        assert_eq!(e.prose.near_term_goal_summary, None);
        assert_eq!(e.prose.long_term_goal_summary, None);
        // No sources at all.
        let mut d = draft(3, "heart");
        d.sources.clear();
        let e = d.guard(&stated).unwrap();
        assert_eq!(e.prose.near_term_goal_summary, None);
        assert_eq!(e.prose.love_summary.as_str(), "You love teaching.", "kept");
        assert_eq!(e.sources.count(), 0);
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
        // The near-term "goal" quotes the mission (step 3), whatever step it claims.
        let raw = r#"{"enneagram_type": 3, "triad": "heart", "love_summary": "l",
            "strength_summary": "s", "mission_summary": "m", "vocation_summary": "v",
            "overlap_narrative": "o", "near_term_goal_summary": "Literacy for all",
            "long_term_goal_summary": "Open a school",
            "sources": {"love_summary": {"step": 1, "quote": "teaching children"},
                        "near_term_goal_summary": [{"step": 6, "quote": "Literacy for every village"}],
                        "long_term_goal_summary": [{"step": 3, "quote": "open a village school"}]}}"#;
        let draft = ExtractionDraft::parse(raw).unwrap();
        assert_eq!(
            draft.sources["love_summary"],
            [quote(1, "teaching children")]
        );
        let e = draft.guard(&input(Some(NEAR), Some(LONG))).unwrap();
        assert_eq!(e.prose.near_term_goal_summary, None, "taken from step 3");
        assert_eq!(
            e.prose.long_term_goal_summary.unwrap().as_str(),
            "Open a school",
            "found in step 7, though step 3 was claimed"
        );
    }

    #[test]
    fn sources_are_optional_and_read_leniently_but_believed_only_when_found() {
        let mut value = serde_json::to_value(draft(6, "head")).unwrap();
        value["sources"] = serde_json::Value::Null;
        let d = ExtractionDraft::parse(&value.to_string()).unwrap();
        assert_eq!(d.quotes_offered(), 0);
        // A bare quote, a single object, null, and extractor.v1's bare step numbers.
        value["sources"] = serde_json::from_str(
            r#"{
                "love_summary": "children to read",
                "strength_summary": {"quote": "hard things simply"},
                "mission_summary": null,
                "vocation_summary": [4, {"step": 4}, {"step": "four", "quote": "Teacher"}],
                "triad": [{"step": 5, "quote": "Getting it right"}],
                "overlap_narrative": [{"step": 2, "quote": "To do it is love!"}]
            }"#,
        )
        .unwrap();
        let d = ExtractionDraft::parse(&value.to_string()).unwrap();
        assert_eq!(d.quotes_offered(), 5);
        let e = d.guard(&input(None, None)).unwrap();
        assert_eq!(e.sources.count(), 3, "{:?}", e.sources);
        assert_eq!(
            e.sources.get(EditableField::VocationSummary)[0].quote,
            "Teacher"
        );
        assert!(
            e.sources.get(EditableField::OverlapNarrative).is_empty(),
            "invented"
        );
    }

    #[test]
    fn a_triad_is_read_without_regard_to_case_or_spaces_but_never_corrected() {
        assert!(draft(5, " Head ").guard(&input(None, None)).is_ok());
        // The type is not adjusted to fit the triad, nor the triad to fit the type.
        let err = draft(5, "gut").guard(&input(None, None)).unwrap_err();
        assert!(err.to_string().contains("whose triad is head"), "{err}");
    }
}
