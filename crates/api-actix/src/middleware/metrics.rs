//! The request instruments: every answer counted by method, route pattern and status, and its
//! latency observed. The route is the pattern a request matched (`/api/me/sessions/{id}`), never
//! its path, and the method one of the standard ones, so a scanner cannot mint new series.

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{Error, web};

use service_metrics::Metrics;

use crate::middleware::route_pattern;

pub async fn record(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let Some(metrics) = req.app_data::<web::Data<Metrics>>().cloned() else {
        return next.call(req).await;
    };
    let started = Instant::now();
    let method = method_label(req.method());
    // Resolved from the route table, so it is known even when an inner layer refuses the request.
    let pattern = route_pattern::of(req.request());
    let result = next.call(req).await;
    let status = match &result {
        Ok(response) => response.status(),
        Err(e) => e.as_response_error().status_code(),
    };
    let route = route_pattern::label(pattern, status);
    metrics.observe_request(method, &route, status.as_u16(), started.elapsed());
    result
}

/// The method as a label: the standard ones by name, any other as `other`.
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}
