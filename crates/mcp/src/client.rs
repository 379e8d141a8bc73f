//! The HTTP side: one request to the discovery API with the personal key in `X-API-Key`, and
//! its answer sorted into the API's JSON or a [`ToolFailure`] carrying the service's error.

use std::time::Duration;

use reqwest::Method;
use reqwest::header::{HeaderMap, HeaderValue};
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use url::Url;

use crate::config::Config;

/// How long one call may take. The slowest route a tool reaches is a plain database read or
/// write; this only bounds a hung connection so the model gets an answer.
const TIMEOUT: Duration = Duration::from_secs(30);

/// One request of the API: method, path segments below the base URL, query and JSON body.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiRequest {
    pub method: Method,
    /// Path segments, each percent-encoded on its own (a `/` inside one stays inside it).
    pub segments: Vec<String>,
    pub query: Vec<(String, String)>,
    pub body: Option<Value>,
}

impl ApiRequest {
    pub fn get(segments: &[&str]) -> Self {
        Self {
            method: Method::GET,
            segments: segments.iter().map(|s| (*s).to_owned()).collect(),
            query: Vec::new(),
            body: None,
        }
    }

    pub fn post(segments: &[&str], body: Value) -> Self {
        Self {
            method: Method::POST,
            body: Some(body),
            ..Self::get(segments)
        }
    }

    /// The full URL below `base` (whose path ends in `/`).
    pub fn url(&self, base: &Url) -> Url {
        let mut url = base.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            // Drops the empty segment of the trailing `/`, keeping any prefix before it.
            path.pop_if_empty();
            path.extend(&self.segments);
        }
        if !self.query.is_empty() {
            url.query_pairs_mut().extend_pairs(&self.query);
        }
        url
    }
}

/// A call that did not succeed, as the tool result shows it to the model: the service's error
/// (`code`, `message`, `details`) and the HTTP status, or a local code when the service was not
/// reached or did not answer in the contract's shape.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolFailure {
    /// The HTTP status, when the service answered.
    pub status: Option<u16>,
    pub code: String,
    pub message: String,
    pub details: Option<Value>,
}

impl ToolFailure {
    /// `validation_failed` for arguments that do not fit a tool's schema, in the service's
    /// detail shape (`[{"field", "message"}]`), so the model handles both alike.
    pub fn validation(problems: Vec<(String, String)>) -> Self {
        Self {
            status: None,
            code: "validation_failed".into(),
            message: "The arguments do not fit the tool's input schema.".into(),
            details: Some(Value::Array(
                problems
                    .into_iter()
                    .map(|(field, message)| json!({ "field": field, "message": message }))
                    .collect(),
            )),
        }
    }

    /// The text of the tool result: `{"error": {"code", "message", "details"?}, "status"?}`,
    /// the service's error envelope plus the status.
    pub fn to_json(&self) -> Value {
        let mut error = json!({ "code": self.code, "message": self.message });
        if let Some(details) = &self.details {
            error["details"] = details.clone();
        }
        let mut out = json!({ "error": error });
        if let Some(status) = self.status {
            out["status"] = json!(status);
        }
        out
    }
}

/// Calls the discovery API as the key's owner.
#[derive(Debug, Clone)]
pub struct ApiClient {
    http: reqwest::Client,
    base_url: Url,
}

impl ApiClient {
    /// A client sending `X-API-Key` on every request (the header marked sensitive, so a debug
    /// dump of the request hides it).
    ///
    /// # Errors
    /// When the HTTP client cannot be built (no TLS backend) or the key is not header-safe.
    pub fn new(config: &Config) -> Result<Self, reqwest::Error> {
        let mut headers = HeaderMap::new();
        if let Ok(mut key) = HeaderValue::from_str(config.api_key.expose_secret()) {
            key.set_sensitive(true);
            headers.insert("X-API-Key", key);
        }
        let http = reqwest::Client::builder()
            .default_headers(headers)
            .user_agent(concat!("discovery-mcp/", env!("CARGO_PKG_VERSION")))
            .timeout(TIMEOUT)
            // A redirect could carry the key to another host; the API never redirects.
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        Ok(Self {
            http,
            base_url: config.base_url.clone(),
        })
    }

    /// Sends `request`: the API's JSON on a 2xx (`null` for an empty body), else the failure.
    ///
    /// # Errors
    /// The service's error for a non-2xx answer; `service_unreachable` when no answer came;
    /// `unexpected_response` when the answer was not the contract's JSON.
    pub async fn send(&self, request: &ApiRequest) -> Result<Value, ToolFailure> {
        let url = request.url(&self.base_url);
        tracing::debug!(method = %request.method, path = url.path(), "calling the service");
        let mut builder = self.http.request(request.method.clone(), url.clone());
        if let Some(body) = &request.body {
            builder = builder.json(body);
        }
        let response = builder.send().await.map_err(|e| ToolFailure {
            status: None,
            code: "service_unreachable".into(),
            // The URL without query; the key is a header and never part of it.
            message: format!(
                "The Discovery Service at {} did not answer: {}",
                self.base_url,
                describe(&e)
            ),
            details: None,
        })?;
        let status = response.status();
        let text = response.text().await.map_err(|e| ToolFailure {
            status: Some(status.as_u16()),
            code: "service_unreachable".into(),
            message: format!(
                "The answer of the Discovery Service broke off: {}",
                describe(&e)
            ),
            details: None,
        })?;
        tracing::debug!(
            status = status.as_u16(),
            path = url.path(),
            "the service answered"
        );
        if status.is_success() {
            if text.trim().is_empty() {
                return Ok(Value::Null);
            }
            return serde_json::from_str(&text).map_err(|_| unexpected(status.as_u16()));
        }
        Err(service_error(status.as_u16(), &text))
    }
}

/// The service's error envelope, or `unexpected_response` when the body is not one (a proxy's
/// HTML page, say).
fn service_error(status: u16, body: &str) -> ToolFailure {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let error = parsed.as_ref().map(|v| &v["error"]);
    match error.and_then(|e| e["code"].as_str().map(|code| (e, code))) {
        Some((error, code)) => ToolFailure {
            status: Some(status),
            code: code.to_owned(),
            message: error["message"].as_str().unwrap_or_default().to_owned(),
            details: error.get("details").filter(|d| !d.is_null()).cloned(),
        },
        None => unexpected(status),
    }
}

fn unexpected(status: u16) -> ToolFailure {
    ToolFailure {
        status: Some(status),
        code: "unexpected_response".into(),
        message: format!(
            "The service answered HTTP {status} without the API's JSON; is the URL that of the Discovery Service?"
        ),
        details: None,
    }
}

/// A transport error in words, without its URL (already given) and with its causes.
fn describe(error: &reqwest::Error) -> String {
    let kind = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "connection failed"
    } else {
        "request failed"
    };
    let mut causes = Vec::new();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        causes.push(cause.to_string());
        source = cause.source();
    }
    if causes.is_empty() {
        kind.to_owned()
    } else {
        format!("{kind} ({})", causes.join(": "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_encoded_and_a_base_path_prefix_is_kept() {
        let base = Url::parse("https://example.org/discovery/").unwrap();
        let mut request = ApiRequest::get(&["coaching", "checkins", "a/../b", "response"]);
        request.query.push(("before".into(), "x&y=z".into()));
        assert_eq!(
            request.url(&base).as_str(),
            "https://example.org/discovery/coaching/checkins/a%2F..%2Fb/response?before=x%26y%3Dz"
        );
        let root = Url::parse("http://127.0.0.1:8011/").unwrap();
        assert_eq!(
            ApiRequest::get(&["discovery", "profile", "me"])
                .url(&root)
                .as_str(),
            "http://127.0.0.1:8011/discovery/profile/me"
        );
    }

    #[test]
    fn the_services_error_envelope_is_kept_whole() {
        let body = r#"{"error": {"code": "validation_failed", "message": "Invalid input.",
            "details": [{"field": "foundation", "message": "must be one of ..."}]}}"#;
        let failure = service_error(422, body);
        assert_eq!(failure.code, "validation_failed");
        assert_eq!(failure.message, "Invalid input.");
        assert_eq!(failure.status, Some(422));
        assert_eq!(
            failure.to_json(),
            json!({
                "error": {
                    "code": "validation_failed",
                    "message": "Invalid input.",
                    "details": [{"field": "foundation", "message": "must be one of ..."}]
                },
                "status": 422
            })
        );
    }

    #[test]
    fn an_answer_that_is_not_the_contracts_json_is_unexpected() {
        for body in ["<html>Bad gateway</html>", "{}", r#"{"error": "x"}"#, ""] {
            let failure = service_error(502, body);
            assert_eq!(failure.code, "unexpected_response", "{body}");
            assert_eq!(failure.status, Some(502));
        }
    }

    #[test]
    fn a_local_validation_failure_has_no_status_and_the_services_detail_shape() {
        let failure =
            ToolFailure::validation(vec![("minutes".into(), "must be an integer".into())]);
        assert_eq!(
            failure.to_json(),
            json!({
                "error": {
                    "code": "validation_failed",
                    "message": "The arguments do not fit the tool's input schema.",
                    "details": [{"field": "minutes", "message": "must be an integer"}]
                }
            })
        );
    }
}
