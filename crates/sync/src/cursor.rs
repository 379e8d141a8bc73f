//! The live ActivityWatch import's cursor: the end of the last hour it sent, in a small JSON
//! state file (`{"imported_until": "2026-03-16T10:00:00Z"}`), so that each run starts where
//! the last one stopped. A run also records where the first run started (`imported_from`,
//! below which the re-reading of late events never goes) and the hours it read last
//! (`last_read`: `{"from", "to"}`), for whoever looks at the file ([`State`]). Written as a temporary file beside it and renamed over it: a run
//! killed mid-write leaves the old cursor or the new one, never half of one.
//!
//! The default path is `$XDG_STATE_HOME/discovery-sync/activitywatch-<host>-<port>.json`
//! (`~/.local/state/...` when `XDG_STATE_HOME` is unset), one file per aw-server.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::Failure;

/// The state file of the live import of the aw-server at `server`, under the XDG state
/// directory; `None` when neither `XDG_STATE_HOME` nor `HOME` is set.
#[must_use]
pub fn default_path(server: &url::Url) -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|d| !d.is_empty())
                .map(|home| PathBuf::from(home).join(".local/state"))
        })?;
    let host: String = server
        .host_str()
        .unwrap_or("server")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let port = server.port_or_known_default().unwrap_or(0);
    Some(state.join(format!("discovery-sync/activitywatch-{host}-{port}.json")))
}

/// What a state file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct State {
    /// The end of the last hour sent.
    pub imported_until: OffsetDateTime,
    /// Where the first run started; `None` in a file written before it was recorded.
    pub imported_from: Option<OffsetDateTime>,
    /// The hours the last run read, `[from, to)`.
    pub last_read: Option<(OffsetDateTime, OffsetDateTime)>,
}

/// The cursor in `path`; `None` when the file does not exist yet (the first run).
///
/// # Errors
/// A file that cannot be read or does not hold a cursor: named, with what to do.
pub fn read(path: &Path) -> Result<Option<OffsetDateTime>, Failure> {
    Ok(read_state(path)?.map(|state| state.imported_until))
}

/// The whole state in `path`; `None` when the file does not exist yet.
///
/// # Errors
/// As [`read`].
pub fn read_state(path: &Path) -> Result<Option<State>, Failure> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(Failure::Failed(format!(
                "cannot read the state file {}: {e}",
                path.display()
            )));
        }
    };
    let json = serde_json::from_str::<Value>(&text).unwrap_or_default();
    let time = |v: &Value| {
        v.as_str()
            .and_then(|t| OffsetDateTime::parse(t, &Rfc3339).ok())
    };
    time(&json["imported_until"])
        .map(|imported_until| {
            Some(State {
                imported_until,
                imported_from: time(&json["imported_from"]),
                last_read: time(&json["last_read"]["from"]).zip(time(&json["last_read"]["to"])),
            })
        })
        .ok_or_else(|| {
            Failure::Failed(format!(
                "the state file {} holds no readable \"imported_until\" (fix it, or delete it \
                 and pass --since to choose where to start)",
                path.display()
            ))
        })
}

/// Writes `until` to `path` atomically (a temporary file in the same directory, renamed over
/// it), creating the directory if needed.
///
/// # Errors
/// The directory or file cannot be written.
pub fn write(path: &Path, until: OffsetDateTime) -> Result<(), Failure> {
    write_state(
        path,
        &State {
            imported_until: until,
            imported_from: None,
            last_read: None,
        },
    )
}

/// Writes `state` to `path` as [`write`] does (the fields that are `None` left out).
///
/// # Errors
/// As [`write`].
pub fn write_state(path: &Path, state: &State) -> Result<(), Failure> {
    let fail = |e: std::io::Error| {
        Failure::Failed(format!(
            "cannot write the state file {}: {e}",
            path.display()
        ))
    };
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(fail)?;
    let stamp = |at: OffsetDateTime| {
        at.to_offset(time::UtcOffset::UTC)
            .format(&Rfc3339)
            .unwrap_or_default()
    };
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(format!(".{}.tmp", std::process::id()));
    let temporary = PathBuf::from(temporary);
    let mut body = json!({ "imported_until": stamp(state.imported_until) });
    if let Some(from) = state.imported_from {
        body["imported_from"] = json!(stamp(from));
    }
    if let Some((from, to)) = state.last_read {
        body["last_read"] = json!({"from": stamp(from), "to": stamp(to)});
    }
    let body = format!("{body}\n");
    // Flushed to disk before the rename, so a crash cannot leave the new name on empty data.
    std::fs::File::create(&temporary)
        .and_then(|mut file| {
            std::io::Write::write_all(&mut file, body.as_bytes())?;
            file.sync_all()
        })
        .and_then(|()| std::fs::rename(&temporary, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&temporary);
            fail(e)
        })
}
