//! `.env.example` against the code: each setting the service reads is in it with the default its
//! reading names, and each is in README's settings table; a docs table that states a default
//! (the rate limits', whose reasons need the numbers) states the code's. `UPDATE_ENV_EXAMPLE=1`
//! rewrites the file's values (`just env-example`); its comments are written by hand.

use settings::catalogue::{self, UNDESCRIBED};

/// Where the file lives, from this crate.
const ENV_EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../.env.example");
const README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
const DOCS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs");

/// The one command that rewrites the file.
const REGENERATE: &str = "UPDATE_ENV_EXAMPLE=1 cargo test -p settings --test env_example";

#[test]
fn env_example_holds_every_setting_with_the_default_the_code_reads() {
    let settings = catalogue::service_settings().unwrap();
    let current = std::fs::read_to_string(ENV_EXAMPLE).unwrap();
    let rendered = catalogue::env_example(&current, &settings);
    if std::env::var("UPDATE_ENV_EXAMPLE").is_ok_and(|v| v == "1") {
        std::fs::write(ENV_EXAMPLE, &rendered).expect(".env.example is writable");
    } else if rendered != current {
        let differences: Vec<String> = diff(&current, &rendered);
        panic!(
            ".env.example differs from the settings the code reads ({}); if the change is \
             meant, rewrite it with `{REGENERATE}` (or `just env-example`), describe any new \
             setting, and commit it",
            differences.join("; ")
        );
    }
    // What the file holds now: `rendered` when rewritten, else the same as `current`.
    assert!(
        !rendered.contains(UNDESCRIBED),
        ".env.example lists a setting nobody has described yet: move it to its section, under \
         a comment saying what it does"
    );
}

#[test]
fn readme_names_every_setting() {
    let readme = std::fs::read_to_string(README).unwrap();
    let missing: Vec<String> = catalogue::service_settings()
        .unwrap()
        .into_iter()
        .map(|s| s.name)
        .filter(|name| !readme.contains(&format!("`{name}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "README.md's settings table lacks {missing:?}: a row each, saying what it does (its \
         default is in .env.example)"
    );
}

#[test]
fn a_default_stated_in_a_docs_table_is_the_one_the_code_reads() {
    let settings = catalogue::service_settings().unwrap();
    let mut files = vec![std::path::PathBuf::from(README)];
    for entry in std::fs::read_dir(DOCS).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    let mut checked = 0;
    let mut wrong = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (name, stated) in stated_defaults(&text) {
            let Some(default) = settings
                .iter()
                .find(|s| s.name == name)
                .and_then(|s| s.default.clone())
            else {
                continue;
            };
            checked += 1;
            if stated.replace(',', "") != default {
                wrong.push(format!(
                    "{}: {name} {stated} (the code: {default})",
                    file.display()
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "defaults that are not the code's: {wrong:?}"
    );
    assert!(
        checked >= 8,
        "the rate limits' table states its defaults: {checked} found"
    );
}

/// `(NAME, cell)` of each row of a markdown table with a `default` column whose first cell is
/// one setting, `` `NAME` ``.
fn stated_defaults(text: &str) -> Vec<(String, String)> {
    let cells = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_owned())
            .collect()
    };
    let mut found = Vec::new();
    let mut column = None;
    for line in text.lines() {
        if !line.starts_with('|') {
            column = None;
            continue;
        }
        let row = cells(line);
        match column {
            None => column = row.iter().position(|c| c == "default"),
            Some(at) => {
                let name = row[0].trim_matches('`');
                let one_name = row[0].starts_with('`') && !name.contains('`');
                if one_name && let Some(cell) = row.get(at) {
                    found.push((name.to_owned(), cell.trim_matches('`').to_owned()));
                }
            }
        }
    }
    found
}

/// The lines only one side has, as `-old` and `+new`.
fn diff(current: &str, rendered: &str) -> Vec<String> {
    let old: Vec<&str> = current.lines().collect();
    let new: Vec<&str> = rendered.lines().collect();
    let gone = old
        .iter()
        .filter(|l| !new.contains(l))
        .map(|l| format!("-{l}"));
    let added = new
        .iter()
        .filter(|l| !old.contains(l))
        .map(|l| format!("+{l}"));
    gone.chain(added).collect()
}
