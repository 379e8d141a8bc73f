//! Request extraction in the contract's shape: [`ApiJson`] reads a body as JSON (415 for another
//! content type, 413 over 64 KiB, 400 when it is not JSON, 422 naming the field when the JSON has
//! the wrong shape), and the query and path configurations replace actix's plain-text errors.

use std::future::Future;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::error::{PathError, PayloadError, QueryPayloadError};
use actix_web::http::header;
use actix_web::{FromRequest, HttpMessage, HttpRequest, web};
use serde::de::DeserializeOwned;

use crate::error::{ApiError, FieldError};

/// Largest accepted body (API.md: 64 KiB).
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// A JSON body of type `T` of at most `LIMIT` bytes, checked in the contract's order: media
/// type, size, syntax, shape. A route with a larger limit also sets a matching
/// [`web::PayloadConfig`] on its resource (see [`payload_config_of`]).
#[derive(Debug)]
pub struct ApiJson<T, const LIMIT: usize = MAX_BODY_BYTES>(pub T);

impl<T, const LIMIT: usize> ApiJson<T, LIMIT> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T, const LIMIT: usize> std::ops::Deref for ApiJson<T, LIMIT> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: DeserializeOwned + 'static, const LIMIT: usize> FromRequest for ApiJson<T, LIMIT> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let is_json = matches!(req.mime_type(), Ok(Some(m)) if m.subtype() == mime::JSON || m.suffix() == Some(mime::JSON));
        let declared_too_large = req
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok())
            .is_some_and(|n| n > LIMIT);
        let body = web::Bytes::from_request(req, payload);
        Box::pin(async move {
            if !is_json {
                return Err(ApiError::UnsupportedMediaType);
            }
            if declared_too_large {
                return Err(ApiError::PayloadTooLarge);
            }
            let bytes = body.await.map_err(|e| match e.as_error::<PayloadError>() {
                Some(PayloadError::Overflow) => ApiError::PayloadTooLarge,
                _ => ApiError::InvalidJson("The body could not be read.".into()),
            })?;
            parse(&bytes).map(Self)
        })
    }
}

/// Syntax first (400), then shape (422, with the path of the offending field). Every body of the
/// contract is a JSON object: serde would also read a struct from an array, by field order.
///
/// An object is read in one pass, straight into `T` (a batch of 1,000 entries need not be built
/// as a tree of values first), without tracking where the reader is; only when that fails is it
/// read again to name the field, and the whole body checked for syntax, so a body that is not
/// JSON at all still answers 400 whatever field came before the break.
fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let starts_as_object = bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'{');
    if !starts_as_object {
        let value: serde_json::Value = serde_json::from_slice(bytes).map_err(invalid_json)?;
        if !value.is_object() {
            return Err(ApiError::invalid("body", "must be a JSON object"));
        }
        return from_value(value, "");
    }
    if let Ok(body) = serde_json::from_slice(bytes) {
        return Ok(body);
    }
    let mut reader = serde_json::Deserializer::from_slice(bytes);
    match serde_path_to_error::deserialize::<_, T>(&mut reader) {
        Ok(body) => {
            reader.end().map_err(invalid_json)?;
            Ok(body)
        }
        // serde_json calls some shape errors syntax (an enum object with two keys is
        // "expected value"), so the body is checked on its own before the error is sorted.
        Err(e) => {
            serde_json::from_slice::<serde::de::IgnoredAny>(bytes).map_err(invalid_json)?;
            Err(shape_error(&e, ""))
        }
    }
}

fn invalid_json(e: serde_json::Error) -> ApiError {
    ApiError::InvalidJson(format!(
        "The body is not valid JSON: {}.",
        strip_position(&e.to_string())
    ))
}

/// A shape error as a 422 naming the field by its path, after `prefix`.
fn shape_error<E: std::fmt::Display>(e: &serde_path_to_error::Error<E>, prefix: &str) -> ApiError {
    let path = e.path().to_string();
    let message = e.inner().to_string();
    let field = match unknown_field(&message) {
        Some(name) if path == "." => name,
        Some(name) if !path.ends_with(&name) => format!("{path}.{name}"),
        _ if path == "." && prefix.is_empty() => "body".to_owned(),
        _ if path == "." => prefix.trim_end_matches('.').to_owned(),
        _ => path,
    };
    ApiError::Validation(vec![FieldError::new(
        format!("{prefix}{field}"),
        strip_position(&message),
    )])
}

/// Reads JSON already parsed into `T`; a shape error names the offending field by its path,
/// after `prefix` (e.g. `items[3].` for one item of a batch).
///
/// # Errors
/// 422 naming the field.
pub fn from_value<T: DeserializeOwned>(
    value: serde_json::Value,
    prefix: &str,
) -> Result<T, ApiError> {
    serde_path_to_error::deserialize(value).map_err(|e| shape_error(&e, prefix))
}

/// serde reports unknown and missing fields at the parent's path; its message names them:
/// "unknown field `x`, expected ...", "missing field `x`".
fn unknown_field(message: &str) -> Option<String> {
    let rest = message
        .strip_prefix("unknown field `")
        .or_else(|| message.strip_prefix("missing field `"))?;
    rest.split('`').next().map(str::to_owned)
}

/// Drops serde's " at line 1 column 7" so messages read as sentences.
fn strip_position(message: &str) -> String {
    message
        .split(" at line ")
        .next()
        .unwrap_or(message)
        .to_owned()
}

/// The body limit for [`ApiJson`] (and any other body extractor).
pub fn payload_config() -> web::PayloadConfig {
    payload_config_of(MAX_BODY_BYTES)
}

/// A body limit of `bytes`, for the resource of a route that reads `ApiJson<T, bytes>`.
pub fn payload_config_of(bytes: usize) -> web::PayloadConfig {
    web::PayloadConfig::new(bytes)
}

pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(|err, _req| {
        let message = match &err {
            QueryPayloadError::Deserialize(e) => strip_position(&e.to_string()),
            _ => "malformed".to_owned(),
        };
        ApiError::InvalidJson(format!("The query string is not valid: {message}.")).into()
    })
}

pub fn path_config() -> web::PathConfig {
    // An id that cannot exist names no resource of the caller's.
    web::PathConfig::default().error_handler(|_err: PathError, _req| ApiError::NotFound.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Body {
        email: String,
        items: Option<Vec<Item>>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Item {
        minutes: u16,
    }

    fn field_of(body: &str) -> (String, String) {
        match parse::<Body>(body.as_bytes()) {
            Err(ApiError::Validation(fields)) => {
                (fields[0].field.clone(), fields[0].message.clone())
            }
            other => panic!("expected 422, got {other:?}"),
        }
    }

    #[test]
    fn the_offending_field_is_named_by_its_path() {
        assert_eq!(field_of(r#"{"email": 42}"#).0, "email");
        assert_eq!(
            field_of(r#"{"email": "a", "items": [{"minutes": 5}, {"minutes": -1}]}"#).0,
            "items[1].minutes"
        );
        assert_eq!(field_of(r#"{"email": "a", "triad": "gut"}"#).0, "triad");
        assert_eq!(field_of(r#"{}"#).0, "email");
        assert_eq!(
            field_of(r#"{"email": "a", "items": [{}]}"#).0,
            "items[0].minutes"
        );
        assert_eq!(
            field_of(r#"{"email": "a", "items": [{"minutes": 1, "x": 2}]}"#).0,
            "items[0].x"
        );
        assert_eq!(field_of(r#"[]"#).0, "body");
        assert!(!field_of(r#"{"email": 42}"#).1.contains("line"));
    }

    #[test]
    fn broken_json_is_a_syntax_error_whatever_came_first() {
        for body in ["[1, 2", r#"{"email": 42"#, "", "nope", r#"{"email": "a",}"#] {
            assert!(
                matches!(
                    parse::<Body>(body.as_bytes()),
                    Err(ApiError::InvalidJson(_))
                ),
                "{body:?}"
            );
        }
    }

    #[test]
    fn deeply_nested_json_is_refused_as_invalid() {
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(matches!(
            parse::<Body>(deep.as_bytes()),
            Err(ApiError::InvalidJson(_))
        ));
    }
}
