//! Running one subcommand to the end. What every run shares is here: the API key and client
//! (checked before anything is read, with a warning on stderr when it would go over plain http
//! to another machine), and the delivery of the items, printed by a dry run or
//! sent with a progress bar. Each tracker's run is in its own file.

pub mod import;
pub mod live;
pub mod timewarrior;

use secrecy::ExposeSecret;
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
    reader_for(url).map(Some)
}

/// The client of [`client_for`], for a dry run too (which reads the account's zone when a key
/// is given). The first one a run builds prints the plain-http warning, the only one.
///
/// # Errors
/// As [`client_for`].
pub fn reader_for(url: &str) -> Result<Client, Failure> {
    static WARNED: std::sync::Once = std::sync::Once::new();
    let settings = ClientSettings::from_parts(Some(url.to_owned()), &Vars::environment())
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let client = Client::new(settings.base_url.as_str(), settings.api_key.expose_secret())?;
    WARNED.call_once(|| {
        if let Some(warning) = cleartext::warning(url) {
            eprintln!("{warning}");
        }
    });
    Ok(client)
}

/// Sends `items` in batches of at most 1,000 with a progress bar on a terminal's stderr, or,
/// without a client (a dry run), prints the exact request bodies on stdout, one per line. The
/// totals of the batches accepted (in a dry run, the batches printed), and the failure that
/// stopped the sending if one did.
pub fn deliver(items: &[Item], client: Option<&Client>) -> (Totals, Result<(), Failure>) {
    deliver_streamed(items.len(), client, |batch| {
        for chunk in items.chunks(MAX_BATCH) {
            if !batch(chunk.to_vec()) {
                break;
            }
        }
        Ok(())
    })
}

/// [`deliver`] of the batches `produce` hands to its argument as it makes them (`total` items
/// in all, for the progress bar and the failure's `batch 3 of 12`): each body is made as it is
/// printed or sent, and `produce` waits while the senders are busy, so a large import holds a
/// few batches at once, never all of them. The argument answers `false` once a batch failed:
/// `produce` should stop there.
pub fn deliver_streamed(
    total: usize,
    client: Option<&Client>,
    produce: impl FnOnce(&mut dyn FnMut(Vec<Item>) -> bool) -> Result<(), Failure>,
) -> (Totals, Result<(), Failure>) {
    let mut unencodable = None;
    let Some(client) = client else {
        let mut printed = Totals::default();
        let produced = produce(&mut |batch| match client::batch_body(&batch) {
            Ok(body) => {
                println!("{body}");
                printed.batches += 1;
                true
            }
            Err(failure) => {
                unencodable = Some(failure);
                false
            }
        });
        return match unencodable {
            Some(failure) => (Totals::default(), Err(failure)),
            None => (printed, produced),
        };
    };
    let progress = Progress::entries(total);
    let sent = client.send_streamed(
        Some(total.div_ceil(MAX_BATCH)),
        |push| {
            let produced = produce(&mut |batch| match client::batch_body(&batch) {
                Ok(body) => push(body, batch.len()),
                Err(failure) => {
                    unencodable = Some(failure);
                    false
                }
            });
            unencodable.take().map_or(produced, Err)
        },
        |n| progress.sent(n),
    );
    progress.finish();
    match sent {
        Ok(totals) => (totals, Ok(())),
        Err((failure, totals)) => (totals, Err(failure)),
    }
}
