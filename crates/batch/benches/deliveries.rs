//! The cost of check-in e-mails (PostgreSQL): seeds two identical fresh databases with
//! `BENCH_USERS` (10,000) people with affirmed profiles, all due, and in one of them every
//! person has check-in e-mails on. Times the release `discovery-batch checkins` on the first
//! (the baseline, measured in the same run), and `checkins` followed by `discovery-batch deliver`
//! on the second, which sends every e-mail to an SMTP server on loopback (a minimal one in this
//! file that accepts every message). Prints both times and their ratio. The server comes from
//! `BENCH_DATABASE_URL` or `TEST_DATABASE_URL`.
//!
//! `cargo bench -p batch --bench deliveries` (`just bench-deliveries`). Under `cargo test` it
//! does nothing: it is a measurement, never a timed test.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_debug_implementations
)]

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use adapters_diesel::testing::{TestDb, config};

mod common;

use common::{checkpoint, execute, seed};

fn main() {
    let Some((admin_url, users)) = common::setup("deliveries", 10_000) else {
        return;
    };

    let (mailed, port) = smtp_sink();
    let baseline_db = TestDb::postgres_at(&admin_url, config);
    let mail_db = TestDb::postgres_at(&admin_url, config);
    for db in [&baseline_db, &mail_db] {
        seed(&db.db(), users);
    }
    execute(
        &mail_db.db(),
        "INSERT INTO notification_settings (user_id, email_checkins, updated_at) \
         SELECT id, TRUE, now() AT TIME ZONE 'UTC' FROM users",
    );

    checkpoint(&baseline_db.db());
    let (alone, created) = timed(batch(baseline_db.url(), "checkins", port));
    assert_eq!(created["report"]["created"], u64::from(users));
    drop(baseline_db);
    checkpoint(&mail_db.db());
    let (checkins, created) = timed(batch(mail_db.url(), "checkins", port));
    assert_eq!(created["report"]["created"], u64::from(users));
    let (deliver, sent) = timed(batch(mail_db.url(), "deliver", port));
    assert_eq!(sent["sent"], u64::from(users), "{sent}");
    assert_eq!(sent["pending"], 0, "{sent}");
    assert_eq!(mailed.load(Ordering::Relaxed), u64::from(users));

    println!("{users} due check-ins with e-mail on, PostgreSQL, SMTP on loopback");
    let with_mail = checkins + deliver;
    for (label, d) in [
        ("baseline: discovery-batch checkins, e-mail off", alone),
        (
            "discovery-batch checkins, e-mail on (outbox rows)",
            checkins,
        ),
        ("discovery-batch deliver (every e-mail sent)", deliver),
        ("checkins + deliver", with_mail),
    ] {
        println!("  {label:<52} {:>7.2} s", d.as_secs_f64());
    }
    println!(
        "  {:<52} {:>7.2}x",
        "ratio (checkins + deliver) / checkins alone",
        with_mail.as_secs_f64() / alone.as_secs_f64()
    );
    println!(
        "  {:<52} {:>7.0} /s",
        "e-mails sent",
        f64::from(users) / deliver.as_secs_f64()
    );
}

fn batch(url: &str, job: &str, smtp_port: u16) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_discovery-batch"));
    command
        .arg(job)
        .env("DATABASE_URL", url)
        .env("SMTP_URL", format!("smtp://127.0.0.1:{smtp_port}"))
        .env("SMTP_FROM", "Discovery <discovery@example.org>")
        .env("PUBLIC_BASE_URL", "https://discovery.example")
        .env("JWT_SECRET", "benchmark-jwt-secret-of-32-bytes-or-more")
        .current_dir(std::env::temp_dir());
    command
}

/// Runs a job to completion; its wall time and summary line.
fn timed(mut command: Command) -> (Duration, serde_json::Value) {
    let started = Instant::now();
    let output = command.output().unwrap();
    let elapsed = started.elapsed();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    (elapsed, serde_json::from_str(stdout.trim()).unwrap())
}

/// An SMTP server on a free loopback port that accepts every message (RFC 5321's happy path, a
/// thread per connection); counts the messages.
fn smtp_sink() -> (Arc<AtomicU64>, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let count = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&count);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let counter = Arc::clone(&counter);
            std::thread::spawn(move || session(stream, &counter));
        }
    });
    (count, port)
}

fn session(stream: TcpStream, count: &AtomicU64) {
    // Replies are small writes in a row (EHLO's lines): without this, Nagle's algorithm holds
    // each second one back for the client's delayed ACK, and the sink, not the service, is what
    // gets measured.
    stream.set_nodelay(true).unwrap();
    let mut out = stream.try_clone().unwrap();
    let mut reply = |line: &str| out.write_all(format!("{line}\r\n").as_bytes()).is_ok();
    if !reply("220 sink ESMTP") {
        return;
    }
    let mut lines = BufReader::new(stream).lines();
    while let Some(Ok(line)) = lines.next() {
        let verb = line.get(..4).unwrap_or_default().to_ascii_uppercase();
        let ok = match verb.as_str() {
            "EHLO" => reply("250-sink") && reply("250 8BITMIME"),
            "DATA" => {
                if !reply("354 go ahead") {
                    return;
                }
                for body in lines.by_ref() {
                    if body.map_or(true, |b| b == ".") {
                        break;
                    }
                }
                count.fetch_add(1, Ordering::Relaxed);
                reply("250 queued")
            }
            "QUIT" => {
                reply("221 bye");
                return;
            }
            _ => reply("250 ok"),
        };
        if !ok {
            return;
        }
    }
}
