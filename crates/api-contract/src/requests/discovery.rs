//! The discovery requests: an answer to one prompt, and the step it answers.

use domain::discovery::Step;
use domain::text::AnswerText;
use serde::Deserialize;
use utoipa::openapi::Object;
use utoipa::openapi::path::{Parameter, ParameterIn};
use utoipa::openapi::schema::KnownFormat;
use utoipa::{IntoParams, ToSchema};

use super::rules;
use crate::error::Invalid;

/// An answer. To steps 6-7, `""` means "I have no such goal"; a blank answer to steps 1-5 is
/// kept as a draft that leaves the step unanswered (`next_step`), and completion waits for it.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerRequest {
    #[schema(schema_with = answer_text)]
    pub text: AnswerText,
}

fn answer_text() -> Object {
    rules::text(AnswerText::MAX)
}

/// The `{step}` of `/discovery/conversation/me/answers/{step}`, read as text so that a step
/// out of range is a 422 naming it rather than a 404.
#[derive(Debug, Deserialize)]
pub struct StepPath {
    pub step: String,
}

impl StepPath {
    /// # Errors
    /// 422 naming `step` outside 1-7.
    pub fn step(&self) -> Result<Step, Invalid> {
        self.step
            .parse::<i64>()
            .ok()
            .and_then(|n| Step::new(n).ok())
            .ok_or_else(|| Invalid::field("step", "must be between 1 and 7"))
    }
}

impl IntoParams for StepPath {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let steps = rules::integer(
            KnownFormat::Int32,
            i64::from(Step::FIRST.get()),
            i64::from(Step::LAST.get()),
        );
        vec![rules::path_param("step", "The prompt's step, 1-7.", steps)]
    }
}
