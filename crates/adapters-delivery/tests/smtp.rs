//! The mailer against a real SMTP conversation on loopback: a minimal server written here (EHLO,
//! AUTH, MAIL, RCPT, DATA, QUIT) that records what it was given, so the test reads the message
//! exactly as a mail server would receive it.

// A panic is the failure report here, helpers included (clippy.toml covers only #[test] bodies).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_delivery::SmtpMailer;
use domain::notifications::DeliveryOutcome;
use domain::ports::{CheckInMail, Mailer};
use mail_parser::MessageParser;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

const PASSWORD: &str = "hunter2-smtp-password";
const UNSUBSCRIBE: &str = "https://discovery.example/api/notifications/unsubscribe?token=v1.abc";

/// How the server answers.
#[derive(Clone, Copy)]
struct Script {
    /// Whether EHLO offers `AUTH PLAIN` (and then refuses any credentials with 535).
    auth: bool,
    /// The answer to RCPT TO.
    rcpt: &'static str,
}

const ACCEPTING: Script = Script {
    auth: false,
    rcpt: "250 2.1.5 ok",
};

/// What one SMTP session gave the server.
#[derive(Debug, Default)]
struct Session {
    commands: Vec<String>,
    mail_from: Option<String>,
    rcpt_to: Vec<String>,
    data: Option<Vec<u8>>,
}

/// A server for one session; returns its port and the session once the client is done.
async fn smtp_server(script: Script) -> (u16, JoinHandle<Session>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let session = tokio::spawn(async move {
        let (socket, _) = listener.accept().await.unwrap();
        let (read, mut write) = socket.into_split();
        let mut lines = BufReader::new(read);
        let mut session = Session::default();
        write.write_all(b"220 test ESMTP\r\n").await.unwrap();
        loop {
            let mut line = String::new();
            if lines.read_line(&mut line).await.unwrap() == 0 {
                break; // the client hung up
            }
            let command = line.trim_end().to_owned();
            session.commands.push(command.clone());
            let verb = command
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_ascii_uppercase();
            let reply: &str = match verb.as_str() {
                "EHLO" if script.auth => "250-test\r\n250 AUTH PLAIN",
                "EHLO" | "HELO" => "250 test",
                "AUTH" => "535 5.7.8 authentication failed",
                "MAIL" => {
                    session.mail_from = Some(command["MAIL FROM:".len()..].to_owned());
                    "250 2.1.0 ok"
                }
                "RCPT" => {
                    session.rcpt_to.push(command["RCPT TO:".len()..].to_owned());
                    script.rcpt
                }
                "DATA" => {
                    write.write_all(b"354 go ahead\r\n").await.unwrap();
                    session.data = Some(read_data(&mut lines).await);
                    "250 2.0.0 queued"
                }
                "QUIT" => {
                    write.write_all(b"221 bye\r\n").await.unwrap();
                    break;
                }
                "RSET" | "NOOP" => "250 ok",
                _ => "502 5.5.2 not implemented",
            };
            write
                .write_all(format!("{reply}\r\n").as_bytes())
                .await
                .unwrap();
        }
        session
    });
    (port, session)
}

/// The message after DATA, up to the lone `.`, dot-unstuffed (RFC 5321, 4.5.2).
async fn read_data(lines: &mut BufReader<tokio::net::tcp::OwnedReadHalf>) -> Vec<u8> {
    let mut data = Vec::new();
    loop {
        let mut line = Vec::new();
        assert!(lines.read_until(b'\n', &mut line).await.unwrap() > 0);
        if line == b".\r\n" {
            return data;
        }
        let line = line.strip_prefix(b".").unwrap_or(&line);
        data.extend_from_slice(line);
    }
}

fn mail() -> CheckInMail {
    CheckInMail {
        to: "ada@example.org".to_owned(),
        message: "Does riding to work still matter to you?".to_owned(),
        quoted_goals: vec!["Ride to work <b>daily</b>".to_owned()],
        observation: Some("You rode 3 times last week.".to_owned()),
        answer_url: "https://discovery.example/coaching?checkin=0193".to_owned(),
        unsubscribe_url: UNSUBSCRIBE.to_owned(),
    }
}

fn mailer(url: &str) -> SmtpMailer {
    SmtpMailer::from_url(url, "Discovery <checkins@discovery.example>").unwrap()
}

#[tokio::test]
async fn a_check_in_reaches_the_server_with_both_parts_and_the_unsubscribe_headers() {
    let (port, session) = smtp_server(ACCEPTING).await;

    let outcome = mailer(&format!("smtp://127.0.0.1:{port}"))
        .send_checkin(&mail())
        .await;

    assert_eq!(
        outcome,
        DeliveryOutcome::Delivered {
            response_status: None
        }
    );
    let session = session.await.unwrap();
    assert_eq!(
        session.mail_from.as_deref(),
        Some("<checkins@discovery.example>")
    );
    assert_eq!(session.rcpt_to, ["<ada@example.org>"]);
    assert_eq!(session.commands.last().map(String::as_str), Some("QUIT"));

    let data = session.data.unwrap();
    let wire = String::from_utf8(data.clone()).unwrap();
    let head = &wire[..wire.find("\r\n\r\n").unwrap()];
    for line in [
        format!("List-Unsubscribe: <{UNSUBSCRIBE}>"),
        "List-Unsubscribe-Post: List-Unsubscribe=One-Click".to_owned(),
        "To: ada@example.org".to_owned(),
        "From: Discovery <checkins@discovery.example>".to_owned(),
        "Subject: Your check-in: does your direction still hold?".to_owned(),
    ] {
        assert!(head.lines().any(|l| l == line), "{line} not in\n{head}");
    }

    let parsed = MessageParser::default().parse(&data).unwrap();
    let text = parsed.body_text(0).unwrap();
    let html = parsed.body_html(0).unwrap();
    assert!(text.contains("> Ride to work <b>daily</b>"), "{text}");
    assert!(text.contains("You rode 3 times last week."));
    assert!(text.contains("https://discovery.example/coaching?checkin=0193"));
    assert!(html.contains("<blockquote"), "{html}");
    assert!(html.contains("Ride to work &lt;b&gt;daily&lt;&#x2f;b&gt;"));
    assert!(html.contains("Does riding to work still matter to you?"));
}

#[tokio::test]
async fn a_refused_recipient_is_a_failure_that_names_the_code_only() {
    let (port, session) = smtp_server(Script {
        auth: false,
        rcpt: "550 5.1.1 <ada@example.org>: no such user",
    })
    .await;

    let outcome = mailer(&format!("smtp://127.0.0.1:{port}"))
        .send_checkin(&mail())
        .await;

    assert_eq!(
        outcome,
        DeliveryOutcome::Failed {
            response_status: None,
            error: "the mail server refused the message (550)".to_owned()
        }
    );
    assert!(session.await.unwrap().data.is_none(), "nothing was sent");
}

#[tokio::test]
async fn refused_credentials_are_a_failure_that_never_shows_the_password() {
    let (port, session) = smtp_server(Script {
        auth: true,
        rcpt: "250 ok",
    })
    .await;

    let outcome = mailer(&format!("smtp://checkins:{PASSWORD}@127.0.0.1:{port}"))
        .send_checkin(&mail())
        .await;

    let DeliveryOutcome::Failed {
        response_status: None,
        error,
    } = outcome
    else {
        panic!("{outcome:?}");
    };
    assert_eq!(error, "the mail server refused the credentials (535)");
    let session = session.await.unwrap();
    assert!(session.commands.iter().any(|c| c.starts_with("AUTH PLAIN")));
    assert!(session.data.is_none());
}

#[tokio::test]
async fn no_server_is_a_failure() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);

    let outcome = mailer(&format!("smtp://u:{PASSWORD}@127.0.0.1:{port}"))
        .send_checkin(&mail())
        .await;

    let DeliveryOutcome::Failed {
        response_status: None,
        error,
    } = outcome
    else {
        panic!("{outcome:?}");
    };
    assert!(!error.contains(PASSWORD));
    assert_eq!(error, "could not talk to the mail server");
}

#[tokio::test]
async fn a_stored_mailbox_expression_reaches_no_one_and_names_no_other_recipient() {
    for stored in [
        "x<victim@evil.example>",
        "Victim <victim@evil.example>",
        "ada@example.org, victim@evil.example",
    ] {
        let (port, session) = smtp_server(ACCEPTING).await;
        let mut bad = mail();
        bad.to = stored.to_owned();

        let outcome = mailer(&format!("smtp://127.0.0.1:{port}"))
            .send_checkin(&bad)
            .await;

        assert_eq!(
            outcome,
            DeliveryOutcome::Failed {
                response_status: None,
                error: "the recipient's e-mail address is not valid".to_owned()
            },
            "{stored}"
        );
        // Refused before any connection: the server never hears of a recipient.
        match tokio::time::timeout(std::time::Duration::from_millis(300), session).await {
            Err(_) => {}
            Ok(session) => panic!(
                "{stored}: the mailer talked to the server, RCPT TO {:?}",
                session.unwrap().rcpt_to
            ),
        }
    }
}
