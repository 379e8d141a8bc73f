//! Typed answers: a handler's return type names its body and status, so the compiler checks the
//! shape that its `#[utoipa::path]` annotation states. A 200 with a JSON body is actix's own
//! `web::Json<T>`; the other statuses are here. Answers that set cookies or redirect (sign-in)
//! and bodies that are not JSON (the metrics text, the export download) stay `HttpResponse`.

use actix_web::body::BoxBody;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, Responder};
use serde::Serialize;

/// 201 Created with the created resource as JSON.
#[derive(Debug)]
pub struct Created<T>(pub T);

impl<T: Serialize> Responder for Created<T> {
    type Body = BoxBody;

    fn respond_to(self, _: &HttpRequest) -> HttpResponse {
        HttpResponse::Created().json(self.0)
    }
}

/// 201 when the request created the resource, 200 when it replaced or found it; JSON either way.
#[derive(Debug)]
pub struct CreatedOrOk<T> {
    pub created: bool,
    pub body: T,
}

impl<T: Serialize> Responder for CreatedOrOk<T> {
    type Body = BoxBody;

    fn respond_to(self, _: &HttpRequest) -> HttpResponse {
        if self.created {
            HttpResponse::Created().json(self.body)
        } else {
            HttpResponse::Ok().json(self.body)
        }
    }
}

/// 200 with the body as JSON and its version as a strong `ETag` (`"7"`), which `If-Match` names
/// back on the next write.
#[derive(Debug)]
pub struct Versioned<T> {
    pub version: i64,
    pub body: T,
}

impl<T: Serialize> Responder for Versioned<T> {
    type Body = BoxBody;

    fn respond_to(self, _: &HttpRequest) -> HttpResponse {
        HttpResponse::Ok()
            .insert_header((header::ETAG, format!("\"{}\"", self.version)))
            .json(self.body)
    }
}

/// 204 No Content: done, nothing to show.
#[derive(Debug, Clone, Copy)]
pub struct NoContent;

impl Responder for NoContent {
    type Body = BoxBody;

    fn respond_to(self, _: &HttpRequest) -> HttpResponse {
        HttpResponse::NoContent().finish()
    }
}

/// 202 Accepted: queued, to be done after the answer.
#[derive(Debug, Clone, Copy)]
pub struct Accepted;

impl Responder for Accepted {
    type Body = BoxBody;

    fn respond_to(self, _: &HttpRequest) -> HttpResponse {
        HttpResponse::Accepted().finish()
    }
}
