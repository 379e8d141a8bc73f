//! Running one subcommand to the end. What every run shares is here: the API key and client
//! (checked before anything is read, with a warning on stderr when it would go over plain http
//! to another machine), and the delivery of the items, printed by a dry run or
//! sent with a progress bar. Each tracker's run is in its own file.

pub mod import;
pub mod timewarrior;

use settings::Vars;
use settings::client::ClientSettings;

use crate::client::{self, Client, MAX_BATCH, Totals};
use crate::entries::Item;
use crate::progress::Progress;
use crate::{Failure, cleartext};

/// The variable holding the API key. Never a flag: flags show up in `ps` and shell history.
pub const API_KEY_ENV: &str = settings::client::KEY_VARIABLE;

/// The client of the service at `url` with the key from [`API_KEY_ENV`], both read and checked
/// as every client of the service reads them (`settings::client`); `None` for a dry run, which
/// needs no key.
///
/// # Errors
/// [`Failure::Usage`] when the key is missing, blank or not header-safe, or the URL is not an
/// http(s) URL.
pub fn client_for(url: &str, dry_run: bool) -> Result<Option<Client>, Failure> {
    if dry_run {
        return Ok(None);
    }
    let settings = ClientSettings::from_parts(Some(url.to_owned()), &Vars::environment())
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let client = Client::new(settings.base_url.as_str(), settings.api_key.expose())?;
    // Once per run: this is the one place a run builds its client.
    if let Some(warning) = cleartext::warning(url) {
        eprintln!("{warning}");
    }
    Ok(Some(client))
}

/// Sends `items` in batches of at most 1,000 with a progress bar on a terminal's stderr, or,
/// without a client (a dry run), prints the exact request bodies on stdout, one per line. The
/// totals of the batches accepted (in a dry run, the batches printed), and the failure that
/// stopped the sending if one did.
pub fn deliver(items: &[Item], client: Option<&Client>) -> (Totals, Result<(), Failure>) {
    // Each body is made as it is printed or sent, so the bodies of a large file are never all
    // held at once.
    let batches: Vec<&[Item]> = items.chunks(MAX_BATCH).collect();
    let Some(client) = client else {
        for batch in &batches {
            match client::batch_body(batch) {
                Ok(body) => println!("{body}"),
                Err(failure) => return (Totals::default(), Err(failure)),
            }
        }
        let printed = Totals {
            batches: batches.len(),
            ..Totals::default()
        };
        return (printed, Ok(()));
    };
    let progress = Progress::entries(items.len());
    let sent = client.send_made(
        batches.len(),
        |i| client::batch_body(batches[i]),
        |batch| progress.sent(batches.get(batch).map_or(0, |b| b.len())),
    );
    progress.finish();
    match sent {
        Ok(totals) => (totals, Ok(())),
        Err((failure, totals)) => (totals, Err(failure)),
    }
}
