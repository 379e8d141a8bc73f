//! The one JSON summary line a run prints last on stdout, and the exit code that goes with it:
//! 0 ok, 1 failed, 2 bad usage (the [`Failure`] decides).

use serde_json::{Value, json};

use crate::Failure;

/// Prints `{"command": ..., "ok": ..., <fields>, "error"?: ...}` and gives the exit code.
/// `command` is `None` when the command line did not name one.
#[must_use]
pub fn finish(command: Option<&str>, fields: &Value, failure: Option<&Failure>) -> u8 {
    let mut line = json!({"command": command, "ok": failure.is_none()});
    if let (Some(line), Value::Object(fields)) = (line.as_object_mut(), fields) {
        line.extend(fields.clone());
    }
    if let Some(failure) = failure {
        line["error"] = json!(failure.message());
    }
    println!("{line}");
    failure.map_or(0, Failure::exit_code)
}
