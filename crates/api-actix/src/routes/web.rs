//! The browser front end: the pages (assembled at start-up from `web/layout.html` and
//! `web/pages/` by the `site` crate), `/` the home page, `/login` the sign-in page (where sign-in
//! failures land with `?error=<code>`) and `/docs` the API reference, and the other files of `web/` (CSS, ES modules, icons)
//! served as they are. Mounted after every API route, so API paths win; a path that is neither an
//! API route nor a file is the contract's JSON 404. No authentication is needed for the files:
//! the pages ask the API for everything personal, and a file fetched with the session cookie is
//! not put in that person's activity log (it stays an anonymous entry). Every answer from here
//! carries a strict Content-Security-Policy (no inline script or style, nothing from elsewhere).

use std::path::{Path, PathBuf};

use actix_files::{Files, PathBufWrap};
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{EntityTag, HttpDate};
use actix_web::http::{StatusCode, header};
use actix_web::middleware::{DefaultHeaders, Next, from_fn};
use actix_web::{HttpMessage, HttpRequest, HttpResponse, guard, web};

use super::fallback::not_found;
use crate::auth::Caller;
use crate::auth::caller::Identified;
use crate::error::ApiError;
use site::{DOCS, INDEX, LAYOUT, LOGIN, PAGES_DIR, Page, Pages, web_dir};

/// The policy of every page: only this origin's own files, no inline code, no framing.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self'; font-src 'self'; connect-src 'self'; \
     form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

fn security_headers() -> DefaultHeaders {
    DefaultHeaders::new()
        .add((header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY))
        .add((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .add((header::REFERRER_POLICY, "same-origin"))
        .add((header::X_FRAME_OPTIONS, "DENY"))
}

/// Mounts `/login` and `/docs`, then the pages and the other files of `web/` at `/`. Call after
/// every API route. The pages are answered where a file of that name would be, so, as every
/// file, they share the `static` label of the metrics and the activity log (`/login` and
/// `/docs` have their own routes).
pub fn configure(cfg: &mut web::ServiceConfig, pages: &web::Data<Pages>) {
    serve(cfg, pages, web_dir());
}

fn serve(cfg: &mut web::ServiceConfig, pages: &web::Data<Pages>, dir: PathBuf) {
    let served = pages.clone();
    for (path, name) in [("/login", LOGIN), ("/docs", DOCS)] {
        cfg.service(
            web::resource(path)
                .app_data(pages.clone())
                .wrap(security_headers())
                .wrap(from_fn(anonymous))
                .route(web::get().to(move |req, pages| named(name, req, pages))),
        );
    }
    cfg.service(
        // Only reads: any other method on a path no API route took is the app's JSON 404, never
        // actix-files' plain-text 405.
        web::scope("")
            .app_data(pages.clone())
            .guard(guard::Any(guard::Get()).or(guard::Head()))
            .wrap(from_fn(unservable))
            .wrap(security_headers())
            .wrap(from_fn(anonymous))
            .service(
                Files::new("/", dir)
                    // The pages (`/` too) are the assembled ones, even if an old file of that
                    // name is still in web/; the templates are never served raw.
                    .path_filter(move |path: &Path, _| {
                        served.at(path).is_none() && !is_template(path)
                    })
                    // The index is a page, so a directory has no index file: asking for one
                    // falls through to the JSON 404, not actix-files' plain-text one.
                    .index_file(INDEX)
                    .prefer_utf8(true)
                    .default_handler(web::to(page_or_not_found)),
            )
            .default_service(web::to(not_found)),
    );
}

fn is_template(path: &Path) -> bool {
    path == Path::new(LAYOUT) || path.starts_with(PAGES_DIR)
}

/// Forgets who sent the request, so fetching a page or a script is not the person's activity.
async fn anonymous(
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

/// A path no file of `web/` can have (an encoded `/`, a segment that ends in `<`, `>` or `:`,
/// a hidden name, text that is not UTF-8) is the JSON 404 of any other missing file (or the
/// not-found page for a browser), before actix-files answers it with a plain-text 400.
async fn unservable(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    if PathBufWrap::parse_req_path(req.request(), false).is_ok() {
        return Ok(next.call(req).await?.map_into_left_body());
    }
    let response = match not_found(req.request().clone()).await {
        Ok(page) => page,
        Err(refusal) => HttpResponse::from_error(refusal),
    };
    Ok(req.into_response(response).map_into_right_body())
}

/// The assembled page at this path (read as the file server reads it); anything else the JSON
/// 404 (or 405) of the fallback.
async fn page_or_not_found(
    req: HttpRequest,
    pages: web::Data<Pages>,
) -> Result<HttpResponse, ApiError> {
    let page = PathBufWrap::parse_req_path(&req, false)
        .ok()
        .and_then(|path| pages.at(path.as_ref()).cloned());
    match page {
        Some(page) => Ok(respond(&page, &req)),
        None => not_found(req).await,
    }
}

/// `/login` the sign-in page, `/docs` the API reference.
async fn named(
    name: &'static str,
    req: HttpRequest,
    pages: web::Data<Pages>,
) -> Result<HttpResponse, ApiError> {
    match pages.named(name) {
        Some(page) => Ok(respond(page, &req)),
        None => not_found(req).await,
    }
}

/// The page with the headers a file of it had (`ETag`, `Last-Modified`, `Content-Disposition`),
/// or 304 when the browser's copy is still the page (`If-None-Match`, else
/// `If-Modified-Since`, as actix-files decides). A `Range` is ignored: the whole page is sent.
fn respond(page: &Page, req: &HttpRequest) -> HttpResponse {
    let mut response = HttpResponse::Ok();
    response
        .content_type(mime::TEXT_HTML_UTF_8)
        .insert_header(header::ContentDisposition {
            disposition: header::DispositionType::Inline,
            parameters: vec![header::DispositionParam::Filename(page.name().to_owned())],
        })
        .insert_header(header::ETag(etag(page)));
    if let Some(modified) = page.last_modified() {
        response.insert_header(header::LastModified(HttpDate::from(modified)));
    }
    if is_fresh(page, req) {
        return response
            .status(StatusCode::NOT_MODIFIED)
            .body(actix_web::body::None::new());
    }
    response.body(page.html().clone())
}

/// The page's tag, strong: the same bytes wherever it is served.
fn etag(page: &Page) -> EntityTag {
    EntityTag::new_strong(page.etag().to_owned())
}

/// Whether the browser's cached copy is this page.
fn is_fresh(page: &Page, req: &HttpRequest) -> bool {
    match req.get_header::<header::IfNoneMatch>() {
        Some(header::IfNoneMatch::Any) => true,
        Some(header::IfNoneMatch::Items(tags)) => {
            let etag = etag(page);
            tags.iter().any(|tag| tag.weak_eq(&etag))
        }
        None => match (
            page.last_modified(),
            req.get_header::<header::IfModifiedSince>(),
        ) {
            (Some(modified), Some(header::IfModifiedSince(since))) => {
                modified <= std::time::SystemTime::from(since)
            }
            _ => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use actix_web::test::{TestRequest, call_service, init_service, read_body};
    use actix_web::{App, http::StatusCode};
    use utoipa::openapi::OpenApi;

    use super::*;

    /// A web directory with a layout, two pages, a stylesheet, and an old `index.html` and
    /// `login.html` from before the pages were assembled.
    fn site() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join(LAYOUT),
            "<!doctype html><title>{% block title %}{% endblock %}</title>\
             {% block content %}{% endblock %}",
        )
        .unwrap();
        std::fs::create_dir_all(root.join(PAGES_DIR)).unwrap();
        std::fs::create_dir_all(root.join("css")).unwrap();
        for (name, title) in [(INDEX, "Home"), (LOGIN, "Sign in")] {
            std::fs::write(
                root.join(PAGES_DIR).join(name),
                format!(
                    "{{% extends \"layout.html\" %}}{{% block title %}}{title}{{% endblock %}}\
                     {{% block content %}}<main></main>{{% endblock %}}"
                ),
            )
            .unwrap();
            std::fs::write(root.join(name), "old").unwrap();
        }
        std::fs::write(root.join("css/site.css"), "body {}").unwrap();
        dir
    }

    fn value(headers: &header::HeaderMap, name: header::HeaderName) -> &str {
        headers.get(name).unwrap().to_str().unwrap()
    }

    async fn get(dir: &Path, request: TestRequest) -> (StatusCode, header::HeaderMap, String) {
        let pages = web::Data::new(Pages::assemble(dir, &OpenApi::default()).unwrap());
        let dir = dir.to_path_buf();
        let app = init_service(App::new().configure(|cfg| serve(cfg, &pages, dir))).await;
        let response = call_service(&app, request.to_request()).await;
        let status = response.status();
        let headers = response.headers().clone();
        let body = String::from_utf8(read_body(response).await.to_vec()).unwrap();
        (status, headers, body)
    }

    #[actix_web::test]
    async fn the_assembled_page_is_served_even_where_an_old_file_of_its_name_is_left() {
        let dir = site();
        for path in ["/", "/index.html", "//", "/index.html/", "/%69ndex.html"] {
            let (status, headers, body) = get(dir.path(), TestRequest::get().uri(path)).await;
            assert_eq!(status, StatusCode::OK, "{path}");
            assert_eq!(
                body, "<!doctype html><title>Home</title><main></main>",
                "{path}"
            );
            assert_eq!(
                value(&headers, header::CONTENT_TYPE),
                "text/html; charset=utf-8"
            );
            assert_eq!(
                value(&headers, header::CONTENT_DISPOSITION),
                r#"inline; filename="index.html""#
            );
            assert!(headers.contains_key(header::LAST_MODIFIED), "{path}");
        }
        for path in ["/login", "/login.html"] {
            let (status, _, body) = get(dir.path(), TestRequest::get().uri(path)).await;
            assert_eq!(status, StatusCode::OK, "{path}");
            assert!(body.contains("<title>Sign in</title>"), "{path}");
        }
    }

    #[actix_web::test]
    async fn a_page_is_not_sent_again_while_the_browsers_copy_is_current() {
        let dir = site();
        let (_, headers, _) = get(dir.path(), TestRequest::get().uri("/login")).await;
        let etag = value(&headers, header::ETAG).to_owned();
        // A strong tag: the same bytes wherever the page is served.
        assert!(etag.starts_with('"') && etag.len() == 34, "{etag}");
        let modified = value(&headers, header::LAST_MODIFIED).to_owned();

        for (name, validator) in [
            ("if-none-match", etag.clone()),
            ("if-none-match", format!("W/{etag}")),
            ("if-none-match", "*".to_owned()),
            ("if-modified-since", modified.clone()),
        ] {
            let request = TestRequest::get()
                .uri("/login.html")
                .insert_header((name, validator.as_str()));
            let (status, headers, body) = get(dir.path(), request).await;
            assert_eq!(status, StatusCode::NOT_MODIFIED, "{name}: {validator}");
            assert_eq!(value(&headers, header::ETAG), etag);
            assert!(body.is_empty());
        }

        // Another tag wins over a date that would still be current.
        let request = TestRequest::get()
            .uri("/login")
            .insert_header(("if-none-match", r#""another""#))
            .insert_header(("if-modified-since", modified.as_str()));
        let (status, _, body) = get(dir.path(), request).await;
        assert_eq!(status, StatusCode::OK);
        assert!(body.contains("Sign in"));
        let earlier = "Thu, 01 Jan 1970 00:00:00 GMT";
        let request = TestRequest::get()
            .uri("/login")
            .insert_header(("if-modified-since", earlier));
        assert_eq!(get(dir.path(), request).await.0, StatusCode::OK);
    }

    #[actix_web::test]
    async fn templates_directories_and_missing_files_are_not_found() {
        let dir = site();
        for path in [
            "/layout.html",
            "/pages/index.html",
            "/pages/",
            "/css/",
            "/css",
            "/nothing.html",
        ] {
            let (status, headers, body) = get(dir.path(), TestRequest::get().uri(path)).await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
            assert_eq!(
                value(&headers, header::CONTENT_TYPE),
                "application/json",
                "{path}"
            );
            assert!(body.contains("not_found"), "{path}: {body}");
        }
        let (status, _, body) = get(dir.path(), TestRequest::get().uri("/css/site.css")).await;
        assert_eq!((status, body.as_str()), (StatusCode::OK, "body {}"));
    }
}
