//! What answers when no route matched: 405 with `Allow` when the OpenAPI document declares the
//! path with other methods, else 404; both in the contract's shape, except that a browser asking
//! for a page (`Accept: text/html`) gets the site's "page not found" page with its 404.

use actix_web::http::{Method, header};
use actix_web::{HttpRequest, HttpResponse, web};

use super::method_table::MethodTable;
use crate::error::ApiError;
use site::Pages;

/// The page a browser gets for a path that is not there (`web/pages/not-found.html`).
pub const NOT_FOUND_PAGE: &str = "not-found.html";

/// The default service of the app and of any resource that declares only some methods. The
/// documented paths are app data (built once from the document at start-up), so the routes
/// need not import the document, which is built from them.
pub async fn not_found(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    let refusal = req
        .app_data::<web::Data<MethodTable>>()
        .map_or(ApiError::NotFound, |paths| {
            paths.refusal(req.method(), req.path())
        });
    if matches!(refusal, ApiError::NotFound)
        && wants_a_page(&req)
        && let Some(page) = req
            .app_data::<web::Data<Pages>>()
            .and_then(|pages| pages.named(NOT_FOUND_PAGE))
    {
        return Ok(HttpResponse::NotFound()
            .content_type(mime::TEXT_HTML_UTF_8)
            .body(page.html().clone()));
    }
    Err(refusal)
}

/// A browser navigating (a `GET` or `HEAD` whose `Accept` names HTML); API clients ask for JSON
/// or anything (`*/*`) and keep the JSON error.
fn wants_a_page(req: &HttpRequest) -> bool {
    (req.method() == Method::GET || req.method() == Method::HEAD)
        && req
            .headers()
            .get_all(header::ACCEPT)
            .filter_map(|v| v.to_str().ok())
            .any(|accept| accept.contains("text/html"))
}
