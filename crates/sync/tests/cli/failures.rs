//! What goes wrong, and how it is reported: exit code 2 for bad usage, 1 for a failure, always
//! one JSON summary line with the reason, and never the API key.

use crate::harness::{TempDir, dry_run_from_stdin, mapping_file, run_sync, spawn_app};

const EXPORT: &str =
    r#"[{"id":1,"start":"20261120T090000Z","end":"20261120T093000Z","tags":["gym"]}]"#;
const MAPPING: &str = "default = \"strength\"\n";

fn error_of(run: &crate::harness::Run) -> String {
    assert_eq!(run.summary["ok"], false, "{run:?}");
    run.summary["error"]
        .as_str()
        .expect("an error message")
        .to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_foundation_in_the_mapping_is_bad_usage_naming_the_rule_and_the_name() {
    let dir = TempDir::new();
    let mapping = mapping_file(
        &dir,
        "[[rule]]\ntag = \"a\"\nfoundation = \"love\"\n[[rule]]\ntag = \"b\"\nfoundation = \"fitness\"\n",
    );
    let run = dry_run_from_stdin(&mapping, EXPORT.into()).await;
    assert_eq!(run.code, 2, "{run:?}");
    let error = error_of(&run);
    assert!(
        error.contains("rule 2") && error.contains("\"fitness\"") && error.contains("short_term"),
        "{error}"
    );
    assert!(run.body_lines().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_mapping_that_is_not_toml_is_bad_usage_with_the_line() {
    let dir = TempDir::new();
    let mapping = mapping_file(&dir, "default = \"love\"\n[[rule]\ntag = 1\n");
    let run = dry_run_from_stdin(&mapping, EXPORT.into()).await;
    assert_eq!(run.code, 2, "{run:?}");
    let error = error_of(&run);
    assert!(
        error.contains("bad mapping file") && error.contains("line 2"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_mapping_file_or_flag_is_bad_usage() {
    let run = run_sync(
        &[
            "timewarrior",
            "--mapping",
            "/nonexistent/m.toml",
            "--dry-run",
        ],
        &[],
        None,
    )
    .await;
    assert_eq!(run.code, 2, "{run:?}");
    assert!(error_of(&run).contains("/nonexistent/m.toml"));
    let run = run_sync(&["timewarrior", "--dry-run"], &[], None).await;
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("--mapping"),
        "clap names the missing flag: {}",
        run.stderr
    );
    let run = run_sync(
        &["timewarrior", "--mapping", "m.toml", "--api-key", "x"],
        &[],
        None,
    )
    .await;
    assert_eq!(run.code, 2, "there is no key flag: {run:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_an_api_key_in_the_environment_nothing_is_read_and_it_is_bad_usage() {
    let dir = TempDir::new();
    let mapping = mapping_file(&dir, MAPPING);
    let run = run_sync(
        &["timewarrior", "--mapping", &mapping, "--input", "-"],
        &[],
        Some(EXPORT.into()),
    )
    .await;
    assert_eq!(run.code, 2, "{run:?}");
    assert!(error_of(&run).contains("DISCOVERY_API_KEY"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_timew_is_a_clear_failure() {
    let dir = TempDir::new();
    let mapping = mapping_file(&dir, MAPPING);
    let run = run_sync(
        &[
            "timewarrior",
            "--mapping",
            &mapping,
            "--timew",
            "/nonexistent/timew",
            "--dry-run",
        ],
        &[],
        None,
    )
    .await;
    assert_eq!(run.code, 1, "{run:?}");
    let error = error_of(&run);
    assert!(
        error.contains("was not found") && error.contains("--input"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_export_that_is_not_json_is_a_failure() {
    let dir = TempDir::new();
    let mapping = mapping_file(&dir, MAPPING);
    let run = dry_run_from_stdin(&mapping, "Create new database?".into()).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(error_of(&run).contains("Create new database?"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_api_key_is_a_401_failure_and_the_key_is_never_printed() {
    let app = spawn_app().await;
    let dir = TempDir::new();
    let mapping = mapping_file(&dir, MAPPING);
    let wrong = "ds_wrong-key-0123456789abcdef";
    let run = run_sync(
        &[
            "timewarrior",
            "--mapping",
            &mapping,
            "--input",
            "-",
            "--url",
            &app.address,
        ],
        &[("DISCOVERY_API_KEY", wrong)],
        Some(EXPORT.into()),
    )
    .await;
    assert_eq!(run.code, 1, "{run:?}");
    let error = error_of(&run);
    assert!(
        error.contains("401")
            && error.contains("DISCOVERY_API_KEY")
            && error.contains("unauthenticated"),
        "{error}"
    );
    assert!(
        !run.stdout.contains(wrong) && !run.stderr.contains(wrong),
        "{run:?}"
    );
    assert_eq!(run.summary["created"], 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refusal_by_the_service_quotes_its_code_and_message() {
    let app = spawn_app().await;
    let key = app.person_with_key("refused@example.org").await;
    let dir = TempDir::new();
    let mapping = mapping_file(&dir, MAPPING);
    // A base URL with a path the service does not have: 404 with the contract's error body.
    let url = format!("{}/nowhere", app.address);
    let run = run_sync(
        &[
            "timewarrior",
            "--mapping",
            &mapping,
            "--input",
            "-",
            "--url",
            &url,
        ],
        &[("DISCOVERY_API_KEY", &key)],
        Some(EXPORT.into()),
    )
    .await;
    assert_eq!(run.code, 1, "{run:?}");
    let error = error_of(&run);
    assert!(
        error.contains("404") && error.contains("not_found"),
        "{error}"
    );
    assert!(!run.stdout.contains(&key));
    assert!(app.mappings(&key).await.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_service_that_does_not_answer_is_a_failure_naming_the_address() {
    let dir = TempDir::new();
    let mapping = mapping_file(&dir, MAPPING);
    // Port 9 (discard) on loopback: nothing listens there.
    let run = run_sync(
        &[
            "timewarrior",
            "--mapping",
            &mapping,
            "--input",
            "-",
            "--url",
            "http://127.0.0.1:9",
        ],
        &[("DISCOVERY_API_KEY", "some-key-value-123")],
        Some(EXPORT.into()),
    )
    .await;
    assert_eq!(run.code, 1, "{run:?}");
    let error = error_of(&run);
    assert!(error.contains("cannot reach http://127.0.0.1:9"), "{error}");
    assert!(!error.contains("some-key-value-123"));
}

/// A stand-in for a service (or a proxy in front of it) that answers every request with a 307
/// to `to`: what it received, once the run is over.
struct Redirector {
    address: String,
    received: std::thread::JoinHandle<String>,
}

impl Redirector {
    fn start(to: &str) -> Self {
        use std::io::{Read as _, Write as _};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = format!("http://{}", listener.local_addr().unwrap());
        let location = to.to_owned();
        let received = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            stream
                .set_read_timeout(Some(std::time::Duration::from_secs(10)))
                .unwrap();
            // The whole request, so the answer is not cut off by a reset: headers, then as
            // many body bytes as Content-Length says.
            let mut request = Vec::new();
            let mut buf = [0_u8; 8192];
            loop {
                let n = stream.read(&mut buf).unwrap();
                request.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&request);
                if let Some(end) = text.find("\r\n\r\n") {
                    let length: usize = text[..end]
                        .lines()
                        .find_map(|l| {
                            let (name, value) = l.split_once(':')?;
                            name.eq_ignore_ascii_case("content-length")
                                .then(|| value.trim().parse().ok())?
                        })
                        .unwrap_or(0);
                    if request.len() >= end + 4 + length || n == 0 {
                        break;
                    }
                }
                if n == 0 {
                    break;
                }
            }
            let answer = format!(
                "HTTP/1.1 307 Temporary Redirect\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            stream.write_all(answer.as_bytes()).unwrap();
            String::from_utf8_lossy(&request).into_owned()
        });
        Self { address, received }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_redirect_is_a_failure_and_neither_the_key_nor_the_entries_follow_it() {
    // The other host: another port on loopback is another origin. It is only listened on;
    // whatever connects to it stays in its backlog, to be found below.
    let elsewhere = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let elsewhere_url = format!(
        "http://{}/integration/task-mappings/batch",
        elsewhere.local_addr().unwrap()
    );
    let redirector = Redirector::start(&elsewhere_url);
    let dir = TempDir::new();
    let mapping = mapping_file(&dir, MAPPING);
    let key = "ds_redirect-test-key-0123456789";
    let run = run_sync(
        &[
            "timewarrior",
            "--mapping",
            &mapping,
            "--input",
            "-",
            "--url",
            &redirector.address,
        ],
        &[("DISCOVERY_API_KEY", key)],
        Some(EXPORT.into()),
    )
    .await;

    let first = redirector.received.join().unwrap();
    assert!(
        first.starts_with("POST /integration/task-mappings/batch") && first.contains(key),
        "the batch went to the address given: {first}"
    );
    elsewhere.set_nonblocking(true).unwrap();
    match elsewhere.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        Err(e) => panic!("checking the other host: {e}"),
        Ok((_, peer)) => panic!("the redirect was followed: {peer} connected to the other host"),
    }
    assert_eq!(run.code, 1, "{run:?}");
    let error = error_of(&run);
    assert!(
        error.contains("307") && error.contains("redirect") && error.contains(&elsewhere_url),
        "{error}"
    );
    assert!(
        !run.stdout.contains(key) && !run.stderr.contains(key),
        "{run:?}"
    );
    assert_eq!(run.summary["created"], 0);
    assert!(
        !run.stderr.contains("plain http"),
        "no warning for loopback: {}",
        run.stderr
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn plain_http_to_another_machine_is_warned_about_once_on_stderr() {
    let dir = TempDir::new();
    let mapping = mapping_file(&dir, MAPPING);
    // 0.0.0.0 is not a loopback address, so it is warned about; on Linux a connection to it
    // reaches this machine, where nothing listens on port 9: the run fails at once.
    let run = run_sync(
        &[
            "timewarrior",
            "--mapping",
            &mapping,
            "--input",
            "-",
            "--url",
            "http://0.0.0.0:9",
        ],
        &[("DISCOVERY_API_KEY", "some-key-value-123")],
        Some(EXPORT.into()),
    )
    .await;
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(
        run.stderr.matches("plain http").count(),
        1,
        "{}",
        run.stderr
    );
    assert!(
        !run.stdout.contains("plain http"),
        "stdout is the summary only"
    );
}
