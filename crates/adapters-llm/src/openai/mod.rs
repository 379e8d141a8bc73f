//! A client for the OpenAI-compatible chat-completions protocol (`POST <base>/chat/completions`),
//! which Ollama, llama.cpp's server, vLLM, LM Studio and OpenAI all speak (`LLM_PROVIDER=openai`).
//!
//! It asks for the reply's JSON Schema as strictly as the endpoint can enforce it, going down a
//! ladder of `response_format`s ([`Rung`]) each time the endpoint refuses one, and remembers where
//! it settled; whatever the rung, the domain reads the first JSON object of the reply. One port
//! call is bounded by `LLM_TIMEOUT_SECONDS`, a `Retry-After` wait and the steps down included.
//! Nothing the person wrote, and never the API key, reaches a log line: errors name statuses,
//! not bodies.

pub mod body;
pub mod config;
pub mod prompts;
pub mod references;
pub mod schema;

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use domain::discovery::{ExtractionDraft, ExtractionInput};
use domain::ports::{Coach, CoachRequest, Extractor, ModelError};
use domain::profile::EnneagramType;
use domain::reflection::{CoachReplyDraft, ReplyEngine};
use reqwest::header::{HeaderMap, RETRY_AFTER};
use reqwest::{Response, StatusCode};
use secrecy::ExposeSecret;
use serde::Deserialize;
use serde_json::Value;
use tokio::time::Instant;

pub use body::Rung;
pub use config::{ApiKey, DEFAULT_MAX_TOKENS, InvalidSetting, OpenAiConfig};
pub use schema::ReplySchema;

/// The largest reply read from the endpoint; a chat completion is a few kilobytes.
const MAX_REPLY_BYTES: usize = 2 * 1024 * 1024;
/// How many `429 Too Many Requests` are waited out (within the timeout) before giving up.
const MAX_RATE_LIMIT_WAITS: u32 = 2;

/// Why a chat completion could not be had; mapped to [`ModelError`] at the port.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChatError {
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    #[error("rate limited by the endpoint")]
    RateLimited,
    #[error("could not connect to the endpoint")]
    Connect,
    #[error("the endpoint answered {0}")]
    Status(StatusCode),
    #[error("the endpoint's answer is not a chat completion")]
    Protocol,
    #[error("the request failed: {0}")]
    Transport(String),
}

impl From<ChatError> for ModelError {
    fn from(e: ChatError) -> Self {
        match e {
            ChatError::Timeout(_) => Self::Timeout,
            ChatError::RateLimited => Self::RateLimited,
            ChatError::Status(status) => Self::Unavailable(match status.as_u16() {
                401 | 403 => {
                    format!("the endpoint refused the credentials ({status}); check LLM_API_KEY")
                }
                404 => format!("the endpoint answered {status}; check LLM_BASE_URL and LLM_MODEL"),
                300..=399 => format!(
                    "the endpoint redirected ({status}); set LLM_BASE_URL to the final address"
                ),
                _ => format!("the endpoint answered {status}"),
            }),
            other => Self::Unavailable(other.to_string()),
        }
    }
}

/// No rung announced in the log yet.
const NOT_ANNOUNCED: u8 = u8::MAX;

/// The client. Cloning is cheap and clones share the connection pool and what was learnt about
/// the endpoint's structured outputs.
#[derive(Clone)]
pub struct OpenAiClient {
    config: Arc<OpenAiConfig>,
    endpoint: reqwest::Url,
    http: reqwest::Client,
    /// The [`Rung`] requests are sent at ([`Rung::index`]). It only moves down, for the life of
    /// the process, when the endpoint refuses a `response_format`.
    rung: Arc<AtomicU8>,
    /// The rung the log last said an answer came at ([`NOT_ANNOUNCED`] before the first).
    announced: Arc<AtomicU8>,
}

impl std::fmt::Debug for OpenAiClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiClient")
            .field("config", &self.config)
            .field("rung", &self.rung())
            .finish_non_exhaustive()
    }
}

/// What the endpoint answers, as far as it is read.
#[derive(Deserialize)]
struct ChatResponse {
    choices: Vec<Choice>,
}

#[derive(Deserialize)]
struct Choice {
    message: ChoiceMessage,
}

#[derive(Deserialize)]
struct ChoiceMessage {
    #[serde(default)]
    content: Option<String>,
}

impl OpenAiClient {
    /// A client for `config`. No request is made until the first port call.
    ///
    /// # Errors
    /// When the HTTP client cannot be built (the TLS backend fails to start).
    pub fn new(config: OpenAiConfig) -> Result<Self, reqwest::Error> {
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(config.timeout.min(Duration::from_secs(10)))
            // The configured address is the only place the person's words may go.
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("discovery-service/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Self {
            endpoint: config.endpoint(),
            config: Arc::new(config),
            http,
            rung: Arc::new(AtomicU8::new(Rung::ALL[0].index())),
            announced: Arc::new(AtomicU8::new(NOT_ANNOUNCED)),
        })
    }

    #[must_use]
    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    /// `<base_url>/chat/completions`.
    #[must_use]
    pub fn endpoint(&self) -> &reqwest::Url {
        &self.endpoint
    }

    /// How requests ask for the reply's shape now: the top rung until the endpoint refuses it.
    #[must_use]
    pub fn rung(&self) -> Rung {
        Rung::from_index(self.rung.load(Ordering::Relaxed))
    }

    /// The exact body the extractor would send for `input` now (with the one retry's `feedback`).
    #[must_use]
    pub fn extraction_body(&self, input: &ExtractionInput, feedback: Option<&str>) -> Value {
        body::chat(
            &self.config.model,
            body::extraction_messages(input, feedback),
            self.config.max_tokens,
            self.rung(),
            &schema::extraction(input),
        )
    }

    /// The exact body the coach would send for `request` now.
    #[must_use]
    pub fn reflection_body(&self, request: &CoachRequest) -> Value {
        body::chat(
            &self.config.model,
            body::coach_messages(request),
            self.config.max_tokens,
            self.rung(),
            &schema::coach(),
        )
    }

    /// Sends `messages`, asking for a reply of the shape `reply`, and returns the reply's text,
    /// all within the timeout.
    ///
    /// # Errors
    /// [`ChatError`] when no reply could be had.
    pub async fn complete(
        &self,
        messages: Vec<Value>,
        reply: &ReplySchema,
    ) -> Result<String, ChatError> {
        let timeout = self.config.timeout;
        let deadline = Instant::now() + timeout;
        tokio::time::timeout_at(deadline, self.complete_before(messages, reply, deadline))
            .await
            .map_err(|_| ChatError::Timeout(timeout))?
    }

    async fn complete_before(
        &self,
        messages: Vec<Value>,
        reply: &ReplySchema,
        deadline: Instant,
    ) -> Result<String, ChatError> {
        let mut rung = self.rung();
        let mut waits = 0;
        loop {
            let body = body::chat(
                &self.config.model,
                messages.clone(),
                self.config.max_tokens,
                rung,
                reply,
            );
            let started = Instant::now();
            let response = self.send(&body).await?;
            let status = response.status();
            tracing::debug!(
                model = %self.config.model,
                status = status.as_u16(),
                rung = rung.name(),
                elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                "chat completion answered"
            );
            if status.is_success() {
                self.announce(rung);
                return read_reply(response, self.config.timeout).await;
            }
            if status == StatusCode::TOO_MANY_REQUESTS {
                // Wait only when the endpoint says how long and the wait ends before the deadline.
                match retry_after(response.headers()) {
                    Some(wait)
                        if waits < MAX_RATE_LIMIT_WAITS && Instant::now() + wait < deadline =>
                    {
                        waits += 1;
                        tracing::info!(
                            wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                            "the model endpoint is rate limiting; waiting as it asks"
                        );
                        tokio::time::sleep(wait).await;
                        continue;
                    }
                    _ => return Err(ChatError::RateLimited),
                }
            }
            // Only a refusal of the request's shape moves down the ladder: never a timeout, a
            // 400 about anything else (a context too long...) or a 5xx, but for the 500 that
            // llama-cpp-python 0.3 answers a `json_schema` with (a request-validation error
            // naming `response_format`; recorded in tests/llm-real).
            let refusal_status = match status.as_u16() {
                400 | 422 => Some(false),
                500 => Some(true),
                _ => None,
            };
            if let Some(strict) = refusal_status
                && let Some(next) = rung.next()
                && refuses_response_format(response, self.config.timeout, strict).await
            {
                tracing::info!(
                    status = status.as_u16(),
                    refused = rung.name(),
                    next = next.name(),
                    "the model endpoint refused this response_format; asking with the next one"
                );
                rung = self.step_down(next);
                continue;
            }
            return Err(ChatError::Status(status));
        }
    }

    /// Remembers that requests go at `next` or lower from now on, and returns the rung to use
    /// (lower than `next` when a concurrent call already went further down).
    fn step_down(&self, next: Rung) -> Rung {
        let before = self.rung.fetch_max(next.index(), Ordering::Relaxed);
        Rung::from_index(before.max(next.index()))
    }

    /// Says once in the log at which rung the endpoint answers: a warning when it is not the top
    /// one, since the reply's shape is then enforced less (or not at all).
    fn announce(&self, rung: Rung) {
        if self.announced.swap(rung.index(), Ordering::Relaxed) == rung.index() {
            return;
        }
        if rung == Rung::ALL[0] {
            tracing::info!(
                rung = rung.name(),
                "the model endpoint takes the reply's JSON Schema (structured outputs)"
            );
        } else {
            tracing::warn!(
                rung = rung.name(),
                "the model endpoint refused stricter response_formats; asking with this one from now on"
            );
        }
    }

    async fn send(&self, body: &Value) -> Result<Response, ChatError> {
        let mut request = self
            .http
            .post(self.endpoint.clone())
            .json(&body::Wire(body));
        if let Some(key) = &self.config.api_key {
            // reqwest marks the header sensitive, so it is never printed either.
            request = request.bearer_auth(key.expose_secret());
        }
        request
            .send()
            .await
            .map_err(|e| transport_error(&e, self.config.timeout))
    }
}

fn transport_error(e: &reqwest::Error, timeout: Duration) -> ChatError {
    if e.is_timeout() {
        ChatError::Timeout(timeout)
    } else if e.is_connect() {
        ChatError::Connect
    } else {
        // Without the URL (it is in the settings anyway) and never with a body.
        let kind = if e.is_body() || e.is_decode() {
            "while reading the answer"
        } else if e.is_request() {
            "while sending"
        } else {
            "unexpectedly"
        };
        ChatError::Transport(kind.to_owned())
    }
}

/// Reads at most [`MAX_REPLY_BYTES`] of a body.
async fn read_bounded(mut response: Response, timeout: Duration) -> Result<Vec<u8>, ChatError> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| transport_error(&e, timeout))?
    {
        if bytes.len() + chunk.len() > MAX_REPLY_BYTES {
            return Err(ChatError::Protocol);
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// The text of the first choice. A completion without text is returned as `""`: the domain
/// judges it unusable and asks once more, as for any reply without JSON.
async fn read_reply(response: Response, timeout: Duration) -> Result<String, ChatError> {
    let bytes = read_bounded(response, timeout).await?;
    let parsed: ChatResponse = serde_json::from_slice(&bytes).map_err(|_| ChatError::Protocol)?;
    let content = parsed
        .choices
        .into_iter()
        .next()
        .and_then(|c| c.message.content)
        .unwrap_or_default();
    Ok(without_reasoning(&content).to_owned())
}

/// Reasoning models (DeepSeek-R1, Qwen3...) served by Ollama or llama.cpp may think aloud in
/// `<think>...</think>` before answering, braces and all; only what follows is the answer.
fn without_reasoning(content: &str) -> &str {
    content
        .rfind("</think>")
        .map_or(content, |end| &content[end + "</think>".len()..])
}

/// Whether an error answer is about the reply's shape: it names `response_format`,
/// `json_schema`, a `schema` or a `format` (so the endpoint cannot take this rung); when
/// `strict` (a 500), only a request-validation error that names `response_format` itself.
async fn refuses_response_format(response: Response, timeout: Duration, strict: bool) -> bool {
    read_bounded(response, timeout).await.is_ok_and(|bytes| {
        let body = String::from_utf8_lossy(&bytes);
        if strict {
            let body = body.to_ascii_lowercase();
            body.contains("validation error") && body.contains("response_format")
        } else {
            names_response_format(&body)
        }
    })
}

fn names_response_format(body: &str) -> bool {
    let body = body.to_ascii_lowercase();
    // "format" covers `response_format`, "schema" covers `json_schema`.
    ["format", "schema"].iter().any(|word| body.contains(word))
}

/// How long a 429 asks to wait: OpenAI's `retry-after-ms`, else `Retry-After` in seconds or as an
/// HTTP date.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let header = |name| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return seconds(ms / 1_000.0);
    }
    let value = header(RETRY_AFTER.as_str())?;
    if let Ok(secs) = value.parse::<f64>() {
        return seconds(secs);
    }
    let at =
        time::OffsetDateTime::parse(value, &time::format_description::well_known::Rfc2822).ok()?;
    let wait = at - time::OffsetDateTime::now_utc();
    Some(Duration::try_from(wait).unwrap_or(Duration::ZERO))
}

fn seconds(secs: f64) -> Option<Duration> {
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(86_400.0)))
}

#[async_trait]
impl Extractor for OpenAiClient {
    async fn extract(
        &self,
        input: &ExtractionInput,
        feedback: Option<String>,
    ) -> Result<String, ModelError> {
        let reply = self
            .complete(
                body::extraction_messages(input, feedback.as_deref()),
                &schema::extraction(input),
            )
            .await?;
        // The model names its sources by sentence number; the quotes are the person's own.
        Ok(references::resolve(&reply, &references::number(input)))
    }

    /// The offline engine's mirror: where the model's text does not rest on the person's
    /// words, their own sentences said back are stored instead (docs/api.md, "Provenance").
    fn mirror(&self, input: &ExtractionInput) -> Option<ExtractionDraft> {
        crate::offline::OfflineEngine.mirror(input)
    }

    /// The offline engine's clear reading of the drives sentences the model cited.
    fn read_type(&self, drives: &str) -> Option<EnneagramType> {
        crate::offline::OfflineEngine.read_type(drives)
    }
}

#[async_trait]
impl Coach for OpenAiClient {
    async fn reply(&self, request: &CoachRequest) -> Result<String, ModelError> {
        Ok(self
            .complete(body::coach_messages(request), &schema::coach())
            .await?)
    }

    /// The offline coach's reply: its revision stands in for one the model did not ground.
    fn mirror_reply(&self, request: &CoachRequest) -> Option<CoachReplyDraft> {
        crate::offline::OfflineEngine.mirror_reply(request)
    }

    fn engine(&self) -> ReplyEngine {
        ReplyEngine::Model
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn retry_after_is_read_in_seconds_milliseconds_and_dates() {
        assert_eq!(
            retry_after(&headers(&[("retry-after", "2")])),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after", "1"), ("retry-after-ms", "250")])),
            Some(Duration::from_millis(250))
        );
        assert_eq!(retry_after(&headers(&[("retry-after", "soon")])), None);
        assert_eq!(retry_after(&headers(&[("retry-after", "-1")])), None);
        assert_eq!(retry_after(&HeaderMap::new()), None);
        let past = retry_after(&headers(&[(
            "retry-after",
            "Wed, 21 Oct 2015 07:28:00 GMT",
        )]));
        assert_eq!(past, Some(Duration::ZERO));
    }

    #[test]
    fn reasoning_before_the_answer_is_left_out() {
        assert_eq!(
            without_reasoning("<think>{x}</think>\n{\"a\":1}"),
            "\n{\"a\":1}"
        );
        assert_eq!(without_reasoning("{\"a\":1}"), "{\"a\":1}");
    }

    #[test]
    fn only_an_error_about_the_reply_s_shape_is_a_refusal_of_response_format() {
        for refusal in [
            // llama-cpp-python (FastAPI): json_schema is not among its types.
            r#"{"detail":[{"type":"literal_error","loc":["body","response_format","type"],"msg":"Input should be 'text' or 'json_object'"}]}"#,
            // LM Studio: json_object is not among its types.
            r#"{"error":"'response_format.type' must be 'json_schema' or 'text'"}"#,
            // OpenAI: a keyword outside the strict subset.
            r#"{"error":{"message":"Invalid schema for response_format 'x': In context=('properties', 'quote'), 'maxLength' is not permitted.","type":"invalid_request_error","param":"response_format"}}"#,
            "unsupported JSON Schema",
            "Unknown FORMAT",
        ] {
            assert!(names_response_format(refusal), "{refusal}");
        }
        for other in [
            "context too long",
            r#"{"error":{"message":"This model's maximum context length is 8192 tokens.","param":"messages"}}"#,
            "",
        ] {
            assert!(!names_response_format(other), "{other}");
        }
    }

    #[test]
    fn errors_map_to_the_port_by_meaning() {
        assert!(matches!(
            ModelError::from(ChatError::Timeout(Duration::from_secs(1))),
            ModelError::Timeout
        ));
        assert!(matches!(
            ModelError::from(ChatError::RateLimited),
            ModelError::RateLimited
        ));
        let ModelError::Unavailable(why) =
            ModelError::from(ChatError::Status(StatusCode::UNAUTHORIZED))
        else {
            panic!("unavailable");
        };
        assert!(why.contains("LLM_API_KEY"), "{why}");
        assert!(matches!(
            ModelError::from(ChatError::Status(StatusCode::BAD_GATEWAY)),
            ModelError::Unavailable(_)
        ));
    }
}
