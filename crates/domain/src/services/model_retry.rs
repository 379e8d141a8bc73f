//! The one-retry rule for model output: a reply that does not parse is sent back once with the
//! reason; a second bad reply (or no reply) means the model is unavailable for this request.

use std::future::Future;

use crate::ports::ModelError;

/// Why no usable reply could be had. Its `Display` is safe for a log line: the reason a reply
/// was refused may quote the reply (and so the person's words), so it is kept in the value but
/// never printed.
#[derive(Debug, thiserror::Error)]
pub enum ModelFailure {
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error("the model's reply was not usable twice")]
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

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;

    fn read(raw: &str) -> Result<u8, String> {
        raw.parse::<u8>()
            .map_err(|_| format!("{raw:?} is not a number"))
    }

    #[test]
    fn a_good_first_reply_is_used_without_feedback() {
        let mut asked = Vec::new();
        let out = block_on(ask_with_one_retry(
            |feedback| {
                asked.push(feedback);
                async { Ok("7".to_owned()) }
            },
            read,
        ));
        assert_eq!(out.unwrap(), 7);
        assert_eq!(asked, [None]);
    }

    #[test]
    fn a_bad_reply_is_retried_once_with_the_reason() {
        let mut asked = Vec::new();
        let mut replies = vec!["8".to_owned(), "eight".to_owned()];
        let out = block_on(ask_with_one_retry(
            |feedback| {
                asked.push(feedback);
                let reply = replies.pop().unwrap_or_default();
                async move { Ok(reply) }
            },
            read,
        ));
        assert_eq!(out.unwrap(), 8);
        assert_eq!(asked, [None, Some("\"eight\" is not a number".to_owned())]);
    }

    #[test]
    fn two_bad_replies_fail_without_printing_the_reply() {
        let mut calls = 0;
        let out = block_on(ask_with_one_retry(
            |_| {
                calls += 1;
                async { Ok("my secret words".to_owned()) }
            },
            read,
        ));
        let err = out.unwrap_err();
        assert_eq!(calls, 2, "exactly one retry");
        assert!(matches!(&err, ModelFailure::Unusable(reason) if reason.contains("secret")));
        assert!(!err.to_string().contains("secret"), "{err}");
    }

    #[test]
    fn a_model_error_is_not_retried() {
        let mut calls = 0;
        let out = block_on(ask_with_one_retry(
            |_| {
                calls += 1;
                async { Err::<String, _>(ModelError::Timeout) }
            },
            read,
        ));
        assert!(matches!(out, Err(ModelFailure::Model(ModelError::Timeout))));
        assert_eq!(calls, 1);
    }
}
