//! `/openapi.json` (the document) and `/docs` (Swagger UI, its files embedded in the binary from
//! the registry crate, pointed at `/openapi.json`): nothing is fetched from elsewhere.

use std::sync::{Arc, OnceLock};

use actix_web::http::header;
use actix_web::middleware::{DefaultHeaders, from_fn};
use actix_web::{HttpResponse, web};
use utoipa_swagger_ui::Config;

use crate::error::ApiError;
use crate::routes::web::anonymous;

/// The pages' policy, loosened only as far as Swagger UI needs: it sets inline styles and draws
/// its icons as `data:` images. Scripts stay this origin's own files, nothing is framed.
pub const DOCS_CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; \
     connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; \
     object-src 'none'";

fn viewer_headers() -> DefaultHeaders {
    DefaultHeaders::new()
        .add((
            header::CONTENT_SECURITY_POLICY,
            DOCS_CONTENT_SECURITY_POLICY,
        ))
        .add((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .add((header::REFERRER_POLICY, "same-origin"))
        .add((header::X_FRAME_OPTIONS, "DENY"))
}

/// The document's path.
pub const DOCUMENT_PATH: &str = "/openapi.json";

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route(DOCUMENT_PATH, web::get().to(document))
        .service(
            web::resource("/docs")
                .wrap(viewer_headers())
                .wrap(from_fn(anonymous))
                .route(web::get().to(page)),
        )
        .service(
            web::resource("/docs/{file:.*}")
                .wrap(viewer_headers())
                .wrap(from_fn(anonymous))
                .route(web::get().to(viewer_file)),
        );
}

/// The document, serialised once.
async fn document() -> HttpResponse {
    static JSON: OnceLock<String> = OnceLock::new();
    let json = JSON.get_or_init(|| super::document().to_json().unwrap_or_default());
    HttpResponse::Ok()
        .content_type(mime::APPLICATION_JSON)
        .body(json.as_str())
}

/// `/docs` answers the page itself, as `/docs/` does. Its files are named relative to the page
/// (`./swagger-ui.css`), which from `/docs` would point at the root: here they are made absolute.
async fn page() -> Result<HttpResponse, ApiError> {
    let index = viewer_file(web::Path::from(String::new())).await?;
    let html = actix_web::body::to_bytes(index.into_body())
        .await
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("swagger ui index: {e}")))?;
    Ok(HttpResponse::Ok()
        .content_type(mime::TEXT_HTML_UTF_8)
        .body(absolute_assets(&String::from_utf8_lossy(&html))))
}

/// The index page with each `./file` (and the bare `index.css`) made `/docs/file`.
fn absolute_assets(html: &str) -> String {
    html.replace("=\"./", "=\"/docs/")
        .replace("href=\"index.css\"", "href=\"/docs/index.css\"")
}

async fn viewer_file(file: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let config = Arc::new(Config::from(DOCUMENT_PATH));
    let file = utoipa_swagger_ui::serve(&file, config)
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("swagger ui: {e}")))?
        .ok_or(ApiError::NotFound)?;
    let mut response = HttpResponse::Ok();
    response.content_type(file.content_type);
    if file.gzpipped {
        response.insert_header((header::CONTENT_ENCODING, "gzip"));
    }
    Ok(response.body(file.bytes.into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[actix_web::test]
    async fn the_page_at_docs_names_every_file_by_its_absolute_path() {
        let response = page().await.unwrap();
        let html = actix_web::body::to_bytes(response.into_body())
            .await
            .unwrap();
        let html = String::from_utf8(html.to_vec()).unwrap();
        let references: Vec<&str> = html
            .split(['"', '\''])
            .filter(|s| [".js", ".css", ".png"].iter().any(|ext| s.ends_with(ext)))
            .collect();
        assert!(references.len() >= 6, "{references:?}");
        for reference in references {
            assert!(reference.starts_with("/docs/"), "{reference}");
        }
    }
}
