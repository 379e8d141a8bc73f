//! The one JSON summary line a run prints last on stdout, the same failure in words on stderr
//! (where a person or a timer's journal looks), and the exit code that goes with them:
//! [`EXIT_CODES`].

use serde_json::{Value, json};

use crate::Failure;

/// Everything imported (or nothing to import).
pub const OK: u8 = 0;
/// Imported, but some rows were skipped (within `--max-skipped`): the skipped ones are named
/// on stderr. Not 0, so that a timer sees it.
pub const SKIPPED_ROWS: u8 = 3;

/// The exit codes, as `--help` shows them.
pub const EXIT_CODES: &str = "\
Exit codes:
  0  everything was imported (or there was nothing new to import)
  1  failed: nothing, or only part, was sent (the error is on stderr and in the summary)
  2  bad usage: a flag, the mapping file, the API key or the file's date order or people
  3  imported, but some rows were skipped (each named on stderr; --skipped-file lists them)

Errors and warnings go to stderr, in words; stdout ends with one JSON summary line.";

/// Prints `{"command": ..., "ok": ..., <fields>, "error"?: ...}` and gives the exit code:
/// the failure's, else [`SKIPPED_ROWS`] when rows of the file were skipped as malformed
/// (`skipped_rows`; not Timewarrior's intervals mapped to `skip`, which are meant), else
/// [`OK`]. `command` is `None` when the command line did not name one.
#[must_use]
pub fn finish(
    command: Option<&str>,
    fields: &Value,
    skipped_rows: usize,
    failure: Option<&Failure>,
) -> u8 {
    let mut line = json!({"command": command, "ok": failure.is_none()});
    if let (Some(line), Value::Object(fields)) = (line.as_object_mut(), fields) {
        line.extend(fields.clone());
    }
    if let Some(failure) = failure {
        line["error"] = json!(failure.message());
    }
    println!("{line}");
    match failure {
        Some(failure) => failure.exit_code(),
        None if skipped_rows > 0 => SKIPPED_ROWS,
        None => OK,
    }
}

/// The failure in words on stderr, for a person or a journal: `error: <message>`.
pub fn tell(failure: &Failure) {
    eprintln!("error: {}", failure.message());
}
