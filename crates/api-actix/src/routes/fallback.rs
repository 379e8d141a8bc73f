//! What answers when no route matched: 405 with `Allow` when the OpenAPI document declares the
//! path with other methods, else 404; both in the contract's shape.

use actix_web::{HttpRequest, HttpResponse, web};

use super::documented_paths::DocumentedPaths;
use crate::error::ApiError;

/// The default service of the app and of any resource that declares only some methods. The
/// documented paths are app data (built once from the document at start-up), so the routes
/// need not import the document, which is built from them.
pub async fn not_found(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(req
        .app_data::<web::Data<DocumentedPaths>>()
        .map_or(ApiError::NotFound, |paths| {
            paths.refusal(req.method(), req.path())
        }))
}
