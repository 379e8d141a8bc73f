//! What a `TZID` names, in this order: an IANA zone (also as some programs write it,
//! `/mozilla.org/20070129_1/Europe/Berlin`, quoted); else the file's own `VTIMEZONE` of that
//! `TZID` (its rules, [`super::vtimezone`]); else a Windows zone name (`Eastern Standard Time`,
//! as Outlook writes it) by CLDR's Windows-to-IANA table (its world-wide default, territory
//! `001`, from the `localzone` crate); else nothing, and the event is skipped naming the zone.
//!
//! The file's definition comes before CLDR's table because it is what the program that wrote
//! the file meant, rules included (a custom zone, or an old Outlook display name such as
//! `(UTC-05:00) Eastern Time (US & Canada)` that no table holds).

use std::collections::HashMap;
use std::rc::Rc;

use crate::zone::Zone;

/// The zones a calendar's local times can be in.
#[derive(Debug, Clone)]
pub(super) struct Zones {
    /// The zone of floating times and all-day dates (`--timezone`).
    pub floating: Zone,
    /// The file's `VTIMEZONE`s by `TZID`: the zone, or why its rules could not be read.
    pub defined: Rc<HashMap<String, Result<Zone, String>>>,
}

impl Zones {
    /// The same definitions, with `zone` for the floating times: an event's other times
    /// (`DTEND`, `EXDATE`, ...) without a `TZID` are in its start's zone.
    pub(super) fn floating_in(&self, zone: Zone) -> Self {
        Self {
            floating: zone,
            defined: Rc::clone(&self.defined),
        }
    }

    /// The zone `tzid` names (see the module).
    ///
    /// # Errors
    /// A message naming the zone, and why the file's own definition of it was not used.
    pub(super) fn named(&self, tzid: &str) -> Result<Zone, String> {
        let name = tzid.trim().trim_matches('"');
        if let Some(zone) = iana(name) {
            return Ok(zone);
        }
        let defined = self
            .defined
            .get(tzid.trim())
            .or_else(|| self.defined.get(name));
        if let Some(Ok(zone)) = defined {
            return Ok(zone.clone());
        }
        if let Some(zone) =
            localzone::win_zone_to_iana(name, Some("001")).and_then(|iana| Zone::named(iana).ok())
        {
            return Ok(zone);
        }
        let own = match defined {
            Some(Err(why)) => format!("the file's VTIMEZONE of it cannot be read ({why})"),
            _ => "no VTIMEZONE in the file defines it".to_owned(),
        };
        Err(format!(
            "unknown TZID {name:?}: not an IANA zone such as Europe/Berlin, {own}, and not a \
             Windows zone name"
        ))
    }
}

/// `name` as an IANA zone, or its last two or three path segments (`Europe/Berlin`,
/// `America/Argentina/Salta`).
fn iana(name: &str) -> Option<Zone> {
    Zone::named(name).ok().or_else(|| {
        let parts: Vec<&str> = name.split('/').filter(|p| !p.is_empty()).collect();
        (2..=3)
            .filter_map(|n| {
                parts
                    .len()
                    .checked_sub(n)
                    .map(|from| parts[from..].join("/"))
            })
            .find_map(|candidate| Zone::named(&candidate).ok())
    })
}
