//! Reading Timewarrior: the JSON of `timew export`, from a file, from stdin, or by running
//! `timew export [range...]` as a child process.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

use serde::Deserialize;
use time::macros::format_description;
use time::{OffsetDateTime, PrimitiveDateTime};

use crate::Failure;

/// One interval as `timew export` writes it; times are UTC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interval {
    pub start: OffsetDateTime,
    /// `None` while the interval is still being tracked (`timew start` without `stop`).
    pub end: Option<OffsetDateTime>,
    pub tags: Vec<String>,
}

// Fields we do not use (`id`, `annotation`) are ignored rather than refused: newer Timewarrior
// versions may add more.
#[derive(Debug, Deserialize)]
struct RawInterval {
    start: String,
    end: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
}

/// `20261121T090000Z`, the only form `timew export` writes.
///
/// # Errors
/// When `text` is not in that form.
pub fn parse_time(text: &str) -> Result<OffsetDateTime, String> {
    let format = format_description!("[year][month][day]T[hour][minute][second]Z");
    PrimitiveDateTime::parse(text, format)
        .map(PrimitiveDateTime::assume_utc)
        .map_err(|e| format!("bad time {text:?} ({e})"))
}

/// Parses the output of `timew export`.
///
/// # Errors
/// [`Failure::Failed`] when it is not a JSON array of intervals with valid times.
pub fn parse_export(json: &str) -> Result<Vec<Interval>, Failure> {
    let raw: Vec<RawInterval> = serde_json::from_str(json).map_err(|e| {
        let start: String = json.trim().chars().take(60).collect();
        Failure::Failed(format!(
            "the Timewarrior export is not a JSON list of intervals ({e}); it starts with {start:?}"
        ))
    })?;
    raw.into_iter()
        .enumerate()
        .map(|(i, r)| {
            let bad = |e: String| Failure::Failed(format!("interval {}: {e}", i + 1));
            Ok(Interval {
                start: parse_time(&r.start).map_err(bad)?,
                end: r.end.as_deref().map(parse_time).transpose().map_err(bad)?,
                tags: r.tags,
            })
        })
        .collect()
}

/// Where the export comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source<'a> {
    /// `-`: standard input.
    Stdin,
    /// A file holding a saved export.
    File(&'a Path),
    /// Run `<program> export <range...>`.
    Run {
        program: &'a str,
        range: &'a [String],
    },
}

/// Reads the export text from `source`.
///
/// # Errors
/// [`Failure::Failed`] when the file or stdin cannot be read, when `timew` is not installed,
/// or when it exits unsuccessfully (its stderr is quoted).
pub fn read(source: &Source<'_>) -> Result<String, Failure> {
    match source {
        Source::Stdin => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| Failure::Failed(format!("cannot read the export from stdin: {e}")))?;
            Ok(text)
        }
        Source::File(path) => std::fs::read_to_string(path).map_err(|e| {
            Failure::Failed(format!("cannot read the export {}: {e}", path.display()))
        }),
        Source::Run { program, range } => run(program, range),
    }
}

fn run(program: &str, range: &[String]) -> Result<String, Failure> {
    // stdin is closed: on a machine without a database timew asks "Create new database?" and
    // must not wait for an answer that never comes.
    let output = Command::new(program)
        .arg("export")
        .args(range)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Failure::Failed(format!(
                    "{program} was not found: install Timewarrior (apt-get install timewarrior) \
                     or pass a saved export with --input FILE"
                ))
            } else {
                Failure::Failed(format!("cannot run {program}: {e}"))
            }
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(Failure::Failed(format!(
            "`{program} export{}` failed ({}): {}",
            range.iter().map(|r| format!(" {r}")).collect::<String>(),
            output.status,
            stderr.trim()
        )));
    }
    String::from_utf8(output.stdout).map_err(|_| {
        Failure::Failed(format!(
            "{program} export wrote something that is not UTF-8"
        ))
    })
}
