//! A calendar's events found one at a time as the file streams in: each `VEVENT`'s lines (as
//! written, folded lines included) are handed on as soon as its `END:VEVENT` is read, with its
//! `UID` and whether it is an override (`RECURRENCE-ID`). Only the event being read is held.
//! The calendar's own `X-WR-CALNAME` (outside any component) is noted on the way, and its
//! time-zone definitions (`VTIMEZONE`, a few lines each) are kept.

use std::io::BufRead;

use super::super::ImportError;

/// One event's lines, and what the reading of its siblings needs to know of it.
pub(super) struct Block {
    /// Its lines as written after `BEGIN:VEVENT`, up to and with `END:VEVENT`, each ending in
    /// CRLF.
    pub text: String,
    /// The `UID`, unfolded and trimmed; `None` when it has none (or an empty one).
    pub uid: Option<String>,
    /// It has a `RECURRENCE-ID`: it replaces one occurrence of the event of its `UID`.
    pub is_override: bool,
    /// Components nest inside it deeper than [`MAX_NESTING`]: the parser would recurse until
    /// the stack ran out, so it is skipped unread.
    pub too_deep: bool,
}

/// How deep components may nest inside an event: an alarm in an event is 1; 10,000 nested
/// alarms are an attack, not a calendar.
pub(super) const MAX_NESTING: usize = 8;

/// What the calendar says outside its events.
#[derive(Default)]
pub(super) struct Top {
    pub calname: Option<String>,
    /// Each `VTIMEZONE`'s logical lines (unfolded), from `BEGIN:VTIMEZONE` to its end.
    pub timezones: Vec<Vec<String>>,
    /// The `VTIMEZONE` being read.
    open_zone: Option<Vec<String>>,
}

/// A logical line's property name (before `;` or `:`), upper-cased, and its value.
fn property(line: &str) -> (String, &str) {
    let name_end = line.find([';', ':']).unwrap_or(line.len());
    let value = line.find(':').map_or("", |colon| &line[colon + 1..]);
    (line[..name_end].trim().to_ascii_uppercase(), value)
}

/// Reads `input` to its end, handing each event to `block`; it answers `false` to stop.
///
/// # Errors
/// [`ImportError::Header`] when the file does not begin with `BEGIN:VCALENDAR`;
/// [`ImportError::Read`] when it cannot be read or is not UTF-8.
pub(super) fn scan<R: BufRead>(
    mut input: R,
    block: &mut dyn FnMut(Block) -> Result<bool, ImportError>,
) -> Result<Top, ImportError> {
    let not_a_calendar = || {
        ImportError::Header(
            "not an iCalendar file: expected BEGIN:VCALENDAR and lines of NAME:VALUE".to_owned(),
        )
    };
    let mut top = Top::default();
    let mut raw = Vec::new();
    // The logical line being put together from its folded pieces, and the event being read
    // (`None` outside an event).
    let mut logical = String::new();
    let mut event: Option<Block> = None;
    // Components opened inside the event (alarms): their UID is not the event's.
    let mut nested = 0usize;
    let mut started = false;
    loop {
        raw.clear();
        let n = input
            .read_until(b'\n', &mut raw)
            .map_err(|e| ImportError::Read(format!("cannot read the calendar: {e}")))?;
        let physical = std::str::from_utf8(&raw)
            .map_err(|_| ImportError::Read("the calendar is not UTF-8 text".to_owned()))?;
        let bare = physical.trim_end_matches(['\r', '\n']);
        if n > 0 && physical.starts_with([' ', '\t']) {
            logical.push_str(&bare[1..]);
        } else {
            // The logical line before this one is complete: act on it.
            if started {
                let line = std::mem::take(&mut logical);
                if !on_line(&line, &mut event, &mut nested, &mut top, block)? {
                    return Ok(top);
                }
            }
            if n == 0 {
                break;
            }
            logical = bare.to_owned();
            if !started {
                let head = bare.trim_start_matches('\u{feff}').trim();
                if !head.eq_ignore_ascii_case("BEGIN:VCALENDAR") {
                    return Err(not_a_calendar());
                }
                started = true;
            }
        }
        // Every line after BEGIN:VEVENT up to its END:VEVENT (none of an event too deep to
        // read: it is skipped).
        if let Some(event) = event.as_mut().filter(|e| !e.too_deep) {
            event.text.push_str(bare);
            event.text.push_str("\r\n");
        }
    }
    if !started {
        return Err(not_a_calendar());
    }
    Ok(top)
}

/// One complete logical line: opens, fills or closes the event being read.
fn on_line(
    line: &str,
    event: &mut Option<Block>,
    nested: &mut usize,
    top: &mut Top,
    block: &mut dyn FnMut(Block) -> Result<bool, ImportError>,
) -> Result<bool, ImportError> {
    let (name, value) = property(line);
    let value = value.trim();
    if event.is_none() && zone_line(top, &name, value, line) {
        return Ok(true);
    }
    match (event.as_mut(), name.as_str()) {
        (None, "BEGIN") if value.eq_ignore_ascii_case("VEVENT") => {
            *event = Some(Block {
                text: String::new(),
                uid: None,
                is_override: false,
                too_deep: false,
            });
            *nested = 0;
        }
        (None, "X-WR-CALNAME") => top.calname = Some(value.to_owned()),
        (Some(open), "BEGIN") => {
            *nested += 1;
            open.too_deep |= *nested > MAX_NESTING;
        }
        (Some(_), "END") if *nested > 0 => *nested -= 1,
        (Some(_), "END") if value.eq_ignore_ascii_case("VEVENT") => {
            if let Some(done) = event.take() {
                return block(done);
            }
        }
        (Some(open), "UID") if *nested == 0 => {
            open.uid = Some(value.to_owned()).filter(|u| !u.is_empty());
        }
        (Some(open), "RECURRENCE-ID") if *nested == 0 => open.is_override = true,
        _ => {}
    }
    Ok(true)
}

/// A line of a `VTIMEZONE` outside any event, kept in `top`; `false` for any other line.
fn zone_line(top: &mut Top, name: &str, value: &str, line: &str) -> bool {
    if name == "BEGIN" && value.eq_ignore_ascii_case("VTIMEZONE") {
        top.open_zone = Some(vec![line.to_owned()]);
        return true;
    }
    let Some(open) = top.open_zone.as_mut() else {
        return false;
    };
    open.push(line.to_owned());
    if name == "END" && value.eq_ignore_ascii_case("VTIMEZONE") {
        top.timezones.extend(top.open_zone.take());
    }
    true
}
