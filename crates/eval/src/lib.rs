//! `discovery-eval`: runs a set of answer fixtures through the extractor the service would use
//! (`LLM_PROVIDER`: the offline engine or an OpenAI-compatible model), with the service's one
//! retry and the domain's guards, and scores what would be stored: valid replies, retries, 502s,
//! goals kept, invented and dropped, verified sources, triad agreement and latency
//! (docs/llm.md, "Evaluation").
//!
//! - [`fixture`]: the answer sets and their expectations (`fixtures/*.toml`);
//! - [`engine`]: the extractor from the environment;
//! - [`run`]: one extraction as the service runs it, observed;
//! - [`score`]: the verdicts and the summary (pure);
//! - [`report`]: the table or the JSON document;
//! - [`targets`]: issue 30's done targets, judged on the summary;
//! - [`corrections`]: the offline coach over the correction corpus (`discovery-eval corrections`).

pub mod corrections;
pub mod engine;
pub mod fixture;
pub mod people;
pub mod phrase;
pub mod report;
pub mod run;
pub mod score;
pub mod targets;

use domain::ports::Extractor;

use crate::fixture::Fixture;
use crate::report::FixtureResult;
use crate::score::{Summary, judge, summarize};

/// Runs every fixture through `extractor`, one after the other, and judges each.
pub async fn evaluate<'a, X: Extractor + ?Sized>(
    extractor: &X,
    fixtures: &'a [Fixture],
) -> (Vec<FixtureResult<'a>>, Summary) {
    evaluate_with_progress(extractor, fixtures, |_| {}).await
}

/// [`evaluate`], calling `progress` with each fixture's result as soon as it is judged (a model
/// run can take many minutes).
pub async fn evaluate_with_progress<'a, X: Extractor + ?Sized>(
    extractor: &X,
    fixtures: &'a [Fixture],
    mut progress: impl FnMut(&FixtureResult<'a>),
) -> (Vec<FixtureResult<'a>>, Summary) {
    let mut results = Vec::with_capacity(fixtures.len());
    for fixture in fixtures {
        let observation = run::observe(extractor, &fixture.answers.input()).await;
        let verdict = judge(&fixture.expect, &observation);
        let result = FixtureResult {
            fixture,
            observation,
            verdict,
        };
        progress(&result);
        results.push(result);
    }
    let pairs: Vec<_> = results
        .iter()
        .map(|r| (&r.observation, &r.verdict))
        .collect();
    let summary = summarize(&pairs);
    (results, summary)
}
