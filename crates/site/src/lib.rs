//! The web pages of `web/`, apart from any HTTP framework: each assembled once at start-up from
//! the one layout and its template (`pages`), and the API reference among them, read from the
//! OpenAPI document (`reference`). `discovery-api` serves what this crate assembled.

pub mod pages;
pub mod reference;

use std::path::PathBuf;

pub use pages::{DOCS, INDEX, LAYOUT, LOGIN, PAGES_DIR, Page, Pages};

/// Where the pages are: `WEB_DIR`, else `web/` under the working directory, else the
/// repository's `web/` (so tests and `cargo run` find it from any crate directory).
#[must_use]
pub fn web_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("WEB_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let local = PathBuf::from("web");
    if local.join(LAYOUT).is_file() {
        return local;
    }
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../web"))
}
