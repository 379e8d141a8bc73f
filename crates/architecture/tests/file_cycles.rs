//! No two files of a crate import each other, directly or around a longer loop: every crate
//! of the workspace is read, and a cycle fails the test with the imports that make it.

use std::fs;
use std::path::Path;

#[test]
fn no_crate_has_an_import_cycle_between_its_files() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut report = String::new();
    let mut read = 0;
    for entry in fs::read_dir(&crates).unwrap() {
        let dir = entry.unwrap().path();
        let src = dir.join("src");
        if !src.is_dir() {
            continue;
        }
        read += 1;
        let imports = architecture::imports(&src).unwrap();
        for group in architecture::cycles(&imports) {
            let name = dir.file_name().unwrap().to_string_lossy();
            report.push_str(&format!("crates/{name}: {}\n", group.join(", ")));
            for a in &group {
                for b in imports[a].iter().filter(|b| group.contains(b)) {
                    report.push_str(&format!("    {a} -> {b}\n"));
                }
            }
        }
    }
    assert!(
        read > 10,
        "read only {read} crates under {}",
        crates.display()
    );
    assert!(report.is_empty(), "import cycles between files:\n{report}");
}

/// The check finds a cycle made of `use crate::…` trees, `super::` paths and paths in code,
/// and leaves out the crate root and a file's tests.
#[test]
fn a_cycle_between_files_is_found() {
    let src = std::env::temp_dir().join(format!("architecture-{}", std::process::id()));
    let write = |file: &str, text: &str| {
        let path = src.join(file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    };
    write("lib.rs", "pub mod a;\npub mod b;\npub use a::A;\n");
    write(
        "a/mod.rs",
        "//! use crate::c::C;\nuse crate::{b::{self as bee, B}, x};\n",
    );
    write("a/inner.rs", "fn f() { super::super::b::g(); }\n");
    write("b.rs", "pub fn g() { crate::a::inner::f() }\n");
    write(
        "c.rs",
        "#[cfg(test)]\nmod tests {\n    use crate::a::A;\n}\n",
    );
    let imports = architecture::imports(&src).unwrap();
    fs::remove_dir_all(&src).unwrap();
    assert_eq!(
        architecture::cycles(&imports),
        vec![vec!["a::inner".to_owned(), "b".to_owned()]]
    );
    assert!(
        imports["a"].contains("b") && imports["c"].is_empty(),
        "{imports:?}"
    );
}
