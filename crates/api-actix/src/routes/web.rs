//! The browser front end: the pages (assembled at start-up from `web/layout.html` and
//! `web/pages/`, see `pages.rs`), `/` the home page and `/login` the sign-in page (where sign-in
//! failures land with `?error=<code>`), and the other files of `web/` (CSS, ES modules, icons)
//! served as they are. Mounted after every API route, so API paths win; a path that is neither an
//! API route nor a file is the contract's JSON 404. No authentication is needed for the files:
//! the pages ask the API for everything personal, and a file fetched with the session cookie is
//! not put in that person's activity log (it stays an anonymous entry). Every answer from here
//! carries a strict Content-Security-Policy (no inline script or style, nothing from elsewhere).

use std::path::{Path, PathBuf};

use actix_files::Files;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::middleware::{DefaultHeaders, Next, from_fn};
use actix_web::{HttpMessage, HttpRequest, HttpResponse, guard, web};

use super::fallback::not_found;
use crate::auth::Caller;
use crate::auth::caller::Identified;
use crate::error::ApiError;
use crate::pages::{LAYOUT, PAGES_DIR, Pages};

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
    if local.join(LAYOUT).is_file() {
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

/// Mounts `/login`, then the pages and the other files of `web/` at `/`. Call after every API
/// route. The pages are answered where a file of that name would be, so, as every file, they
/// share the `static` label of the metrics and the activity log (`/login` has its own route).
pub fn configure(cfg: &mut web::ServiceConfig, pages: &web::Data<Pages>) {
    cfg.service(
        web::resource("/login")
            .app_data(pages.clone())
            .wrap(security_headers())
            .wrap(from_fn(anonymous))
            .route(web::get().to(page_or_not_found)),
    )
    .service(
        // Only reads: any other method on a path no API route took is the app's JSON 404, never
        // actix-files' plain-text 405.
        web::scope("")
            .app_data(pages.clone())
            .guard(guard::Any(guard::Get()).or(guard::Head()))
            .wrap(security_headers())
            .wrap(from_fn(anonymous))
            .service(
                Files::new("/", web_dir())
                    // The root and the templates go to the pages: the layout and the pages'
                    // templates are never served raw.
                    .path_filter(|path: &Path, _| !is_root_or_template(path))
                    .prefer_utf8(true)
                    .default_handler(web::to(page_or_not_found)),
            )
            .default_service(web::to(not_found)),
    );
}

fn is_root_or_template(path: &Path) -> bool {
    path.as_os_str().is_empty() || path == Path::new(LAYOUT) || path.starts_with(PAGES_DIR)
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

/// The assembled page at this path; anything else the JSON 404 (or 405) of the fallback.
async fn page_or_not_found(
    req: HttpRequest,
    pages: web::Data<Pages>,
) -> Result<HttpResponse, ApiError> {
    let Some(html) = pages.get(req.path()) else {
        return not_found(req).await;
    };
    Ok(HttpResponse::Ok()
        .content_type(mime::TEXT_HTML_UTF_8)
        .body(html.clone()))
}
