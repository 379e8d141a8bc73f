//! The checked-in copy of the document, `docs/openapi.json`: the exact reference beside
//! `docs/api.md`, compared here with the document the code builds (and `/openapi.json` serves)
//! so the two cannot drift. `UPDATE_OPENAPI=1` rewrites it (`just openapi`).

/// Where the copy lives, from this crate.
const CHECKED_IN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/openapi.json");

/// The one command that rewrites the copy.
const REGENERATE: &str = "UPDATE_OPENAPI=1 cargo test -p api-actix --lib openapi::checked_in";

/// The document as the copy holds it: pretty-printed, with a final newline.
fn rendered() -> String {
    let mut json = super::document()
        .to_pretty_json()
        .expect("the document serializes");
    json.push('\n');
    json
}

#[test]
fn docs_openapi_json_is_the_document_the_code_builds() {
    let built = rendered();
    if std::env::var("UPDATE_OPENAPI").is_ok_and(|v| v == "1") {
        std::fs::write(CHECKED_IN, &built).expect("docs/openapi.json is writable");
        return;
    }
    let checked_in = std::fs::read_to_string(CHECKED_IN)
        .unwrap_or_else(|e| panic!("{CHECKED_IN}: {e}; write it with `{REGENERATE}`"));
    if checked_in != built {
        let first = checked_in
            .lines()
            .zip(built.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| checked_in.lines().count().min(built.lines().count()));
        panic!(
            "docs/openapi.json differs from the document the code builds, first at line {} \
             (checked in: {:?}, built: {:?}); if the change is meant, regenerate it with \
             `{REGENERATE}` (or `just openapi`) and commit it",
            first + 1,
            checked_in.lines().nth(first).unwrap_or("<end>"),
            built.lines().nth(first).unwrap_or("<end>"),
        );
    }
}
