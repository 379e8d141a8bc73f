//! Settings: read once from the environment (and an optional `.env`), validated at start-up; a
//! bad value stops the service with one clear line.

use std::net::SocketAddr;

use adapters_diesel::DbConfig;

/// Where dev mode keeps its database.
pub const DEV_DATABASE_URL: &str = "sqlite://data/discovery.db";
const DEFAULT_BIND_ADDR: &str = "127.0.0.1:8011";

/// Everything the service needs to start.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `--dev`: embedded SQLite under `./data/`, loopback only.
    pub dev: bool,
    pub bind_addr: SocketAddr,
    pub database: DbConfig,
}

/// A setting that cannot be used, named with its variable.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{name} is not valid: {reason}")]
    Invalid { name: &'static str, reason: String },
    #[error("unknown argument {0:?} (the only flag is --dev)")]
    UnknownArgument(String),
}

impl Settings {
    /// Reads `.env` if present, then the environment; `args` are the command-line arguments.
    ///
    /// # Errors
    /// [`ConfigError`] naming the first unusable value.
    pub fn from_env(args: impl IntoIterator<Item = String>) -> Result<Self, ConfigError> {
        let _ = dotenvy::dotenv();
        Self::from_lookup(args, |name| std::env::var(name).ok())
    }

    /// Like [`Settings::from_env`] with the variables supplied by `var` (for tests).
    ///
    /// # Errors
    /// [`ConfigError`] naming the first unusable value.
    pub fn from_lookup(
        args: impl IntoIterator<Item = String>,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let mut dev = false;
        for arg in args {
            match arg.as_str() {
                "--dev" => dev = true,
                _ => return Err(ConfigError::UnknownArgument(arg)),
            }
        }
        let var = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        let bind_addr: SocketAddr = var("BIND_ADDR")
            .unwrap_or_else(|| DEFAULT_BIND_ADDR.to_owned())
            .parse()
            .map_err(|e: std::net::AddrParseError| ConfigError::Invalid {
                name: "BIND_ADDR",
                reason: e.to_string(),
            })?;
        if dev && !bind_addr.ip().is_loopback() {
            return Err(ConfigError::Invalid {
                name: "BIND_ADDR",
                reason: format!(
                    "dev mode only binds a loopback address, not {}",
                    bind_addr.ip()
                ),
            });
        }
        let url = match var("DATABASE_URL") {
            Some(url) => url,
            None => DEV_DATABASE_URL.to_owned(),
        };
        Ok(Self {
            dev,
            bind_addr,
            database: DbConfig::new(url),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(args: &[&str], vars: &[(&str, &str)]) -> Result<Settings, ConfigError> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect();
        Settings::from_lookup(args.iter().map(|a| (*a).to_owned()), |name| {
            vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn defaults_bind_loopback_8011_with_the_dev_database() {
        let s = settings(&["--dev"], &[]).unwrap();
        assert!(s.dev);
        assert_eq!(s.bind_addr.to_string(), "127.0.0.1:8011");
        assert_eq!(s.database.url, DEV_DATABASE_URL);
    }

    #[test]
    fn dev_mode_refuses_a_public_address() {
        let err = settings(&["--dev"], &[("BIND_ADDR", "0.0.0.0:8011")]).unwrap_err();
        assert!(
            err.to_string().starts_with("BIND_ADDR is not valid"),
            "{err}"
        );
        assert!(settings(&[], &[("BIND_ADDR", "0.0.0.0:8011")]).is_ok());
    }

    #[test]
    fn bad_values_and_arguments_are_named() {
        let err = settings(&[], &[("BIND_ADDR", "localhost")]).unwrap_err();
        assert!(err.to_string().contains("BIND_ADDR"), "{err}");
        assert!(matches!(
            settings(&["--prod"], &[]),
            Err(ConfigError::UnknownArgument(_))
        ));
    }
}
