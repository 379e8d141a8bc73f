//! A real aw-server as a child process: a random port, a scratch directory for its database,
//! config and cache, stopped when dropped. Either aw-server-rust (`PEER_AW_SERVER`, built by
//! crates/api-actix/benches/peer/build-aw-server.sh) or ActivityWatch's Python aw-server
//! (`PEER_AW_SERVER_PY`: the `aw-server` script of a venv made with `python3 -m venv DIR &&
//! DIR/bin/pip install aw-server 'peewee<4'`; aw-server 0.12.0 over peewee 4 answers 500 to
//! every bucket it is given), each skipped with a notice when its variable names no program.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::harness::TempDir;

/// Which aw-server, by the variable that names its program.
#[derive(Clone, Copy)]
pub enum Flavor {
    /// aw-server-rust: `PEER_AW_SERVER`.
    Rust,
    /// The Python aw-server from PyPI: `PEER_AW_SERVER_PY`.
    Python,
}

impl Flavor {
    /// The variable naming the program.
    pub fn variable(self) -> &'static str {
        match self {
            Self::Rust => "PEER_AW_SERVER",
            Self::Python => "PEER_AW_SERVER_PY",
        }
    }

    /// The program named, or `None` with a notice on stderr.
    pub fn program(self) -> Option<String> {
        let var = self.variable();
        let program = std::env::var(var).ok().filter(|b| !b.is_empty());
        if program.is_none() {
            eprintln!("skipped: set {var} to an aw-server program to run against the real one");
        }
        program
    }

    /// The flags that put it on `port` with its database in `work`.
    fn args(self, port: u16, work: &TempDir) -> Vec<String> {
        let port = port.to_string();
        match self {
            Self::Rust => vec![
                "--port".into(),
                port,
                "--no-legacy-import".into(),
                "--dbpath".into(),
                work.path.join("aw.db").to_string_lossy().into_owned(),
            ],
            // Its database goes under XDG_DATA_HOME, which is the scratch directory's.
            Self::Python => vec!["--host".into(), "127.0.0.1".into(), "--port".into(), port],
        }
    }
}

pub struct Peer {
    child: Child,
    base: String,
    _work: TempDir,
}

impl Peer {
    pub fn start(flavor: Flavor, binary: &str) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let work = TempDir::new();
        let scratch = |name: &str| work.path.join(name);
        let child = Command::new(binary)
            .args(flavor.args(port, &work))
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
