//! The one-retry rule for model output: a reply that does not parse is sent back once with the
//! reason; a second bad reply (or no reply) means the model is unavailable for this request.

use std::future::Future;

use crate::ports::ModelError;

/// Why no usable reply could be had.
#[derive(Debug, thiserror::Error)]
pub enum ModelFailure {
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error("the model's reply was not usable twice: {0}")]
    Unusable(String),
}

/// Calls `ask` (with no feedback), parses the reply with `read`; on a parse failure calls `ask`
/// once more with the reason, and gives up after that.
pub(crate) async fn ask_with_one_retry<T, E, F, Fut>(
    mut ask: F,
    read: impl Fn(&str) -> Result<T, E>,
) -> Result<T, ModelFailure>
where
    E: std::fmt::Display,
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = Result<String, ModelError>>,
{
    let first = ask(None).await?;
    let reason = match read(&first) {
        Ok(value) => return Ok(value),
        Err(e) => e.to_string(),
    };
    let second = ask(Some(reason)).await?;
    read(&second).map_err(|e| ModelFailure::Unusable(e.to_string()))
}
