//! [`MeteredModel`]: the language model the services use, with every request to it counted and
//! timed. It sits on the domain's ports (`Extractor`, `Coach`), so the domain stays free of
//! metrics and the offline engine is counted the same way as a remote model.

use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;
use domain::discovery::{ExtractionDraft, ExtractionInput};
use domain::ports::{Coach, CoachRequest, Extractor, ModelError};
use domain::profile::EnneagramType;
use domain::reflection::{CoachReplyDraft, ReplyEngine};

use crate::{LlmOperation, Metrics};

/// A language model (any [`Extractor`] and [`Coach`]) whose calls are measured.
#[derive(Debug, Clone)]
pub struct MeteredModel<M> {
    inner: M,
    metrics: Arc<Metrics>,
}

impl<M> MeteredModel<M> {
    #[must_use]
    pub const fn new(inner: M, metrics: Arc<Metrics>) -> Self {
        Self { inner, metrics }
    }
}

#[async_trait]
impl<M: Extractor> Extractor for MeteredModel<M> {
    async fn extract(
        &self,
        input: &ExtractionInput,
        feedback: Option<String>,
    ) -> Result<String, ModelError> {
        let started = Instant::now();
        let reply = self.inner.extract(input, feedback).await;
        self.metrics.observe_llm_call(
            LlmOperation::Extract,
            reply.as_ref().map(|_| ()),
            started.elapsed(),
        );
        reply
    }

    /// Not a model call: the offline engine's mirror, computed in the process.
    fn mirror(&self, input: &ExtractionInput) -> Option<ExtractionDraft> {
        self.inner.mirror(input)
    }

    /// Not a model call either: the offline engine's lexicon.
    fn read_type(&self, drives: &str) -> Option<EnneagramType> {
        self.inner.read_type(drives)
    }
}

#[async_trait]
impl<M: Coach> Coach for MeteredModel<M> {
    async fn reply(&self, request: &CoachRequest) -> Result<String, ModelError> {
        let started = Instant::now();
        let reply = self.inner.reply(request).await;
        self.metrics.observe_llm_call(
            LlmOperation::Reflect,
            reply.as_ref().map(|_| ()),
            started.elapsed(),
        );
        reply
    }

    /// Not a model call: the offline coach's reply, computed in the process.
    fn mirror_reply(&self, request: &CoachRequest) -> Option<CoachReplyDraft> {
        self.inner.mirror_reply(request)
    }

    fn engine(&self) -> ReplyEngine {
        self.inner.engine()
    }
}

#[cfg(test)]
mod tests {
    use domain::ports::MockExtractor;

    use super::*;

    fn input() -> ExtractionInput {
        ExtractionInput {
            love: "Restoring old bicycles in my shed.".into(),
            strength: "Patience with small parts.".into(),
            mission: "Safer streets for children.".into(),
            vocation: "Nursing.".into(),
            drives: "Being useful to people.".into(),
            near_term_goal: None,
            long_term_goal: None,
        }
    }

    fn line_of(metrics: &Metrics, prefix: &str) -> String {
        let text = metrics.render(0, (0, 0)).unwrap();
        text.lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("{prefix} missing in\n{text}"))
            .to_owned()
    }

    #[tokio::test]
    async fn each_model_call_is_counted_by_outcome_and_the_mirror_is_not_a_call() {
        let metrics = Arc::new(Metrics::new(1, 16).unwrap());
        let mut model = MockExtractor::new();
        let mut answers = vec![Err(ModelError::Timeout), Ok("{}".to_owned())];
        model
            .expect_extract()
            .times(2)
            .returning(move |_, _| answers.pop().unwrap());
        model.expect_mirror().times(1).returning(|_| None);
        let metered = MeteredModel::new(model, Arc::clone(&metrics));

        assert_eq!(metered.extract(&input(), None).await.unwrap(), "{}");
        assert!(matches!(
            metered.extract(&input(), None).await,
            Err(ModelError::Timeout)
        ));
        assert!(metered.mirror(&input()).is_none());

        let ok = r#"discovery_llm_calls_total{operation="extract",outcome="ok"}"#;
        let timeout = r#"discovery_llm_calls_total{operation="extract",outcome="timeout"}"#;
        assert_eq!(line_of(&metrics, ok), format!("{ok} 1"));
        assert_eq!(line_of(&metrics, timeout), format!("{timeout} 1"));
        let count = "discovery_llm_call_duration_seconds_count{operation=\"extract\"}";
        assert_eq!(line_of(&metrics, count), format!("{count} 2"));
    }
}
