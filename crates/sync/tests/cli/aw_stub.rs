//! A stand-in for aw-server on a random port, speaking the part of its REST API the live
//! import reads, in aw-server-rust's shapes (aw-server/src/endpoints/bucket.rs and
//! aw-datastore's `get_events`): `GET /api/0/buckets/` answers an object of buckets by id;
//! `GET /api/0/buckets/{id}/events?start=&end=` the bucket's events that overlap the range,
//! newest first, each cut to the range. Every request's path and query is kept for the test
//! to look at.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// One bucket and its events: `(start, seconds, data)`.
#[derive(Clone)]
pub struct Bucket {
    pub id: String,
    pub kind: String,
    pub hostname: String,
    pub events: Vec<(OffsetDateTime, f64, Value)>,
}

/// The stub, serving until the test ends.
pub struct AwStub {
    pub url: String,
    pub requests: Arc<Mutex<Vec<String>>>,
    /// What it serves: a test may add events as it goes (an event that arrives late).
    pub buckets: Arc<Mutex<Vec<Bucket>>>,
}

impl AwStub {
    pub fn start(buckets: Vec<Bucket>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
        let url = format!("http://{}", listener.local_addr().expect("an address"));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&requests);
        let buckets = Arc::new(Mutex::new(buckets));
        let served = Arc::clone(&buckets);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().expect("a stream"));
                let mut request_line = String::new();
                if reader.read_line(&mut request_line).is_err() {
                    continue;
                }
                // The headers, up to the blank line; a GET has no body.
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                let target = request_line
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or_default()
                    .to_owned();
                seen.lock().expect("the log").push(target.clone());
                let (status, body) = answer(&served.lock().expect("the buckets"), &target);
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        Self {
            url,
            requests,
            buckets,
        }
    }
}

fn answer(buckets: &[Bucket], target: &str) -> (&'static str, String) {
    let url = url::Url::parse(&format!("http://stub{target}")).expect("a target");
    // The tests' bucket ids need no escapes.
    let segments: Vec<&str> = url
        .path_segments()
        .map(Iterator::collect)
        .unwrap_or_default();
    match segments.as_slice() {
        ["api", "0", "buckets", ""] => {
            let all: serde_json::Map<String, Value> = buckets
                .iter()
                .map(|b| {
                    (
                        b.id.clone(),
                        json!({"id": b.id, "type": b.kind, "client": "aw-watcher", "hostname":
                            b.hostname, "created": "2026-01-01T00:00:00+00:00", "data": {},
                            "metadata": {"start": null, "end": null}, "events": null,
                            "last_updated": null}),
                    )
                })
                .collect();
            ("200 OK", Value::Object(all).to_string())
        }
        ["api", "0", "buckets", id, "events"] => {
            let Some(bucket) = buckets.iter().find(|b| b.id == *id) else {
                return (
                    "404 Not Found",
                    json!({"message": "no such bucket"}).to_string(),
                );
            };
            let query = |name: &str| {
                url.query_pairs()
                    .find(|(k, _)| k == name)
                    .and_then(|(_, v)| OffsetDateTime::parse(&v, &Rfc3339).ok())
            };
            let (Some(start), Some(end)) = (query("start"), query("end")) else {
                return (
                    "400 Bad Request",
                    json!({"message": "start and end"}).to_string(),
                );
            };
            let mut events: Vec<Value> = bucket
                .events
                .iter()
                .enumerate()
                .filter_map(|(i, (at, seconds, data))| {
                    // A duration no instant can end (1e300 s) is served as it was stored, as
                    // aw-server serves what a watcher posted.
                    if *at > end {
                        return None;
                    }
                    let Some(until) = time::Duration::checked_seconds_f64(*seconds)
                        .and_then(|d| at.checked_add(d))
                    else {
                        return Some(
                            json!({"id": i + 1, "timestamp": at.format(&Rfc3339).unwrap(),
                            "duration": seconds, "data": data}),
                        );
                    };
                    if until < start || *at > end {
                        return None;
                    }
                    let (from, to) = ((*at).max(start), until.min(end));
                    Some(
                        json!({"id": i + 1, "timestamp": from.format(&Rfc3339).unwrap(),
                        "duration": (to - from).as_seconds_f64(), "data": data}),
                    )
                })
                .collect();
            events.reverse();
            ("200 OK", Value::Array(events).to_string())
        }
        _ => ("404 Not Found", json!({"message": "not found"}).to_string()),
    }
}
