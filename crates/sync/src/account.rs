//! The person's zone when the command line gives none: the account's, read from the service.
//!
//! The service keeps one time zone per person (docs/api.md, "Weeks and the person's time
//! zone"). `GET /api/me/settings` holds it but is for a signed-in person only, never a
//! personal key (its policy is "signed in"); `GET /integration/work-patterns` answers the same
//! `time_zone` under the `integration` scope, the scope every key of discovery-sync already
//! needs, so the zone is read there (one day's window, the cheapest) and no key needs more.
//! When it cannot be read (no key in a dry run, the service unreachable, an old service), the
//! zone is UTC and a warning on stderr says so.

use crate::Failure;
use crate::client::Client;
use crate::run::reader_for;
use crate::zone::Zone;

/// The authenticated read that answers the account's `time_zone`.
pub const ZONE_PATH: &str = "/integration/work-patterns?days=1";

/// The account's zone, as the service answers it.
///
/// # Errors
/// The service's refusal or transport error, an answer without `time_zone`, or a zone this
/// binary's copy of the tz database does not know.
pub fn account_zone(client: &Client) -> Result<Zone, Failure> {
    let answer = client.get_json(ZONE_PATH)?;
    let name = answer["time_zone"]
        .as_str()
        .ok_or_else(|| Failure::Failed(format!("GET {ZONE_PATH} answered no time_zone")))?;
    Zone::named(name).map_err(Failure::Failed)
}

/// The zone in use: `given` (`--timezone` or `--utc-offset`), else the account's at the
/// service at `url` with the key in the environment, else UTC with a warning on stderr.
/// A run that is not a dry run and has no usable key stops on that anyway, before anything is
/// read: it gets UTC without a word.
#[must_use]
pub fn zone_in_use(given: Option<Zone>, url: &str, dry_run: bool) -> Zone {
    if let Some(zone) = given {
        return zone;
    }
    let utc = Zone::Fixed(time::UtcOffset::UTC);
    let why = match reader_for(url) {
        Ok(client) => match account_zone(&client) {
            Ok(zone) => return zone,
            Err(failure) => failure.to_string(),
        },
        Err(_) if !dry_run => return utc,
        Err(failure) => failure.to_string(),
    };
    eprintln!(
        "warning: the account's time zone could not be read ({why}): times are read and days \
         cut in UTC; pass --timezone ZONE to choose"
    );
    utc
}
