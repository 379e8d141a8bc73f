//! The route pattern a request matched (`/api/me/sessions/{id}`), looked up once per request
//! and shared by the layers that label by it (the metrics and the activity log): the lookup
//! walks the route table, matching each dynamic route's pattern, so doing it twice showed.

use actix_web::http::StatusCode;
use actix_web::{HttpMessage, HttpRequest};

/// The route label of a request no route matched: one value for every unknown path.
pub const UNMATCHED: &str = "unmatched";
/// The route label of a file of the pages (`web/`) served as it is.
pub const STATIC: &str = "static";

/// The looked-up pattern, kept in the request's extensions.
#[derive(Debug, Clone)]
struct RoutePattern(Option<String>);

/// [`HttpRequest::match_pattern`], found at the first call for a request and kept for the next.
#[must_use]
pub fn of(req: &HttpRequest) -> Option<String> {
    if let Some(RoutePattern(pattern)) = req.extensions().get::<RoutePattern>() {
        return pattern.clone();
    }
    let pattern = req.match_pattern();
    req.extensions_mut().insert(RoutePattern(pattern.clone()));
    pattern
}

/// The name a request is counted and logged under: the pattern it matched, else `static` or
/// `unmatched`. The pages' file service is mounted at the root, so it "matches" (with an empty
/// pattern) every path no route does: a file it served is `static`, anything refused there is
/// `unmatched`, and so is a path under an API prefix that no route of its scope takes.
#[must_use]
pub fn label(pattern: Option<String>, status: StatusCode) -> String {
    match pattern.filter(|p| !p.is_empty()) {
        Some(pattern) => pattern,
        None if matches!(
            status,
            StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED
        ) =>
        {
            UNMATCHED.to_owned()
        }
        None => STATIC.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::{TestRequest, call_service, init_service};
    use actix_web::{App, HttpResponse, web};

    #[test]
    fn requests_no_route_took_are_static_files_or_unmatched() {
        let some = |p: &str| Some(p.to_owned());
        assert_eq!(label(some("/api/me"), StatusCode::NOT_FOUND), "/api/me");
        assert_eq!(label(some(""), StatusCode::OK), "static");
        assert_eq!(label(None, StatusCode::OK), "static");
        assert_eq!(label(some(""), StatusCode::NOT_FOUND), "unmatched");
        assert_eq!(label(None, StatusCode::METHOD_NOT_ALLOWED), "unmatched");
    }

    #[actix_web::test]
    async fn the_matched_pattern_is_looked_up_once_and_then_kept() {
        let app = init_service(
            App::new()
                .route(
                    "/items/{id}",
                    web::get().to(|req: HttpRequest| async move {
                        let first = of(&req);
                        // A later call answers from the request, not from the route table.
                        req.extensions_mut()
                            .insert(RoutePattern(Some("kept".to_owned())));
                        HttpResponse::Ok().body(format!("{first:?} {:?}", of(&req)))
                    }),
                )
                .default_service(web::to(|req: HttpRequest| async move {
                    HttpResponse::NotFound().body(format!("{:?}", of(&req)))
                })),
        )
        .await;
        let found = call_service(&app, TestRequest::get().uri("/items/7").to_request()).await;
        let body = actix_web::body::to_bytes(found.into_body()).await.unwrap();
        assert_eq!(body, r#"Some("/items/{id}") Some("kept")"#);
        let missing = call_service(&app, TestRequest::get().uri("/nothing").to_request()).await;
        let body = actix_web::body::to_bytes(missing.into_body())
            .await
            .unwrap();
        assert_eq!(body, "None");
    }
}
