//! Running one subcommand to the end. What every run shares is here: the API key and client
//! (checked before anything is read, with a warning on stderr when it would go over plain http
//! to another machine), and the delivery of the items, printed by a dry run or
//! sent with a progress bar. Each tracker's run is in its own file.

pub mod import;
pub mod timewarrior;

use crate::client::{self, Client, MAX_BATCH, Totals};
use crate::entries::Item;
use crate::progress::Progress;
use crate::{Failure, cleartext};

/// The variable holding the API key. Never a flag: flags show up in `ps` and shell history.
pub const API_KEY_ENV: &str = "DISCOVERY_API_KEY";

/// The client of the service at `url` with the key from [`API_KEY_ENV`]; `None` for a dry run,
/// which needs no key.
///
/// # Errors
/// [`Failure::Usage`] when the key is missing or blank, or the URL is not http(s).
pub fn client_for(url: &str, dry_run: bool) -> Result<Option<Client>, Failure> {
    if dry_run {
        return Ok(None);
    }
    let key = std::env::var(API_KEY_ENV)
        .ok()
        .filter(|k| !k.trim().is_empty())
        .ok_or_else(|| {
            Failure::Usage(format!(
                "{API_KEY_ENV} is not set (the API key to send with)"
            ))
        })?;
    let client = Client::new(url, key.trim())?;
    // Once per run: this is the one place a run builds its client.
    if let Some(warning) = cleartext::warning(url) {
        eprintln!("{warning}");
    }
    Ok(Some(client))
}

/// Sends `items` in batches of at most 1,000 with a progress bar on a terminal's stderr, or,
/// without a client (a dry run), prints the exact request bodies on stdout, one per line. The
/// totals of the batches accepted, and the failure that stopped the sending if one did.
pub fn deliver(items: &[Item], client: Option<&Client>) -> (Totals, Result<(), Failure>) {
    let bodies = match client::batch_bodies(items) {
        Ok(bodies) => bodies,
        Err(failure) => return (Totals::default(), Err(failure)),
    };
    let Some(client) = client else {
        for body in &bodies {
            println!("{body}");
        }
        return (Totals::default(), Ok(()));
    };
    let sizes: Vec<usize> = items.chunks(MAX_BATCH).map(<[Item]>::len).collect();
    let progress = Progress::entries(items.len());
    let sent = client.send_each(&bodies, |batch| {
        progress.sent(sizes.get(batch).copied().unwrap_or(0));
    });
    progress.finish();
    match sent {
        Ok(totals) => (totals, Ok(())),
        Err((failure, totals)) => (totals, Err(failure)),
    }
}
