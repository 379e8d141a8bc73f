//! Logging: structured `tracing` output filtered by `RUST_LOG` (`settings::service::log_filter`).

use tracing_subscriber::EnvFilter;

use crate::error::ApiError;

/// Installs the global subscriber once, filtered by the `RUST_LOG` of `vars` (the same
/// variables, `.env` included, that the other settings are read from); later calls (tests) are
/// ignored.
pub fn init(vars: &settings::Vars<'_>) {
    let filter = settings::service::log_filter(vars);
    let filter = EnvFilter::try_new(filter)
        .unwrap_or_else(|_| EnvFilter::new(settings::service::DEFAULT_LOG_FILTER));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).try_init();
}

/// The root span of every request, as tracing-actix-web's default but with the path only in
/// `http.target` (a query string may carry a person's words,
/// `/discovery/profile/me/reflect/preview?message=...`, or a sign-in code, and every log line
/// inside a request repeats its span's fields), and with only the code of an error at its end.
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
        let client_ip = crate::middleware::client_ip::of_request(request.request())
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
        )
    }

    /// The status, and for a failure its contract code. Not tracing-actix-web's default, which
    /// records the error's `Display` and `Debug`: a validation error's `Debug` quotes what the
    /// person sent (`invalid type: string "…"`). The cause of an [`ApiError`] 5xx is logged
    /// where it is made or answered (`ApiError::error_response`); any other error that ends in
    /// a 5xx (one of actix's own) is logged here, as nothing else would.
    fn on_request_end<B: actix_web::body::MessageBody>(
        span: tracing::Span,
        outcome: &Result<actix_web::dev::ServiceResponse<B>, actix_web::Error>,
    ) {
        let (status, error) = match outcome {
            Ok(response) => (response.status(), response.response().error()),
            Err(error) => (error.as_response_error().status_code(), Some(error)),
        };
        span.record("http.status_code", status.as_u16());
        span.record(
            "otel.status_code",
            if status.is_server_error() {
                "ERROR"
            } else {
                "OK"
            },
        );
        if let Some(error) = error {
            let api_error = error.as_error::<ApiError>();
            span.record(
                "exception.message",
                api_error.map_or("error", ApiError::code),
            );
            if api_error.is_none() && status.is_server_error() {
                span.in_scope(|| {
                    tracing::error!(error = %error, status = status.as_u16(), "request failed");
                });
            }
        }
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

    /// Serves `route` at the path of `uri` behind the logger, with the span of each request
    /// logged when it closes (as a tracing exporter would send it), asks for `uri`, and returns
    /// the status and what was logged.
    async fn logged_at_info(uri: &str, route: actix_web::Route) -> (u16, String) {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_max_level(tracing::Level::INFO)
            .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
            .with_ansi(false)
            .finish();
        let _guard = tracing::subscriber::set_default(subscriber);
        let app = test::init_service(
            App::new()
                .wrap(TracingLogger::<PathOnlyRootSpan>::new())
                .route(uri.split('?').next().unwrap_or(uri), route),
        )
        .await;
        let response =
            test::call_service(&app, test::TestRequest::get().uri(uri).to_request()).await;
        let status = response.status().as_u16();
        // The body carries the span; reading it to the end closes the span.
        test::read_body(response).await;
        let logged = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        (status, logged)
    }

    #[actix_web::test]
    async fn a_refused_request_is_no_warning_and_its_log_does_not_quote_what_was_sent() {
        let (status, logged) = logged_at_info(
            "/thing",
            web::get().to(|| async {
                Err::<HttpResponse, _>(ApiError::invalid(
                    "minutes",
                    "invalid type: string \"my private words\", expected a number",
                ))
            }),
        )
        .await;
        assert_eq!(status, 422);
        // The span closes with the status and the contract's code...
        assert!(logged.contains("http.status_code=422"), "{logged}");
        assert!(
            logged.contains("exception.message=\"validation_failed\""),
            "{logged}"
        );
        // ...and nothing else: no warning, no words of the request.
        assert!(!logged.contains("WARN"), "{logged}");
        assert!(!logged.contains("private"), "{logged}");
    }

    #[actix_web::test]
    async fn a_server_error_is_logged_once_with_its_cause() {
        let (status, logged) = logged_at_info(
            "/thing",
            web::get().to(|| async {
                Err::<HttpResponse, _>(ApiError::Internal(anyhow::anyhow!("the disk is full")))
            }),
        )
        .await;
        assert_eq!(status, 500);
        assert_eq!(logged.matches("the disk is full").count(), 1, "{logged}");
        let line = logged
            .lines()
            .find(|l| l.contains("the disk is full"))
            .unwrap();
        assert!(line.contains(" ERROR "), "{line}");
        assert!(
            line.contains("HTTP request{"),
            "inside the request's span: {line}"
        );
        assert!(logged.contains("otel.status_code=\"ERROR\""), "{logged}");
        assert!(
            logged.contains("exception.message=\"internal\""),
            "{logged}"
        );
    }

    #[actix_web::test]
    async fn a_server_error_of_actix_itself_is_logged_too() {
        let (status, logged) = logged_at_info(
            "/thing",
            web::get().to(|| async {
                Err::<HttpResponse, _>(actix_web::error::ErrorInternalServerError(
                    "no such app data",
                ))
            }),
        )
        .await;
        assert_eq!(status, 500);
        let line = logged
            .lines()
            .find(|l| l.contains("no such app data"))
            .unwrap_or_else(|| panic!("not logged: {logged}"));
        assert!(line.contains(" ERROR "), "{line}");
        assert!(
            line.contains("HTTP request{"),
            "inside the request's span: {line}"
        );
        assert!(logged.contains("exception.message=\"error\""), "{logged}");
    }

    #[actix_web::test]
    async fn a_query_string_never_reaches_a_log_line() {
        let (status, logged) = logged_at_info(
            "/preview?message=my%20private%20words",
            web::get().to(|| async {
                tracing::warn!("something inside the request");
                HttpResponse::Ok().finish()
            }),
        )
        .await;
        assert_eq!(status, 200);
        assert!(logged.contains("something inside the request"), "{logged}");
        assert!(logged.contains("/preview"), "{logged}");
        assert!(!logged.contains("private"), "{logged}");
    }
}
