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
use crate::import::activitywatch::{AFK_TYPE, WINDOW_TYPE};

/// A client of one aw-server.
#[derive(Debug)]
pub struct AwServer {
    http: reqwest::blocking::Client,
    base: Url,
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
            .timeout(Duration::from_secs(120))
            .user_agent(concat!("discovery-sync/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| Failure::Failed(format!("cannot build an HTTP client: {e}")))?;
        Ok(Self { http, base })
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
        let response = self
            .http
            .get(url)
            .send()
            .map_err(|e| Failure::Failed(format!("cannot reach aw-server at {shown}: {e}")))?;
        let status = response.status();
        let text = response
            .text()
            .map_err(|e| Failure::Failed(format!("reading aw-server's answer to {shown}: {e}")))?;
        if !status.is_success() {
            let cut: String = text.chars().take(200).collect();
            return Err(Failure::Failed(format!(
                "aw-server answered {status} to {shown}: {cut}"
            )));
        }
        serde_json::from_str(&text)
            .map_err(|e| Failure::Failed(format!("aw-server's answer to {shown} is not JSON: {e}")))
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

/// `event` cut to `[from, to)`; `None` when nothing of it is inside. An event whose time
/// cannot be read is kept as it is, for the import to report.
fn cut(mut event: Value, from: OffsetDateTime, to: OffsetDateTime) -> Option<Value> {
    let start = event["timestamp"]
        .as_str()
        .and_then(|t| OffsetDateTime::parse(t, &Rfc3339).ok());
    let (Some(start), Some(seconds)) = (start, event["duration"].as_f64()) else {
        return Some(event);
    };
    if !seconds.is_finite() || seconds < 0.0 {
        return Some(event);
    }
    let end = start + time::Duration::seconds_f64(seconds);
    let (start, end) = (start.max(from), end.min(to));
    if start >= end {
        return None;
    }
    event["timestamp"] = json!(start.format(&Rfc3339).ok()?);
    event["duration"] = json!((end - start).as_seconds_f64().max(0.0));
    Some(event)
}
