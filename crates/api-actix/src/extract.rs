//! Request extraction in the contract's shape: [`ApiJson`] reads a body as JSON (415 for another
//! content type, 413 over 64 KiB, 400 when it is not JSON, 422 naming the field when the JSON has
//! the wrong shape; the reading itself is `api_contract::json`'s), and the query and path
//! configurations replace actix's plain-text errors.

use std::future::Future;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::error::{PathError, PayloadError, QueryPayloadError};
use actix_web::http::header;
use actix_web::{FromRequest, HttpMessage, HttpRequest, web};
use api_contract::json::{parse, without_position};
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// Largest accepted body (docs/api.md: 64 KiB).
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
            Ok(Self(parse(&bytes)?))
        })
    }
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
            QueryPayloadError::Deserialize(e) => without_position(&e.to_string()),
            _ => "malformed".to_owned(),
        };
        ApiError::InvalidJson(format!("The query string is not valid: {message}.")).into()
    })
}

pub fn path_config() -> web::PathConfig {
    // An id that cannot exist names no resource of the caller's.
    web::PathConfig::default().error_handler(|_err: PathError, _req| ApiError::NotFound.into())
}
