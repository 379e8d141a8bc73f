//! `X-Request-Id`: echoed from the request when it is a sane token, else a fresh UUID; stored in
//! the request's extensions for logs and the activity log, and set on every response.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage};

pub const HEADER: HeaderName = HeaderName::from_static("x-request-id");

/// The id of the request being served.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

fn acceptable(value: &str) -> bool {
    (1..=128).contains(&value.len())
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'))
}

pub async fn request_id(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let id = req
        .headers()
        .get(&HEADER)
        .and_then(|v| v.to_str().ok())
        .filter(|v| acceptable(v))
        .map_or_else(|| uuid::Uuid::now_v7().to_string(), str::to_owned);
    req.extensions_mut().insert(RequestId(id.clone()));
    let mut response = next.call(req).await?;
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(HEADER, value);
    }
    Ok(response)
}
