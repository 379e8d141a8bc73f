//! The real aw-server-rust as a child process: a random port, a scratch directory for its
//! database, config and cache, stopped when dropped.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::harness::TempDir;

pub struct Peer {
    child: Child,
    base: String,
    _work: TempDir,
}

impl Peer {
    pub fn start(binary: &str) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let work = TempDir::new();
        let scratch = |name: &str| work.path.join(name);
        let child = Command::new(binary)
            .args([
                "--port",
                &port.to_string(),
                "--no-legacy-import",
                "--dbpath",
            ])
            .arg(scratch("aw.db"))
            .env("HOME", &work.path)
            .env("XDG_CONFIG_HOME", scratch("config"))
            .env("XDG_DATA_HOME", scratch("data"))
            .env("XDG_CACHE_HOME", scratch("cache"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("aw-server starts");
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "aw-server never listened"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Self {
            child,
            base: format!("http://127.0.0.1:{port}"),
            _work: work,
        }
    }

    /// `http://127.0.0.1:<port>` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
