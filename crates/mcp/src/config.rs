//! Where the service is and which key to call it with: `--url` or `DISCOVERY_URL`, and
//! `DISCOVERY_API_KEY` (never a command-line argument, which any local user could read in
//! `ps`). These are the settings every client of the service shares, read and validated by the
//! `settings` crate (its tests cover them); this module names them as this binary uses them.

pub use settings::client::{
    ApiKey, ClientError as ConfigError, ClientSettings as Config, DEFAULT_URL, KEY_VARIABLE,
    URL_VARIABLE,
};
