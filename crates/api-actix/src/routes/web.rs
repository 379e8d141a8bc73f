//! The browser front end: the files of `web/` (plain HTML, CSS and ES modules) served as they
//! are, `/` the home page and `/login` the sign-in page (where sign-in failures land with
//! `?error=<code>`). Mounted after every API route, so API paths win; a path that is neither an
//! API route nor a file is the contract's JSON 404. No authentication is needed for the files:
//! the pages ask the API for everything personal, and a file fetched with the session cookie is
//! not put in that person's activity log (it stays an anonymous entry). Every answer from here
//! carries a strict Content-Security-Policy (no inline script or style, nothing from elsewhere).

use std::path::PathBuf;

use actix_files::{Files, NamedFile};
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::middleware::{DefaultHeaders, Next, from_fn};
use actix_web::{HttpMessage, HttpRequest, HttpResponse, guard, web};

use super::fallback::not_found;
use crate::auth::Caller;
use crate::auth::caller::Identified;
use crate::error::ApiError;

/// The policy of every page: only this origin's own files, no inline code, no framing.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self'; font-src 'self'; connect-src 'self'; \
     form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

/// Where the pages are: `WEB_DIR`, else `web/` under the working directory, else the
/// repository's `web/` (so tests and `cargo run` find it from any crate directory).
#[must_use]
pub fn web_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("WEB_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let local = PathBuf::from("web");
    if local.join("index.html").is_file() {
        return local;
    }
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../web"))
}

fn security_headers() -> DefaultHeaders {
    DefaultHeaders::new()
        .add((header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY))
        .add((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .add((header::REFERRER_POLICY, "same-origin"))
        .add((header::X_FRAME_OPTIONS, "DENY"))
}

/// Mounts `/login` and the files of `web/` at `/`. Call after every API route.
pub fn configure(cfg: &mut web::ServiceConfig) {
    let dir = web_dir();
    let login = dir.join("login.html");
    cfg.service(
        web::resource("/login")
            .wrap(security_headers())
            .wrap(from_fn(anonymous))
            .route(web::get().to(move |req: HttpRequest| {
                let login = login.clone();
                async move { page(&req, login) }
            })),
    )
    .service(
        // Only reads: any other method on a path no API route took is the app's JSON 404, never
        // actix-files' plain-text 405.
        web::scope("")
            .guard(guard::Any(guard::Get()).or(guard::Head()))
            .wrap(security_headers())
            .wrap(from_fn(anonymous))
            .service(
                Files::new("/", dir)
                    .index_file("index.html")
                    .prefer_utf8(true)
                    .default_handler(web::to(not_found)),
            )
            .default_service(web::to(not_found)),
    );
}

/// Forgets who sent the request, so fetching a page or a script is not the person's activity.
pub(crate) async fn anonymous(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    {
        let mut extensions = req.extensions_mut();
        extensions.remove::<Identified>();
        extensions.remove::<Caller>();
    }
    next.call(req).await
}

fn page(req: &HttpRequest, path: PathBuf) -> Result<HttpResponse, ApiError> {
    let file = NamedFile::open(path).map_err(|_| ApiError::NotFound)?;
    Ok(file.into_response(req))
}
