//! `/openapi.json`: the document, serialised once. The page that shows it to people, `/docs`,
//! is one of the site's (`site::reference`, served by `routes::web`).

use std::sync::OnceLock;

use actix_web::{HttpResponse, web};

/// The document's path.
pub const DOCUMENT_PATH: &str = "/openapi.json";

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route(DOCUMENT_PATH, web::get().to(document));
}

/// The document, serialised once.
async fn document() -> HttpResponse {
    static JSON: OnceLock<String> = OnceLock::new();
    let json = JSON.get_or_init(|| super::document().to_json().unwrap_or_default());
    HttpResponse::Ok()
        .content_type(mime::APPLICATION_JSON)
        .body(json.as_str())
}
