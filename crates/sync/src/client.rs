//! The upload: the entries as `POST /integration/task-mappings/batch` bodies of at most 1,000
//! items, sent with `X-API-Key`, two at a time, to the address given and never one it redirects
//! to.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use serde::Serialize;
use serde_json::Value;

use crate::Failure;
use crate::entries::Item;
use crate::http_date::http_date;
use crate::retry_after::{self, Asked};

/// The contract's cap on one batch, as the domain defines it.
pub use domain::integration::MAX_BATCH;

/// Batches in flight at once: while the service writes one, it reads the next, which keeps
/// both of its sides busy (a 1,000,000-row import ran at 0.47-0.53x of a raw batched INSERT
/// one batch at a time). Every batch is an idempotent upsert of ids of its own, so their order
/// does not matter.
const IN_FLIGHT: usize = 2;

/// The path of the batch upsert.
pub const BATCH_PATH: &str = "/integration/task-mappings/batch";

#[derive(Serialize)]
struct Batch<'a> {
    items: &'a [Item],
}

/// The exact request bodies for `items`, in order: what `--dry-run` prints and what
/// [`Client::send`] sends.
///
/// # Errors
/// Never in practice: the items are plain strings and numbers.
pub fn batch_bodies(items: &[Item]) -> Result<Vec<String>, Failure> {
    items.chunks(MAX_BATCH).map(batch_body).collect()
}

/// The request body of one batch of at most [`MAX_BATCH`] items.
///
/// # Errors
/// Never in practice: the items are plain strings and numbers.
pub fn batch_body(items: &[Item]) -> Result<String, Failure> {
    serde_json::to_string(&Batch { items })
        .map_err(|e| Failure::Failed(format!("cannot encode a batch: {e}")))
}

/// What the service reported, summed over the batches sent so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    pub created: u64,
    pub updated: u64,
    /// Batches the service accepted.
    pub batches: usize,
}

/// A client of one service with one API key.
#[derive(Debug)]
pub struct Client {
    http: reqwest::blocking::Client,
    /// The service's base URL, without a trailing slash.
    base: String,
    endpoint: String,
    /// The API key: a secret, so this client's `Debug` shows none of it.
    key: SecretString,
}

impl Client {
    /// A client for the service at `base_url` (`http://127.0.0.1:8011`) with `api_key`.
    ///
    /// # Errors
    /// [`Failure::Usage`] when the URL is not http(s); [`Failure::Failed`] when no HTTP client
    /// can be built.
    pub fn new(base_url: &str, api_key: &str) -> Result<Self, Failure> {
        let base = base_url.trim().trim_end_matches('/');
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(Failure::Usage(format!(
                "--url must start with http:// or https://, got {base:?}"
            )));
        }
        let http = reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(60))
            .user_agent(concat!("discovery-sync/", env!("CARGO_PKG_VERSION")))
            // reqwest drops `Authorization` and `Cookie` when a redirect changes host, but not
            // `X-API-Key`: following a 307 would hand the key and the whole batch to whatever
            // the answer names. The API never redirects, so a 3xx is a failure.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| Failure::Failed(format!("cannot build an HTTP client: {e}")))?;
        Ok(Self {
            http,
            base: base.to_owned(),
            endpoint: format!("{base}{BATCH_PATH}"),
            key: api_key.into(),
        })
    }

    /// Sends `bodies`, [`IN_FLIGHT`] at a time, and adds up the answers. Stops at the first
    /// failure: no batch starts after it, and the totals of the batches accepted (those before
    /// it, and any that was in flight beside it) come with the error. Each batch is
    /// all-or-nothing, so nothing of the failed one was written.
    ///
    /// # Errors
    /// The failure and the totals so far: on a transport error, a 401 (the key), or any other
    /// non-success answer (quoting the service's error code, message and details).
    pub fn send(&self, bodies: &[String]) -> Result<Totals, (Failure, Totals)> {
        self.send_each(bodies, |_| {})
    }

    /// [`Client::send`], calling `accepted` with the index of each batch the service accepted
    /// (for a progress bar).
    ///
    /// # Errors
    /// As [`Client::send`].
    pub fn send_each(
        &self,
        bodies: &[String],
        accepted: impl Fn(usize) + Sync,
    ) -> Result<Totals, (Failure, Totals)> {
        self.send_made(bodies.len(), |i| Ok(bodies[i].clone()), accepted)
    }

    /// [`Client::send_each`] of `count` bodies made one at a time by `body` (its index) just
    /// before each is sent: at most [`IN_FLIGHT`] of them are held at once, however many
    /// there are.
    ///
    /// # Errors
    /// As [`Client::send`], and the first body that could not be made.
    pub fn send_made(
        &self,
        count: usize,
        body: impl Fn(usize) -> Result<String, Failure> + Sync,
        accepted: impl Fn(usize) + Sync,
    ) -> Result<Totals, (Failure, Totals)> {
        self.send_streamed(
            Some(count),
            |push| {
                for i in 0..count {
                    if !push(body(i)?, i) {
                        break;
                    }
                }
                Ok(())
            },
            accepted,
        )
    }

    /// Sends the bodies `produce` hands to its `push` as it makes them (with a number of the
    /// caller's, given back to `accepted` once the service accepted that body), [`IN_FLIGHT`]
    /// at a time: a body waits for a free sender before the next is made, so at most
    /// `IN_FLIGHT + 1` are held however many there are. `push` answers `false` once a batch
    /// failed: `produce` should stop there. `count`, when known, only words the failure
    /// (`batch 3 of 12`).
    ///
    /// # Errors
    /// As [`Client::send`]; else the failure `produce` returned, as it is.
    pub fn send_streamed(
        &self,
        count: Option<usize>,
        produce: impl FnOnce(&mut dyn FnMut(String, usize) -> bool) -> Result<(), Failure>,
        accepted: impl Fn(usize) + Sync,
    ) -> Result<Totals, (Failure, Totals)> {
        let stop = AtomicBool::new(false);
        let totals = Mutex::new(Totals::default());
        let first_failure: Mutex<Option<(usize, String)>> = Mutex::new(None);
        let fail = |i: usize, e: String| {
            stop.store(true, Ordering::SeqCst);
            let mut failure = first_failure.lock().unwrap_or_else(|e| e.into_inner());
            // The earliest batch that failed is the one to report.
            if failure.as_ref().is_none_or(|(at, _)| i < *at) {
                *failure = Some((i, e));
            }
        };
        // A rendezvous channel: a body is handed over only when a sender is free to take it.
        let (sender, bodies) = std::sync::mpsc::sync_channel::<(usize, String, usize)>(0);
        let bodies = Mutex::new(bodies);
        let mut made = 0;
        let produced = std::thread::scope(|scope| {
            for _ in 0..IN_FLIGHT {
                scope.spawn(|| {
                    loop {
                        let next = bodies.lock().unwrap_or_else(|e| e.into_inner()).recv();
                        let Ok((i, body, tag)) = next else {
                            return;
                        };
                        if stop.load(Ordering::SeqCst) {
                            continue;
                        }
                        match self.send_one(&body) {
                            Ok((created, updated)) => {
                                let mut t = totals.lock().unwrap_or_else(|e| e.into_inner());
                                t.created += created;
                                t.updated += updated;
                                t.batches += 1;
                                drop(t);
                                accepted(tag);
                            }
                            Err(e) => fail(i, e),
                        }
                    }
                });
            }
            let produced = produce(&mut |body, tag| {
                if stop.load(Ordering::SeqCst) {
                    return false;
                }
                let i = made;
                made += 1;
                sender.send((i, body, tag)).is_ok() && !stop.load(Ordering::SeqCst)
            });
            drop(sender);
            produced
        });
        let totals = totals.into_inner().unwrap_or_else(|e| e.into_inner());
        match first_failure
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
        {
            None => produced.map(|()| totals).map_err(|f| (f, totals)),
            Some((i, e)) => {
                let at = match count {
                    Some(count) if count > 1 => format!("batch {} of {}: ", i + 1, count),
                    Some(_) => String::new(),
                    None => format!("batch {}: ", i + 1),
                };
                Err((Failure::Failed(self.redact(&format!("{at}{e}"))), totals))
            }
        }
    }

    /// Sends one batch, waiting out and sending again what the service refuses with
    /// `Retry-After` ([`retry_after`]), at most [`retry_after::MAX_WAITS`] times.
    fn send_one(&self, body: &str) -> Result<(u64, u64), String> {
        let mut waits = 0;
        loop {
            let response = self
                .http
                .post(&self.endpoint)
                .header("X-API-Key", self.key.expose_secret())
                .header("Content-Type", "application/json")
                .body(body.to_owned())
                .send()
                .map_err(|e| format!("cannot reach {}: {}", self.endpoint, chain(&e)))?;
            let now = time::OffsetDateTime::now_utc();
            match retry_after::asked(response.status(), response.headers(), now) {
                Asked::Wait(wait) if waits < retry_after::MAX_WAITS => {
                    waits += 1;
                    eprintln!(
                        "the service asked to wait {} s ({}); the batch is sent again then",
                        wait.as_secs(),
                        response.status()
                    );
                    std::thread::sleep(wait);
                }
                Asked::TooLong(seconds) => {
                    return Err(format!(
                        "the service refused the batch ({}) and asked to wait {seconds} s, \
                         longer than discovery-sync waits: run it again then",
                        response.status()
                    ));
                }
                _ => return self.answered(response),
            }
        }
    }

    /// The totals of an answer to a batch, or what the refusal says.
    fn answered(&self, response: reqwest::blocking::Response) -> Result<(u64, u64), String> {
        let status = response.status();
        if status.is_redirection() {
            return Err(redirect_refused(status, response.headers(), &self.endpoint));
        }
        let text = response
            .text()
            .map_err(|e| format!("reading the answer ({status}): {}", chain(&e)))?;
        if !status.is_success() {
            let reason = service_error(&text);
            return Err(if status.as_u16() == 401 {
                format!("the service refused the API key in DISCOVERY_API_KEY ({status}): {reason}")
            } else {
                format!("the service refused the batch ({status}): {reason}")
            });
        }
        let json: Value = serde_json::from_str(&text)
            .map_err(|_| format!("the service answered {status} with something other than JSON"))?;
        match (json["created"].as_u64(), json["updated"].as_u64()) {
            (Some(created), Some(updated)) => Ok((created, updated)),
            _ => Err(format!("unexpected answer from the service: {json}")),
        }
    }

    /// The service's clock: the `Date` of its answer to `GET /integration/foundations` (an
    /// authenticated read that changes nothing), whole seconds, rounded down. Every write
    /// answered after this call is stamped at or after it.
    ///
    /// # Errors
    /// A transport error, a refused key, or an answer without a readable `Date`.
    pub fn server_time(&self) -> Result<time::OffsetDateTime, Failure> {
        let url = format!("{}/integration/foundations", self.base);
        let response = self
            .http
            .get(&url)
            .header("X-API-Key", self.key.expose_secret())
            .send()
            .map_err(|e| {
                Failure::Failed(self.redact(&format!("cannot reach {url}: {}", chain(&e))))
            })?;
        let status = response.status();
        if !status.is_success() {
            let reason = service_error(&response.text().unwrap_or_default());
            return Err(Failure::Failed(self.redact(&format!(
                "the service refused GET {url} ({status}): {reason}"
            ))));
        }
        response
            .headers()
            .get(reqwest::header::DATE)
            .and_then(|v| v.to_str().ok())
            .and_then(http_date)
            .ok_or_else(|| {
                Failure::Failed(format!(
                    "the service's answer to GET {url} has no readable Date header"
                ))
            })
    }

    /// `POST <path>` with a JSON `body`: the answer's JSON.
    ///
    /// # Errors
    /// A transport error, a non-success answer (its error quoted) or an answer that is not JSON.
    pub fn post_json(&self, path: &str, body: &Value) -> Result<Value, Failure> {
        let url = format!("{}{path}", self.base);
        self.json_answer("POST", path, self.http.post(&url).json(body))
    }

    /// `GET <path>` (a read that changes nothing): the answer's JSON.
    ///
    /// # Errors
    /// As [`Client::post_json`].
    pub fn get_json(&self, path: &str) -> Result<Value, Failure> {
        let url = format!("{}{path}", self.base);
        self.json_answer("GET", path, self.http.get(&url))
    }

    /// Sends `request` (`method` to `path`) with the key: the answer's JSON.
    fn json_answer(
        &self,
        method: &str,
        path: &str,
        request: reqwest::blocking::RequestBuilder,
    ) -> Result<Value, Failure> {
        let url = format!("{}{path}", self.base);
        let fail = |m: String| Failure::Failed(self.redact(&m));
        let response = request
            .header("X-API-Key", self.key.expose_secret())
            .send()
            .map_err(|e| fail(format!("cannot reach {url}: {}", chain(&e))))?;
        let status = response.status();
        if status.is_redirection() {
            return Err(fail(redirect_refused(status, response.headers(), &url)));
        }
        let text = response
            .text()
            .map_err(|e| fail(format!("reading the answer ({status}): {}", chain(&e))))?;
        if !status.is_success() {
            return Err(fail(format!(
                "the service refused {method} {path} ({status}): {}",
                service_error(&text)
            )));
        }
        serde_json::from_str(&text).map_err(|_| {
            fail(format!(
                "the service answered {status} with something other than JSON"
            ))
        })
    }

    /// `text` with the API key replaced by `***`. The key is only ever sent as a header and no
    /// message should carry it; this makes sure it is never printed.
    fn redact(&self, text: &str) -> String {
        let key = self.key.expose_secret();
        if key.is_empty() {
            text.to_owned()
        } else {
            text.replace(key, "***")
        }
    }
}

/// The failure for a 3xx answer: which redirect, where to, and what to do instead.
fn redirect_refused(
    status: reqwest::StatusCode,
    headers: &reqwest::header::HeaderMap,
    endpoint: &str,
) -> String {
    let to = headers
        .get(reqwest::header::LOCATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("no Location");
    format!(
        "the service answered {status} with a redirect to {to}; discovery-sync follows no \
         redirects (the API key would go along), so nothing was sent beyond {endpoint}: give the \
         service's own address in --url"
    )
}

/// An error and its causes, `a: b: c` (reqwest's own message alone says little).
pub(crate) fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// `code: message (field: problem; ...)` from the contract's error body, else the raw text
/// (shortened).
fn service_error(text: &str) -> String {
    let Ok(json) = serde_json::from_str::<Value>(text) else {
        let short: String = text.chars().take(200).collect();
        return if short.trim().is_empty() {
            "no message".to_owned()
        } else {
            short
        };
    };
    let error = &json["error"];
    let mut out = format!(
        "{}: {}",
        error["code"].as_str().unwrap_or("error"),
        error["message"].as_str().unwrap_or("no message")
    );
    let details: Vec<String> = error["details"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| {
            format!(
                "{}: {}",
                d["field"].as_str().unwrap_or("?"),
                d["message"].as_str().unwrap_or("?")
            )
        })
        .collect();
    if !details.is_empty() {
        out.push_str(&format!(" ({})", details.join("; ")));
    }
    out
}
