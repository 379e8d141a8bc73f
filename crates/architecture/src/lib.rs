//! The structure of the workspace's crates read from their source as text: which file imports
//! which (`crate::` and `super::` paths), and the import cycles between files.
//!
//! A file is a module: `src/a/b.rs` and `src/a/b/mod.rs` are `a::b`. A path names the longest
//! module it starts with; the crate roots (`lib.rs`, `main.rs`) re-export everything and are left
//! out, and so is what follows `#[cfg(test)]` before a `mod`, the file's tests.

mod graph;
mod paths;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io;
use std::path::Path;

pub use graph::cycles;

/// Each module of the crate whose sources are in `src`, with the modules it imports.
pub type Imports = BTreeMap<String, BTreeSet<String>>;

/// The imports between the files of the crate whose sources are in `src`.
pub fn imports(src: &Path) -> io::Result<Imports> {
    let mut texts = BTreeMap::new();
    read_modules(src, src, &mut texts)?;
    let modules: BTreeSet<String> = texts.keys().cloned().collect();
    let mut out = Imports::new();
    for (module, text) in &texts {
        let targets = paths::imported(module, text)
            .into_iter()
            .filter_map(|path| longest_module(&path, &modules))
            .filter(|target| target != module)
            .collect();
        out.insert(module.clone(), targets);
    }
    Ok(out)
}

fn longest_module(path: &[String], modules: &BTreeSet<String>) -> Option<String> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].join("::"))
        .find(|candidate| modules.contains(candidate))
}

fn read_modules(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            read_modules(root, &path, out)?;
        } else if path.extension().is_some_and(|ext| ext == "rs")
            && let Some(module) = module_of(root, &path)
        {
            out.insert(module, fs::read_to_string(&path)?);
        }
    }
    Ok(())
}

/// `a::b` for `src/a/b.rs` or `src/a/b/mod.rs`; `None` for a crate root.
fn module_of(root: &Path, file: &Path) -> Option<String> {
    let relative = file.strip_prefix(root).ok()?.with_extension("");
    let mut parts: Vec<String> = relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|last| last == "mod") {
        parts.pop();
    }
    let root_file = parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main");
    (!root_file && !parts.is_empty()).then(|| parts.join("::"))
}
