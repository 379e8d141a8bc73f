//! A calendar's own zone definition (`VTIMEZONE`, RFC 5545 3.6.5) as a zone with its rules:
//! the `STANDARD` and `DAYLIGHT` observances in force (the latest `DTSTART` of each kind; one
//! whose `RRULE` has an `UNTIL` has ended, and is used only when no other of its kind is left)
//! become a POSIX TZ rule (`STD5DST,M3.2.0/2,M11.1.0/2`), which jiff applies on every date.
//!
//! An observance repeats yearly on a month's n-th (or last) weekday (`BYMONTH=3;BYDAY=2SU`, or
//! `BYDAY=SU;BYMONTHDAY=8,9,...,14` as older programs write it), at its `DTSTART`'s clock in
//! the offset before the change (`TZOFFSETFROM`): POSIX's own convention. A zone without a
//! `DAYLIGHT` observance, or whose observances do not repeat, keeps its `STANDARD` offset. A
//! rule of another shape is refused with why, and the `TZID` is then looked up elsewhere
//! ([`super::tzid`]). Past rules (a zone that changed its dates in 2007) are not kept: the
//! file's meetings are recent.

use std::collections::HashMap;

use jiff::tz::TimeZone;

use crate::zone::Zone;

/// One `STANDARD` or `DAYLIGHT` block.
#[derive(Debug, Default, Clone)]
struct Observance {
    daylight: bool,
    /// `DTSTART` as written, `YYYYMMDDTHHMMSS`: sorts as it reads.
    start: String,
    offset_to: Option<i32>,
    rule: Option<String>,
}

/// Every `VTIMEZONE` of the file (each as its logical lines) by `TZID`: its zone, or why not.
pub(super) fn table(blocks: &[Vec<String>]) -> HashMap<String, Result<Zone, String>> {
    blocks
        .iter()
        .filter_map(|lines| {
            let tzid = lines
                .iter()
                .find_map(|l| property(l).filter(|(n, _)| n == "TZID").map(|(_, v)| v))?;
            let tzid = tzid.trim().to_owned();
            let zone = zone(&tzid, lines);
            Some((tzid, zone))
        })
        .collect()
}

/// A logical line's name, upper-cased, and its value.
fn property(line: &str) -> Option<(String, &str)> {
    let colon = line.find(':')?;
    let name_end = line.find([';', ':']).unwrap_or(colon);
    Some((
        line[..name_end].trim().to_ascii_uppercase(),
        &line[colon + 1..],
    ))
}

/// The zone one `VTIMEZONE` defines.
fn zone(tzid: &str, lines: &[String]) -> Result<Zone, String> {
    let observances = observances(lines)?;
    let standard = in_force(&observances, false).ok_or("no STANDARD offset")?;
    let std_offset = standard.offset_to.ok_or("a STANDARD without TZOFFSETTO")?;
    let mut posix = format!("STD{}", posix_offset(std_offset));
    let daylight = in_force(&observances, true);
    if let (Some(daylight), Some(std_rule)) = (daylight, standard.rule.as_deref()) {
        let dst_offset = daylight.offset_to.ok_or("a DAYLIGHT without TZOFFSETTO")?;
        let dst_rule = daylight
            .rule
            .as_deref()
            .ok_or("a DAYLIGHT that does not repeat")?;
        posix = format!(
            "{posix}DST{},{},{}",
            posix_offset(dst_offset),
            transition(dst_rule, &daylight.start)?,
            transition(std_rule, &standard.start)?
        );
    }
    let rules = TimeZone::posix(&posix).map_err(|e| format!("rules {posix:?}: {e}"))?;
    Ok(Zone::Named {
        name: tzid.to_owned(),
        zone: rules,
    })
}

fn observances(lines: &[String]) -> Result<Vec<Observance>, String> {
    let mut all = Vec::new();
    let mut open: Option<Observance> = None;
    for line in lines {
        let Some((name, value)) = property(line) else {
            continue;
        };
        let value = value.trim();
        match (name.as_str(), open.as_mut()) {
            ("BEGIN", None) if value.eq_ignore_ascii_case("STANDARD") => {
                open = Some(Observance::default());
            }
            ("BEGIN", None) if value.eq_ignore_ascii_case("DAYLIGHT") => {
                open = Some(Observance {
                    daylight: true,
                    ..Observance::default()
                });
            }
            ("END", Some(_)) => all.extend(open.take()),
            ("DTSTART", Some(o)) => o.start = value.to_owned(),
            ("RRULE", Some(o)) => o.rule = Some(value.to_ascii_uppercase()),
            ("TZOFFSETTO", Some(o)) => o.offset_to = Some(offset(value)?),
            _ => {}
        }
    }
    Ok(all)
}

/// The observance of a kind in force: the latest start among those whose rule has not ended,
/// else the latest of all.
fn in_force(all: &[Observance], daylight: bool) -> Option<&Observance> {
    let kind = || all.iter().filter(move |o| o.daylight == daylight);
    let ended = |o: &&Observance| o.rule.as_deref().is_some_and(|r| r.contains("UNTIL="));
    kind()
        .filter(|o| !ended(o))
        .max_by(|a, b| a.start.cmp(&b.start))
        .or_else(|| kind().max_by(|a, b| a.start.cmp(&b.start)))
}

/// `-0500`, `+0530`, `+053000` in seconds east of UTC.
fn offset(text: &str) -> Result<i32, String> {
    let bad = || format!("bad TZOFFSETTO {text:?} (expected e.g. -0500)");
    let (sign, digits) = match text.split_at_checked(1) {
        Some(("+", rest)) => (1, rest),
        Some(("-", rest)) => (-1, rest),
        _ => return Err(bad()),
    };
    if !matches!(digits.len(), 4 | 6) || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let part = |r: std::ops::Range<usize>| digits.get(r).map_or(Ok(0), str::parse::<i32>);
    let seconds = part(0..2).map_err(|_| bad())? * 3_600
        + part(2..4).map_err(|_| bad())? * 60
        + part(4..6).map_err(|_| bad())?;
    Ok(sign * seconds)
}

/// POSIX writes the offset west of UTC: `+0530` is `-5:30:00`.
fn posix_offset(east: i32) -> String {
    let west = -east;
    let sign = if west < 0 { '-' } else { '+' };
    let west = west.unsigned_abs();
    format!(
        "{sign}{}:{:02}:{:02}",
        west / 3_600,
        west / 60 % 60,
        west % 60
    )
}

/// `FREQ=YEARLY;BYMONTH=3;BYDAY=2SU` with `DTSTART` `16010101T020000` as POSIX's
/// `M3.2.0/02:00:00`.
fn transition(rule: &str, start: &str) -> Result<String, String> {
    let bad = || format!("an RRULE of a shape not read here: {rule:?}");
    let parts: HashMap<&str, &str> = rule.split(';').filter_map(|p| p.split_once('=')).collect();
    if parts.get("FREQ") != Some(&"YEARLY") {
        return Err(bad());
    }
    let month: u8 = parts
        .get("BYMONTH")
        .and_then(|m| m.parse().ok())
        .filter(|m| (1..=12).contains(m))
        .ok_or_else(bad)?;
    let by_day = parts.get("BYDAY").ok_or_else(bad)?;
    let day_name = by_day
        .get(by_day.len().saturating_sub(2)..)
        .ok_or_else(bad)?;
    let weekday = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"]
        .iter()
        .position(|d| *d == day_name)
        .ok_or_else(bad)?;
    let week = match &by_day[..by_day.len() - 2] {
        "" => {
            // BYDAY=SU;BYMONTHDAY=8,9,10,11,12,13,14: the second Sunday.
            let first: u8 = parts
                .get("BYMONTHDAY")
                .and_then(|d| d.split(',').filter_map(|d| d.parse().ok()).min())
                .ok_or_else(bad)?;
            if first % 7 != 1 {
                return Err(bad());
            }
            first / 7 + 1
        }
        "-1" => 5,
        n => n
            .trim_start_matches('+')
            .parse::<u8>()
            .ok()
            .filter(|n| (1..=4).contains(n))
            .ok_or_else(bad)?,
    };
    let clock = start
        .split_once(['T', 't'])
        .map(|(_, c)| c.trim_end_matches(['Z', 'z']))
        .filter(|c| c.len() == 6 && c.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| format!("bad DTSTART {start:?} (expected e.g. 16010101T020000)"))?;
    Ok(format!(
        "M{month}.{week}.{weekday}/{}:{}:{}",
        &clock[..2],
        &clock[2..4],
        &clock[4..]
    ))
}
