//! The webhook client against real receivers on loopback: what it sends (the three Standard
//! Webhooks headers, the exact body, a signature that verifies by an independent HMAC), what it
//! makes of answers (2xx, 500, a redirect it does not follow, a slow one, a huge one), and the
//! address rule with private destinations not allowed (no request ever reaches the receiver).

// A panic is the failure report here, helpers included (clippy.toml covers only #[test] bodies).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use adapters_delivery::WebhookClient;
use adapters_delivery::webhook::MAX_ANSWER_BYTES;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use domain::ids::EventId;
use domain::notifications::{DeliveryOutcome, WebhookSecret, WebhookUrl, WebhookUrlError};
use domain::ports::{WebhookRequest, WebhookSender};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use time::OffsetDateTime;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// `whsec_` and the base64 of 32 bytes, as the service makes them.
const SECRET: &str = "whsec_BwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAhIiMkJSY=";
const PAYLOAD: &str =
    r#"{"id":"0193","type":"ping","created_at":"2026-11-26T10:00:00Z","data":{}}"#;

fn request(url: &str) -> WebhookRequest {
    WebhookRequest {
        url: WebhookUrl::parse(url, true).unwrap(),
        secret: WebhookSecret::new(SECRET.to_owned()),
        event_id: EventId::new(),
        timestamp: OffsetDateTime::now_utc(),
        payload: PAYLOAD.to_owned(),
    }
}

fn client(allow_private: bool) -> WebhookClient {
    WebhookClient::new(allow_private).unwrap()
}

/// The Standard Webhooks signature computed here, from the spec, without the library the client
/// uses: base64(HMAC-SHA256(base64decode(secret after `whsec_`), "id.timestamp.body")).
fn expected_signature(id: &str, timestamp: &str, body: &[u8]) -> String {
    let key = STANDARD
        .decode(SECRET.strip_prefix("whsec_").unwrap())
        .unwrap();
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&key).unwrap();
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(body);
    format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
}

fn failed_without_answer(outcome: &DeliveryOutcome) -> &str {
    match outcome {
        DeliveryOutcome::Failed {
            response_status: None,
            error,
        } => error,
        other => panic!("expected a failure without an answer, got {other:?}"),
    }
}

#[tokio::test]
async fn a_delivery_carries_the_headers_the_exact_body_and_a_signature_that_verifies() {
    let receiver = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/hook"))
        .respond_with(ResponseTemplate::new(204))
        .expect(1)
        .mount(&receiver)
        .await;
    let request = request(&format!("{}/hook", receiver.uri()));

    let outcome = client(true).send(&request).await;

    assert_eq!(
        outcome,
        DeliveryOutcome::Delivered {
            response_status: Some(204)
        }
    );
    let requests = receiver.received_requests().await.unwrap();
    let hit = requests.first().unwrap();
    assert_eq!(hit.body, PAYLOAD.as_bytes());
    let header = |name: &str| hit.headers.get(name).unwrap().to_str().unwrap();
    assert_eq!(header("webhook-id"), request.event_id.to_string());
    assert_eq!(
        header("webhook-timestamp"),
        request.timestamp.unix_timestamp().to_string()
    );
    assert_eq!(header("content-type"), "application/json");
    assert_eq!(
        header("user-agent"),
        concat!("discovery-service/", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(
        header("webhook-signature"),
        expected_signature(header("webhook-id"), header("webhook-timestamp"), &hit.body)
    );
    // And the reference library's receiving side agrees.
    let mut headers = hit.headers.clone();
    standardwebhooks::Webhook::new(SECRET)
        .unwrap()
        .verify(&hit.body, &headers)
        .unwrap();
    headers.insert("webhook-id", "another-id".parse().unwrap());
    assert!(
        standardwebhooks::Webhook::new(SECRET)
            .unwrap()
            .verify(&hit.body, &headers)
            .is_err()
    );
}

#[tokio::test]
async fn an_error_status_is_a_failure_that_names_it() {
    let receiver = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500).set_body_string("boom"))
        .mount(&receiver)
        .await;

    let outcome = client(true)
        .send(&request(&format!("{}/hook", receiver.uri())))
        .await;

    assert_eq!(
        outcome,
        DeliveryOutcome::Failed {
            response_status: Some(500),
            error: "the endpoint answered 500".to_owned()
        }
    );
}

#[tokio::test]
async fn a_redirect_is_a_failure_and_is_not_followed() {
    let receiver = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/hook"))
        .respond_with(
            ResponseTemplate::new(302)
                .insert_header("location", format!("{}/elsewhere", receiver.uri())),
        )
        .mount(&receiver)
        .await;
    Mock::given(path("/elsewhere"))
        .respond_with(ResponseTemplate::new(200))
        .expect(0)
        .mount(&receiver)
        .await;

    let outcome = client(true)
        .send(&request(&format!("{}/hook", receiver.uri())))
        .await;

    assert_eq!(
        outcome,
        DeliveryOutcome::Failed {
            response_status: Some(302),
            error: "the endpoint answered 302".to_owned()
        }
    );
    let paths: Vec<String> = receiver
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| r.url.path().to_owned())
        .collect();
    assert_eq!(paths, ["/hook"]);
}

/// The slow one: it waits out the real 10 s limit.
#[tokio::test]
async fn a_receiver_slower_than_ten_seconds_is_a_timeout() {
    let receiver = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(12)))
        .mount(&receiver)
        .await;

    let started = Instant::now();
    let outcome = client(true)
        .send(&request(&format!("{}/hook", receiver.uri())))
        .await;
    let elapsed = started.elapsed();

    assert_eq!(failed_without_answer(&outcome), "no answer within 10 s");
    assert!(
        elapsed >= Duration::from_secs(9) && elapsed < Duration::from_secs(11),
        "{elapsed:?}"
    );
}

#[tokio::test]
async fn a_huge_answer_does_not_stop_the_delivery() {
    let receiver = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(vec![b'x'; 1024 * 1024]))
        .mount(&receiver)
        .await;

    let outcome = client(true)
        .send(&request(&format!("{}/hook", receiver.uri())))
        .await;

    assert_eq!(
        outcome,
        DeliveryOutcome::Delivered {
            response_status: Some(200)
        }
    );
}

/// A receiver that announces 1 MiB, sends the headers and `sent` bytes of it, then stalls for
/// longer than the time limit. Returns its address.
async fn stalling_receiver(sent: usize) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut request = vec![0; 64 * 1024];
        let mut read = 0;
        // The request's head and its short body arrive before the answer starts.
        while !request[..read]
            .windows(PAYLOAD.len())
            .any(|w| w == PAYLOAD.as_bytes())
        {
            read += socket.read(&mut request[read..]).await.unwrap();
        }
        socket
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 1048576\r\n\r\n")
            .await
            .unwrap();
        socket.write_all(&vec![b'x'; sent]).await.unwrap();
        tokio::time::sleep(Duration::from_secs(30)).await;
    });
    format!("http://{address}/hook")
}

#[tokio::test]
async fn reading_the_answer_stops_after_64_kib() {
    // More than the bound, less than the whole: a client that read on would wait for the rest
    // until its time limit.
    let url = stalling_receiver(MAX_ANSWER_BYTES + 16 * 1024).await;

    let started = Instant::now();
    let outcome = client(true).send(&request(&url)).await;

    assert_eq!(
        outcome,
        DeliveryOutcome::Delivered {
            response_status: Some(200)
        }
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn with_private_destinations_refused_no_request_reaches_a_loopback_receiver() {
    let receiver = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&receiver)
        .await;
    let port = receiver.address().port();
    let client = client(false);

    for url in [
        format!("http://127.0.0.1:{port}/hook"),
        format!("http://[::ffff:127.0.0.1]:{port}/hook"),
        // IPv6 forms that embed 127.0.0.1: compatible, NAT64, 6to4, Teredo (client inverted).
        format!("http://[::127.0.0.1]:{port}/hook"),
        format!("http://[64:ff9b::7f00:1]:{port}/hook"),
        format!("http://[2002:7f00:1::1]:{port}/hook"),
        format!("http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:{port}/hook"),
        // Names go through the resolver, which drops the loopback addresses.
        format!("http://localhost:{port}/hook"),
        format!("https://localhost:{port}/hook"),
    ] {
        let outcome = client.send(&request(&url)).await;
        let error = failed_without_answer(&outcome);
        assert!(error.contains("not allowed"), "{url}: {error}");
        assert!(!error.contains(SECRET) && !error.contains("ping"));
    }
    assert!(receiver.received_requests().await.unwrap().is_empty());

    // The same receiver is reached once private destinations are allowed.
    let outcome = client_allowing_private_sends_to(port).await;
    assert_eq!(
        outcome,
        DeliveryOutcome::Delivered {
            response_status: Some(200)
        }
    );
    assert_eq!(receiver.received_requests().await.unwrap().len(), 1);
}

async fn client_allowing_private_sends_to(port: u16) -> DeliveryOutcome {
    client(true)
        .send(&request(&format!("http://localhost:{port}/hook")))
        .await
}

#[tokio::test]
async fn nothing_listening_is_a_connection_failure() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);

    let outcome = client(true)
        .send(&request(&format!("http://127.0.0.1:{port}/hook")))
        .await;

    assert_eq!(
        failed_without_answer(&outcome),
        "could not connect to the endpoint"
    );
}

#[tokio::test]
async fn registration_checks_that_the_host_resolves_to_public_addresses_only() {
    let strict = client(false);
    let check = |raw: &str| WebhookUrl::parse(raw, true).unwrap();

    assert_eq!(
        strict.check_destination(&check("https://localhost/")).await,
        Err(WebhookUrlError::PrivateAddress)
    );
    assert_eq!(
        strict
            .check_destination(&check("https://does-not-exist.invalid/"))
            .await,
        Err(WebhookUrlError::Unresolvable)
    );
    assert_eq!(
        strict.check_destination(&check("https://127.0.0.1/")).await,
        Err(WebhookUrlError::PrivateAddress)
    );
    let lenient = client(true);
    assert_eq!(
        lenient
            .check_destination(&check("https://localhost/"))
            .await,
        Ok(())
    );
    assert_eq!(
        lenient
            .check_destination(&check("https://does-not-exist.invalid/"))
            .await,
        Err(WebhookUrlError::Unresolvable)
    );
}
