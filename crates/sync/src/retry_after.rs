//! Waiting as the service asks: a batch answered `429 rate_limited` (the person's entries per
//! minute) or `503 busy` (the writer's turn did not come in time), with `Retry-After`, is sent
//! again once the wait it names has passed. Nothing of a refused batch was written, and every
//! batch is an idempotent upsert, so sending it again is safe.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{HeaderMap, RETRY_AFTER};
use time::OffsetDateTime;

use crate::http_date::http_date;

/// How many times one batch waits before its refusal is the import's failure.
pub const MAX_WAITS: u32 = 8;

/// The longest wait taken: a service that asks for more is answered with a failure that says
/// when to run again, rather than a command that sits silent for longer.
pub const LONGEST_WAIT: Duration = Duration::from_secs(120);

/// What an answer asks of the sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// Not a refusal to wait out: read the answer as it is.
    Nothing,
    /// Send again after this long.
    Wait(Duration),
    /// A wait longer than [`LONGEST_WAIT`], this many seconds.
    TooLong(u64),
}

/// What `status` and its `Retry-After` (delta-seconds, or an HTTP date read against `now`)
/// ask. Only `429` and `503` are waited out, and only when they say how long.
#[must_use]
pub fn asked(status: StatusCode, headers: &HeaderMap, now: OffsetDateTime) -> Asked {
    if status != StatusCode::TOO_MANY_REQUESTS && status != StatusCode::SERVICE_UNAVAILABLE {
        return Asked::Nothing;
    }
    let Some(value) = headers.get(RETRY_AFTER).and_then(|v| v.to_str().ok()) else {
        return Asked::Nothing;
    };
    let seconds = match value.trim().parse::<u64>() {
        Ok(seconds) => seconds,
        Err(_) => match http_date(value) {
            // A date already past asks for no wait at all.
            Some(at) => u64::try_from((at - now).whole_seconds()).unwrap_or(0),
            None => return Asked::Nothing,
        },
    };
    let wait = Duration::from_secs(seconds);
    if wait > LONGEST_WAIT {
        Asked::TooLong(seconds)
    } else {
        Asked::Wait(wait)
    }
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;
    use time::macros::datetime;

    use super::*;

    fn with(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(RETRY_AFTER, HeaderValue::from_str(value).unwrap());
        headers
    }

    const NOW: OffsetDateTime = datetime!(2026-11-27 13:11:50 UTC);

    #[test]
    fn a_limit_or_a_busy_writer_with_seconds_or_a_date_is_waited_out() {
        let limited = StatusCode::TOO_MANY_REQUESTS;
        assert_eq!(
            Asked::Wait(Duration::from_secs(7)),
            asked(limited, &with("7"), NOW)
        );
        let busy = StatusCode::SERVICE_UNAVAILABLE;
        assert_eq!(
            Asked::Wait(Duration::from_secs(1)),
            asked(busy, &with(" 1 "), NOW)
        );
        let date = with("Fri, 27 Nov 2026 13:11:55 GMT");
        assert_eq!(
            Asked::Wait(Duration::from_secs(5)),
            asked(limited, &date, NOW)
        );
        let past = with("Fri, 27 Nov 2026 13:00:00 GMT");
        assert_eq!(Asked::Wait(Duration::ZERO), asked(limited, &past, NOW));
    }

    #[test]
    fn other_answers_no_header_or_a_header_past_reading_ask_nothing() {
        let bad = StatusCode::BAD_REQUEST;
        assert_eq!(Asked::Nothing, asked(bad, &with("7"), NOW));
        let limited = StatusCode::TOO_MANY_REQUESTS;
        assert_eq!(Asked::Nothing, asked(limited, &HeaderMap::new(), NOW));
        assert_eq!(Asked::Nothing, asked(limited, &with("soon"), NOW));
        assert_eq!(Asked::Nothing, asked(limited, &with("-3"), NOW));
    }

    #[test]
    fn a_wait_past_the_longest_is_not_taken() {
        let limited = StatusCode::TOO_MANY_REQUESTS;
        assert_eq!(Asked::Wait(LONGEST_WAIT), asked(limited, &with("120"), NOW));
        assert_eq!(Asked::TooLong(121), asked(limited, &with("121"), NOW));
    }
}
