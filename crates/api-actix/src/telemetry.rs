//! Logging: structured `tracing` output filtered by `RUST_LOG` (default `info`).

use tracing_subscriber::EnvFilter;

/// Installs the global subscriber once; later calls (tests) are ignored.
pub fn init() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).try_init();
}

/// The root span of every request, as tracing-actix-web's default but with the path only in
/// `http.target`: a query string may carry a person's words
/// (`/discovery/profile/me/reflect/preview?message=...`) or a sign-in code, and every log line
/// inside a request repeats its span's fields.
#[derive(Debug, Clone, Copy)]
pub struct PathOnlyRootSpan;

impl tracing_actix_web::RootSpanBuilder for PathOnlyRootSpan {
    fn on_request_start(request: &actix_web::dev::ServiceRequest) -> tracing::Span {
        use actix_web::HttpMessage as _;
        let route = crate::middleware::route_pattern::of(request.request())
            .unwrap_or_else(|| "default".to_owned());
        let request_id = request
            .extensions()
            .get::<crate::middleware::request_id::RequestId>()
            .map(|id| id.0.clone())
            .unwrap_or_default();
        let user_agent = request
            .headers()
            .get(actix_web::http::header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let trust_forwarded_for = request
            .app_data::<actix_web::web::Data<crate::state::AppState>>()
            .is_some_and(|s| s.settings.rate_limits.trust_forwarded_for);
        let client_ip = crate::middleware::client_ip::of(request.request(), trust_forwarded_for)
            .map(|ip| ip.to_string())
            .unwrap_or_default();
        tracing::info_span!(
            "HTTP request",
            http.method = %request.method(),
            http.route = %route,
            http.target = %request.path(),
            http.client_ip = %client_ip,
            http.user_agent = %user_agent,
            http.status_code = tracing::field::Empty,
            otel.name = %format!("{} {route}", request.method()),
            otel.kind = "server",
            otel.status_code = tracing::field::Empty,
            request_id = %request_id,
            exception.message = tracing::field::Empty,
            exception.details = tracing::field::Empty,
        )
    }

    fn on_request_end<B: actix_web::body::MessageBody>(
        span: tracing::Span,
        outcome: &Result<actix_web::dev::ServiceResponse<B>, actix_web::Error>,
    ) {
        tracing_actix_web::DefaultRootSpanBuilder::on_request_end(span, outcome);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    use actix_web::{App, HttpResponse, test, web};
    use tracing_actix_web::TracingLogger;

    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[actix_web::test]
    async fn a_query_string_never_reaches_a_log_line() {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_max_level(tracing::Level::INFO)
            .finish();
        let _guard = tracing::subscriber::set_default(subscriber);
        let app = test::init_service(
            App::new()
                .wrap(TracingLogger::<PathOnlyRootSpan>::new())
                .route(
                    "/preview",
                    web::get().to(|| async {
                        tracing::warn!("something inside the request");
                        HttpResponse::Ok().finish()
                    }),
                ),
        )
        .await;
        let req = test::TestRequest::get()
            .uri("/preview?message=my%20private%20words")
            .to_request();
        let response = test::call_service(&app, req).await;
        assert!(response.status().is_success());
        let logged = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        assert!(logged.contains("something inside the request"), "{logged}");
        assert!(logged.contains("/preview"), "{logged}");
        assert!(!logged.contains("private"), "{logged}");
    }
}
