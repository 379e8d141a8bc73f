//! One extraction as the service runs it, observed: ask with no feedback; if the reply cannot be
//! parsed or fails the guards, ask once more with the reason; a second unusable reply or a
//! model error is the service's 502 `coach_unavailable` (domain `services/model_retry.rs`).

use std::time::{Duration, Instant};

use domain::discovery::{
    Extraction, ExtractionDraft, ExtractionInput, ExtractionRejected, GroundingReport, SourceAudit,
};
use domain::ports::Extractor;
use domain::profile::{EditableField, EnneagramType, Triad};

/// What one extraction did.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// The first reply was usable (parsed into the draft's shape and passed the guards).
    pub first_try_valid: bool,
    /// A second call was made, with the first reply's rejection as feedback.
    pub retried: bool,
    /// Wall-clock time of the whole extraction, retry included.
    pub latency: Duration,
    /// Why each unusable reply was refused, in order (at most two).
    pub rejections: Vec<String>,
    pub outcome: Outcome,
}

/// How the extraction ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The profile the service would store.
    Stored(Stored),
    /// 502: no reply could be had (timeout, unreachable, 5xx, refused request).
    Unavailable(String),
    /// 502: the second reply was unusable too.
    Unusable(String),
}

impl Outcome {
    /// Whether the service would answer 502 `coach_unavailable`.
    #[must_use]
    pub const fn is_502(&self) -> bool {
        !matches!(self, Self::Stored(_))
    }
}

/// A guarded extraction in plain values, with what the accepted draft had offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    pub enneagram_type: u8,
    pub triad: Triad,
    /// The type the accepted draft gave, before the type rule (`enneagram_type` is after it).
    pub proposed_type: u8,
    pub proposed_triad: Triad,
    /// The seven editable fields by name, in contract order; a goal not stored is `None`.
    pub fields: Vec<(&'static str, Option<String>)>,
    /// The accepted draft had a (non-blank) near-term goal summary, before the guard.
    pub draft_near_goal: bool,
    pub draft_long_goal: bool,
    /// The accepted draft's own sources: distinct quotes offered per field, those found in the
    /// answers, and repeats (the mirror's sources, stored for a replaced field, are not counted).
    pub sources: SourceAudit,
    /// What the grounding guard found in the draft and replaced by the offline mirror.
    pub grounding: GroundingReport,
}

impl Stored {
    /// Builds the plain view of a guarded extraction.
    #[must_use]
    pub fn new(
        extraction: &Extraction,
        draft_near_goal: bool,
        draft_long_goal: bool,
        sources: SourceAudit,
        grounding: GroundingReport,
    ) -> Self {
        let proposed = grounding
            .type_decision
            .map_or(extraction.enneagram_type, |d| d.proposed);
        Self {
            enneagram_type: extraction.enneagram_type.get(),
            triad: extraction.enneagram_type.triad(),
            proposed_type: proposed.get(),
            proposed_triad: proposed.triad(),
            fields: EditableField::ALL
                .into_iter()
                .map(|f| {
                    let value = extraction.prose.get(f).map(|p| p.as_str().to_owned());
                    (f.name(), value)
                })
                .collect(),
            draft_near_goal,
            draft_long_goal,
            sources,
            grounding,
        }
    }

    /// The stored value of a field (`None` for an unknown name or a goal not stored).
    #[must_use]
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, v)| v.as_deref())
    }

    #[must_use]
    pub fn near_term_goal(&self) -> Option<&str> {
        self.field(EditableField::NearTermGoalSummary.name())
    }

    #[must_use]
    pub fn long_term_goal(&self) -> Option<&str> {
        self.field(EditableField::LongTermGoalSummary.name())
    }
}

/// Parses and guards one reply as the service does (the grounding guard with the extractor's
/// `mirror`, the type rule with its `read`ing), noting what the draft offered.
///
/// # Errors
/// The rejection the service would send back as feedback.
pub fn read_reply(
    raw: &str,
    input: &ExtractionInput,
    mirror: impl FnOnce() -> Option<ExtractionDraft>,
    read: impl FnOnce(&str) -> Option<EnneagramType>,
) -> Result<Stored, ExtractionRejected> {
    let draft = ExtractionDraft::parse(raw)?;
    let has_text = |s: &Option<String>| s.as_deref().is_some_and(|s| !s.trim().is_empty());
    let near = has_text(&draft.near_term_goal_summary);
    let long = has_text(&draft.long_term_goal_summary);
    // The model's own quotes, before any field is replaced by the mirror.
    let sources = draft.audit_sources(input);
    let grounded = draft.guard_grounded(input, mirror, read)?;
    Ok(Stored::new(
        &grounded.extraction,
        near,
        long,
        sources,
        grounded.report,
    ))
}

/// Runs one extraction through `extractor` with the service's one retry, timed.
pub async fn observe<X: Extractor + ?Sized>(extractor: &X, input: &ExtractionInput) -> Observation {
    let start = Instant::now();
    let mut rejections = Vec::new();
    let mut first_try_valid = false;
    let mut retried = false;
    let outcome = 'ask: {
        let mut feedback = None;
        for attempt in 0..2 {
            retried = attempt > 0;
            let raw = match extractor.extract(input, feedback.take()).await {
                Ok(raw) => raw,
                Err(e) => break 'ask Outcome::Unavailable(e.to_string()),
            };
            match read_reply(
                &raw,
                input,
                || extractor.mirror(input),
                |drives| extractor.read_type(drives),
            ) {
                Ok(stored) => {
                    first_try_valid = attempt == 0;
                    break 'ask Outcome::Stored(stored);
                }
                Err(rejected) => {
                    let reason = rejected.to_string();
                    rejections.push(reason.clone());
                    feedback = Some(reason);
                }
            }
        }
        Outcome::Unusable(rejections.last().cloned().unwrap_or_default())
    };
    Observation {
        first_try_valid,
        retried,
        latency: start.elapsed(),
        rejections,
        outcome,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use async_trait::async_trait;
    use domain::ports::ModelError;

    use super::*;

    /// Replies from a script, recording the feedback it was given.
    struct Scripted {
        replies: Mutex<Vec<Result<String, ModelError>>>,
        feedback: Mutex<Vec<Option<String>>>,
    }

    impl Scripted {
        fn new(replies: Vec<Result<String, ModelError>>) -> Self {
            Self {
                replies: Mutex::new(replies.into_iter().rev().collect()),
                feedback: Mutex::new(Vec::new()),
            }
        }
        fn feedback(&self) -> Vec<Option<String>> {
            self.feedback.lock().unwrap().clone()
        }
    }

    #[async_trait]
    impl Extractor for Scripted {
        async fn extract(
            &self,
            _: &ExtractionInput,
            feedback: Option<String>,
        ) -> Result<String, ModelError> {
            self.feedback.lock().unwrap().push(feedback);
            self.replies
                .lock()
                .unwrap()
                .pop()
                .unwrap_or(Err(ModelError::Timeout))
        }

        /// The offline engine's reading, as the service's extractor gives it.
        fn mirror(&self, input: &ExtractionInput) -> Option<ExtractionDraft> {
            adapters_llm::OfflineEngine.extraction_draft(input).ok()
        }

        fn read_type(&self, drives: &str) -> Option<EnneagramType> {
            adapters_llm::OfflineEngine.read_type(drives)
        }
    }

    fn input() -> ExtractionInput {
        ExtractionInput {
            love: "I love restoring old bicycles.".into(),
            strength: "Patience.".into(),
            mission: "Fewer bikes in landfill.".into(),
            vocation: "Mechanic.".into(),
            drives: "Doing things right.".into(),
            near_term_goal: Some("Open a repair café in the library.".into()),
            long_term_goal: None,
        }
    }

    fn reply(type_: i64, near: Option<&str>, long: Option<&str>) -> String {
        serde_json::json!({
            "enneagram_type": type_,
            "love_summary": "You love restoring old bicycles.",
            "strength_summary": "Patience.",
            "mission_summary": "Fewer bikes in landfill.",
            "vocation_summary": "Mechanic.",
            "overlap_narrative": "Bicycles tie it together.",
            "near_term_goal_summary": near,
            "long_term_goal_summary": long,
            "sources": {
                "love_summary": [{"step": 1, "quote": "restoring old bicycles"}],
                "mission_summary": [{"step": 3, "quote": "not what they wrote"}],
                "near_term_goal_summary": [{"step": 6, "quote": "open a repair café"}],
                "long_term_goal_summary": [{"step": 7, "quote": "a goal never stated"}],
            }
        })
        .to_string()
    }

    #[tokio::test]
    async fn a_usable_first_reply_is_stored_without_a_retry() {
        let x = Scripted::new(vec![Ok(reply(1, Some("A repair café."), None))]);
        let o = observe(&x, &input()).await;
        assert!(o.first_try_valid && !o.retried);
        assert_eq!(x.feedback(), [None]);
        let Outcome::Stored(s) = o.outcome else {
            panic!("{o:?}")
        };
        assert_eq!((s.enneagram_type, s.triad), (1, Triad::Gut));
        assert_eq!(s.near_term_goal(), Some("A repair café."));
        assert_eq!((s.sources.offered, s.sources.found), (4, 2));
        assert_eq!(
            s.sources.not_found,
            [
                "long_term_goal_summary: a goal never stated",
                "mission_summary: not what they wrote"
            ]
        );
        // "Bicycles tie it together.": "tie" and "together" are not the person's words.
        assert_eq!(
            (
                s.grounding.ungrounded_offered,
                s.grounding.ungrounded_stored
            ),
            (1, 0)
        );
        assert_eq!(s.grounding.replaced, [EditableField::OverlapNarrative]);
        // The offline engine's mirror stands in: the person's words, not the model's.
        let overlap = s.field("overlap_narrative").unwrap();
        assert!(!overlap.contains("tie it together"), "{overlap}");
        assert!(!overlap.trim().is_empty());
    }

    #[tokio::test]
    async fn a_reply_that_turns_the_persons_words_around_is_not_stored() {
        // Issue 43: her words, inverted ("love" negated, "Open" turned into "Close").
        let turned = reply(1, Some("Close a repair café in the library."), None).replace(
            "You love restoring old bicycles.",
            "You no longer love restoring old bicycles.",
        );
        let x = Scripted::new(vec![Ok(turned)]);
        let Outcome::Stored(s) = observe(&x, &input()).await.outcome else {
            panic!()
        };
        for field in [
            EditableField::LoveSummary,
            EditableField::NearTermGoalSummary,
        ] {
            assert!(s.grounding.replaced.contains(&field), "{field:?}");
        }
        assert_eq!(s.grounding.ungrounded_stored, 0);
        let love = s.field("love_summary").unwrap();
        assert!(!love.contains("no longer"), "{love}");
        let goal = s.near_term_goal().unwrap();
        assert!(!goal.contains("Close"), "{goal}");
    }

    #[tokio::test]
    async fn an_unusable_first_reply_is_asked_again_with_the_reason() {
        let x = Scripted::new(vec![Ok("no json here".into()), Ok(reply(5, None, None))]);
        let o = observe(&x, &input()).await;
        assert!(!o.first_try_valid && o.retried);
        assert!(matches!(o.outcome, Outcome::Stored(_)));
        let feedback = x.feedback();
        assert_eq!(feedback.len(), 2);
        assert_eq!(feedback[1].as_deref(), Some(o.rejections[0].as_str()));
    }

    #[tokio::test]
    async fn two_unusable_replies_or_a_model_error_are_a_502() {
        let x = Scripted::new(vec![Ok(reply(0, None, None)), Ok(reply(10, None, None))]);
        let o = observe(&x, &input()).await;
        assert!(
            matches!(&o.outcome, Outcome::Unusable(r) if r.contains("got 10")),
            "{o:?}"
        );
        assert!(o.outcome.is_502() && o.retried);
        assert_eq!(o.rejections.len(), 2);

        let x = Scripted::new(vec![Err(ModelError::Unavailable("503".into()))]);
        let o = observe(&x, &input()).await;
        assert!(matches!(o.outcome, Outcome::Unavailable(_)) && !o.retried);
        let x = Scripted::new(vec![Ok("{}".into()), Err(ModelError::Timeout)]);
        let o = observe(&x, &input()).await;
        assert!(matches!(o.outcome, Outcome::Unavailable(_)) && o.retried);
    }

    #[tokio::test]
    async fn a_goal_for_an_unstated_answer_is_seen_in_the_draft_and_dropped() {
        let x = Scripted::new(vec![Ok(reply(2, Some("A repair café."), Some("Retire.")))]);
        let Outcome::Stored(s) = observe(&x, &input()).await.outcome else {
            panic!()
        };
        assert!(s.draft_long_goal);
        assert_eq!(s.long_term_goal(), None);
        // Type 2 with no drives sentence cited: the offline reading ("Doing things right.") decides.
        assert_eq!((s.proposed_type, s.enneagram_type), (2, 1));
        assert_eq!(s.proposed_triad, Triad::Heart);
    }
}
