//! aw-server's REST API, read only: the buckets (`GET /api/0/buckets/`) and a bucket's events
//! in a time range (`GET /api/0/buckets/{id}/events?start=&end=`), put together as the export
//! [`crate::import::activitywatch`] reads, so a live import counts exactly as a file does.
//!
//! aw-server-rust answers the buckets as an object by id (`{"aw-watcher-window_laptop":
//! {"id": ..., "type": "currentwindow", "client": ..., "hostname": "laptop", ...}}`) and the
//! events as a list (`[{"id": 7, "timestamp": "2026-03-16T09:00:00.25+00:00", "duration":
//! 12.5, "data": {...}}]`), newest first, cut to the range asked for. The events are cut here
//! too, so a server that does not cut them still gives each hour only its own time.

use std::time::Duration;

use serde_json::{Map, Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use url::Url;

use crate::Failure;
use crate::import::activitywatch::{AFK_TYPE, MAX_EVENT_SECONDS, WINDOW_TYPE};

/// How long one answer may take.
const TIMEOUT: Duration = Duration::from_secs(120);

/// The largest answer read: a week of one watcher's events is a few MB; more is not a
/// watcher's, and would be held whole.
pub const MAX_ANSWER: u64 = 256 * 1024 * 1024;

/// How long all of a run's requests may take together: a timer every few minutes must not
/// pile up runs behind a server that answers slowly (20,000 buckets at 2 s each).
pub const DEADLINE: Duration = Duration::from_secs(30 * 60);

/// A client of one aw-server.
#[derive(Debug)]
pub struct AwServer {
    http: reqwest::blocking::Client,
    base: Url,
    /// The largest answer read, in bytes.
    max_answer: u64,
    /// When the run's requests must be done by, and how long that was.
    deadline: (std::time::Instant, Duration),
}

impl AwServer {
    /// A client of the aw-server at `url` (`http://127.0.0.1:5600`).
    ///
    /// # Errors
    /// [`Failure::Usage`] for a URL that is not http(s); [`Failure::Failed`] when no HTTP
    /// client can be built.
    pub fn new(url: &str) -> Result<Self, Failure> {
        let base = Url::parse(url.trim())
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.has_host())
            .ok_or_else(|| {
                Failure::Usage(format!(
                    "--server must be an http(s) URL such as http://127.0.0.1:5600, got {url:?}"
                ))
            })?;
        let http = reqwest::blocking::Client::builder()
            .timeout(TIMEOUT)
            // A redirect is named as the failure it is (a proxy's login page, another port),
            // not followed to an answer that then reads as "not JSON".
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("discovery-sync/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| Failure::Failed(format!("cannot build an HTTP client: {e}")))?;
        Ok(Self {
            http,
            base,
            max_answer: MAX_ANSWER,
            deadline: (std::time::Instant::now() + DEADLINE, DEADLINE),
        })
    }

    /// The same client with other limits: the largest answer read, in bytes, and how long all
    /// its requests may take from now.
    #[must_use]
    pub fn with_limits(self, max_answer: u64, deadline: Duration) -> Self {
        Self {
            max_answer,
            deadline: (std::time::Instant::now() + deadline, deadline),
            ..self
        }
    }

    /// `base` + `/api/0/buckets/` + the segments, each escaped.
    fn url(&self, segments: &[&str]) -> Url {
        let mut url = self.base.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty()
                .extend(["api", "0", "buckets"])
                .extend(segments);
        }
        url
    }

    fn get(&self, url: Url) -> Result<Value, Failure> {
        let shown = url.to_string();
        let (deadline, whole) = self.deadline;
        let late = || {
            Failure::Failed(format!(
                "aw-server's answers took longer than the run may ({} s in all), at {shown}: \
                 run again (the cursor keeps what was sent)",
                whole.as_secs()
            ))
        };
        let left = deadline
            .checked_duration_since(std::time::Instant::now())
            .filter(|left| !left.is_zero())
            .ok_or_else(late)?;
        let response = self
            .http
            .get(url)
            .timeout(left.min(TIMEOUT))
            .send()
            .map_err(|e| {
                Failure::Failed(format!("cannot reach aw-server at {shown}: {}", cause(&e)))
            })?;
        let status = response.status();
        if status.is_redirection() {
            let to = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("no Location");
            return Err(Failure::Failed(format!(
                "aw-server at {shown} answered {status}, a redirect to {to}: give aw-server's own \
                 address in --server (redirects are not followed)"
            )));
        }
        let text = self.body(response, &shown)?;
        if !status.is_success() {
            let cut: String = text.chars().take(200).collect();
            return Err(Failure::Failed(format!(
                "aw-server answered {status} to {shown}: {cut}"
            )));
        }
        serde_json::from_str(&text)
            .map_err(|e| Failure::Failed(format!("aw-server's answer to {shown} is not JSON: {e}")))
    }

    /// An answer's text, at most [`AwServer::max_answer`] bytes of it.
    fn body(&self, response: reqwest::blocking::Response, shown: &str) -> Result<String, Failure> {
        let too_big = || {
            Failure::Failed(format!(
                "aw-server's answer to {shown} is over {} MB: not read (no watcher writes that \
                 much in a day: check what answers at --server)",
                self.max_answer / (1024 * 1024)
            ))
        };
        if response
            .content_length()
            .is_some_and(|n| n > self.max_answer)
        {
            return Err(too_big());
        }
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(
            &mut std::io::Read::take(response, self.max_answer + 1),
            &mut bytes,
        )
        .map_err(|e| {
            Failure::Failed(format!(
                "reading aw-server's answer to {shown}: {}",
                crate::client::chain(&e)
            ))
        })?;
        if bytes.len() as u64 > self.max_answer {
            return Err(too_big());
        }
        String::from_utf8(bytes)
            .map_err(|_| Failure::Failed(format!("aw-server's answer to {shown} is not UTF-8")))
    }

    /// The window and AFK buckets, as an export holds them but without events: id to
    /// `{"type", "hostname"}`.
    ///
    /// # Errors
    /// The server cannot be reached, or answers something other than an object of buckets.
    pub fn buckets(&self) -> Result<Map<String, Value>, Failure> {
        // The trailing slash: aw-server's route is `/api/0/buckets/`.
        let answer = self.get(self.url(&[""]))?;
        let Value::Object(all) = answer else {
            return Err(Failure::Failed(
                "aw-server's /api/0/buckets/ is not an object of buckets".to_owned(),
            ));
        };
        Ok(all
            .into_iter()
            .filter(|(_, b)| matches!(b["type"].as_str(), Some(WINDOW_TYPE | AFK_TYPE)))
            .map(|(id, b)| {
                let bucket = json!({"type": b["type"], "hostname": b["hostname"]});
                (id, bucket)
            })
            .collect())
    }

    /// `buckets` with their events in `[from, to)`, each cut to it: an export of that range.
    ///
    /// # Errors
    /// As [`AwServer::buckets`], for each bucket's events.
    pub fn export(
        &self,
        buckets: &Map<String, Value>,
        from: OffsetDateTime,
        to: OffsetDateTime,
    ) -> Result<Value, Failure> {
        let stamp = |at: OffsetDateTime| at.format(&Rfc3339).unwrap_or_default();
        let mut out = Map::new();
        for (id, bucket) in buckets {
            let mut url = self.url(&[id, "events"]);
            url.query_pairs_mut()
                .append_pair("start", &stamp(from))
                .append_pair("end", &stamp(to));
            let Value::Array(events) = self.get(url)? else {
                return Err(Failure::Failed(format!(
                    "aw-server's events of {id} are not a list"
                )));
            };
            let events: Vec<Value> = events
                .into_iter()
                .filter_map(|e| cut(e, from, to))
                .collect();
            let mut bucket = bucket.clone();
            bucket["events"] = Value::Array(events);
            out.insert(id.clone(), bucket);
        }
        Ok(json!({ "buckets": out }))
    }
}

/// Why a request failed, in words first (refused, timed out), then reqwest's chain of causes
/// (its own message alone reads "error sending request for url" whatever happened).
fn cause(e: &reqwest::Error) -> String {
    let what = if e.is_timeout() {
        format!(
            "no answer in time (timed out: {} s a request, {} min for the run)",
            TIMEOUT.as_secs(),
            DEADLINE.as_secs() / 60
        )
    } else if e.is_connect() {
        "cannot connect (is aw-server running, at this address and port?)".to_owned()
    } else if e.is_redirect() {
        "a redirect could not be followed".to_owned()
    } else if e.is_decode() || e.is_body() {
        "its answer could not be read".to_owned()
    } else {
        "the request failed".to_owned()
    };
    format!("{what}: {}", crate::client::chain(e))
}

/// `event` cut to `[from, to)`; `None` when nothing of it is inside. An event whose time
/// cannot be read, or whose duration is absurd (over [`MAX_EVENT_SECONDS`], where adding it
/// to the start would overflow), is kept as it is, for the import to skip and count.
fn cut(mut event: Value, from: OffsetDateTime, to: OffsetDateTime) -> Option<Value> {
    let start = event["timestamp"]
        .as_str()
        .and_then(|t| OffsetDateTime::parse(t, &Rfc3339).ok());
    let (Some(start), Some(seconds)) = (start, event["duration"].as_f64()) else {
        return Some(event);
    };
    if !(0.0..=MAX_EVENT_SECONDS).contains(&seconds) {
        return Some(event);
    }
    let Some(end) = time::Duration::checked_seconds_f64(seconds).and_then(|d| start.checked_add(d))
    else {
        return Some(event);
    };
    let (start, end) = (start.max(from), end.min(to));
    if start >= end {
        return None;
    }
    event["timestamp"] = json!(start.format(&Rfc3339).ok()?);
    event["duration"] = json!((end - start).as_seconds_f64().max(0.0));
    Some(event)
}
