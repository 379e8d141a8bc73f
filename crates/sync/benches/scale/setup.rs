//! What the benchmarks share: the `--bench` guard and the database they need, the runtime and
//! the throw-away database, and the binary's summary line.

use adapters_diesel::DbConfig;
use adapters_diesel::testing::TestDb;
use serde_json::Value;

/// The database URL allowed to `CREATE DATABASE`, when run as a benchmark with one; else why
/// not, on stderr, and `None`.
pub(crate) fn admin_url(bench: &str) -> Option<String> {
    if !std::env::args().any(|a| a == "--bench") {
        eprintln!("{bench} benchmark: run it with `cargo bench -p sync --bench {bench}`");
        return None;
    }
    let url = ["BENCH_DATABASE_URL", "TEST_DATABASE_URL"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()));
    if url.is_none() {
        eprintln!("{bench} benchmark skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL");
    }
    url
}

/// Two workers: the service and the bench's own requests.
pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// A fresh PostgreSQL database under `admin_url`, dropped with the value.
pub(crate) fn database(admin_url: &str) -> TestDb {
    TestDb::postgres_at(admin_url, |url| {
        let mut config = DbConfig::new(url);
        config.max_connections = 4;
        config.min_idle = 0;
        config
    })
}

/// The summary line of a `discovery-sync` run that must have succeeded, and its stderr.
pub(crate) fn summary_of(what: &str, output: &std::process::Output) -> (Value, String) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "{what} failed: {stdout}\n{}",
        stderr.chars().take(2_000).collect::<String>()
    );
    let summary = serde_json::from_str(stdout.lines().last().unwrap_or_default()).unwrap();
    (summary, stderr)
}
