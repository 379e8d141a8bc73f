//! What one attempt came to: the answer's status, or a few words on why there was none. The
//! words never carry the URL's query, the payload or the secret: they are fixed phrases.

use std::error::Error;

use domain::notifications::DeliveryOutcome;
use reqwest::Response;

use super::destination::DestinationRefused;
use super::limits::MAX_ANSWER_BYTES;

/// Why a request to a refused address was not made.
pub const REFUSED: &str = "the destination is not allowed (not a public address)";
/// Why an attempt ran out of time; kept in step with [`TIMEOUT`](super::limits::TIMEOUT) by a test.
pub const TIMED_OUT: &str = "no answer within 10 s";

/// A failure without an answer.
#[must_use]
pub fn failed(error: &str) -> DeliveryOutcome {
    DeliveryOutcome::Failed {
        response_status: None,
        error: error.to_owned(),
    }
}

/// Delivered on a 2xx, failed with the status otherwise (a 3xx included: it is not followed).
/// The body is read up to [`MAX_ANSWER_BYTES`] and then dropped, whatever it says.
pub async fn outcome(mut answer: Response) -> DeliveryOutcome {
    let status = answer.status();
    drain(&mut answer).await;
    let code = status.as_u16();
    if status.is_success() {
        DeliveryOutcome::Delivered {
            response_status: Some(code),
        }
    } else {
        DeliveryOutcome::Failed {
            response_status: Some(code),
            error: format!("the endpoint answered {code}"),
        }
    }
}

/// Reads the body until its end or until [`MAX_ANSWER_BYTES`] have come, and returns how much was
/// read. The last chunk may pass the bound by what the connection had already buffered; nothing
/// is kept. An error while reading (the time limit) ends it too: the status is already known.
pub async fn drain(answer: &mut Response) -> usize {
    let mut read = 0;
    while read < MAX_ANSWER_BYTES {
        match answer.chunk().await {
            Ok(Some(chunk)) => read += chunk.len(),
            Ok(None) | Err(_) => break,
        }
    }
    read
}

/// A few words on a request that got no answer.
#[must_use]
pub fn describe(e: &reqwest::Error) -> &'static str {
    if refused(e) {
        REFUSED
    } else if e.is_timeout() {
        TIMED_OUT
    } else if e.is_connect() {
        "could not connect to the endpoint"
    } else if e.is_request() {
        "the request could not be sent"
    } else {
        "the request failed"
    }
}

/// Whether the resolver refused the destination, somewhere down the error's causes.
fn refused(e: &reqwest::Error) -> bool {
    let mut cause: Option<&(dyn Error + 'static)> = e.source();
    while let Some(c) = cause {
        if c.downcast_ref::<DestinationRefused>().is_some() {
            return true;
        }
        cause = c.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::super::limits::TIMEOUT;
    use super::*;

    #[test]
    fn the_timeout_phrase_names_the_time_limit() {
        assert_eq!(
            TIMED_OUT,
            format!("no answer within {} s", TIMEOUT.as_secs())
        );
    }
}
