//! aw-server's answers held to limits (issue 43): an answer over the size read is refused
//! naming the limit, not held whole; a server that answers slowly meets the run's deadline; a
//! redirect is named with where it points (issue 46), not followed.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::time::Duration;

use discovery_sync::awserver::AwServer;

/// A server on a random port that answers every request with 200 and, after `pause`,
/// `body`; its URL.
fn serve(body: String, pause: Duration) -> String {
    serve_as("200 OK\r\nContent-Type: application/json", body, pause)
}

/// [`serve`], with `head` (the status and headers) as the answer's first lines.
fn serve_as(head: &'static str, body: String, pause: Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            // No Content-Length: the size is known only by reading.
            let _ = write!(stream, "HTTP/1.1 {head}\r\nConnection: close\r\n\r\n");
            std::thread::sleep(pause);
            let _ = stream.write_all(body.as_bytes());
        }
    });
    url
}

#[test]
fn an_answer_over_the_size_read_is_refused_naming_the_limit() {
    let body = format!("{{\"padding\": \"{}\"}}", "x".repeat(3 * 1024 * 1024));
    let url = serve(body, Duration::ZERO);
    let server = AwServer::new(&url)
        .unwrap()
        .with_limits(1024 * 1024, Duration::from_secs(60));
    let error = server.buckets().unwrap_err();
    assert_eq!(error.exit_code(), 1);
    assert!(
        error.message().contains("is over 1 MB: not read"),
        "{error}"
    );
    // Under the limit, the same server is read.
    let url = serve("{}".to_owned(), Duration::ZERO);
    let server = AwServer::new(&url)
        .unwrap()
        .with_limits(1024 * 1024, Duration::from_secs(60));
    assert!(server.buckets().unwrap().is_empty());
}

#[test]
fn a_slow_server_meets_the_runs_deadline() {
    let url = serve("{}".to_owned(), Duration::from_secs(3));
    let server = AwServer::new(&url)
        .unwrap()
        .with_limits(1024 * 1024, Duration::from_millis(500));
    let started = std::time::Instant::now();
    let error = server.buckets().unwrap_err();
    assert!(error.message().contains("timed out"), "{error}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    // The deadline passed: the next request is not even sent.
    let error = server.buckets().unwrap_err();
    assert!(
        error.message().contains("took longer than the run may"),
        "{error}"
    );
}

#[test]
fn a_redirect_is_named_with_where_it_points_and_not_followed() {
    let url = serve_as(
        "302 Found\r\nLocation: http://login.example.org/",
        String::new(),
        Duration::ZERO,
    );
    let error = AwServer::new(&url).unwrap().buckets().unwrap_err();
    assert!(
        error
            .message()
            .contains("answered 302 Found, a redirect to http://login.example.org/")
            && error.message().contains("redirects are not followed"),
        "{error}"
    );
}
