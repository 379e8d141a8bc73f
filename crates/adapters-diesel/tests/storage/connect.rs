//! Opening the database: readiness, URL rules and the driver's own error when PostgreSQL is
//! unreachable.

use std::time::{Duration, Instant};

use adapters_diesel::{Backend, Database, DbConfig, DbError};

dual_test!(a_connected_database_answers_pings, |db| {
    db.ping().await.unwrap();
    assert!(matches!(db.backend(), Backend::Sqlite | Backend::Postgres));
});

#[test]
fn an_unreachable_postgres_fails_fast_with_the_drivers_message() {
    let mut config = DbConfig::new("postgres://postgres@127.0.0.1:1/nowhere");
    config.connect_timeout = Duration::from_secs(30);
    let started = Instant::now();
    let err = Database::connect(&config).unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "not after the pool timeout"
    );
    assert!(matches!(err, DbError::Connect(_)), "{err:?}");
    let message = err.to_string();
    assert!(
        message.contains("127.0.0.1") || message.to_lowercase().contains("refused"),
        "{message}"
    );
}

#[test]
fn urls_without_a_usable_scheme_or_path_are_refused() {
    for url in ["", "sqlite::memory:", "mysql://localhost/x"] {
        assert!(
            matches!(
                Database::connect(&DbConfig::new(url)),
                Err(DbError::InvalidUrl(_))
            ),
            "{url}"
        );
    }
}

#[test]
fn plain_paths_and_sqlite_colon_urls_open_sqlite_files() {
    let dir = std::env::temp_dir().join(format!(
        "discovery-connect-{}",
        uuid::Uuid::now_v7().simple()
    ));
    for url in [
        dir.join("plain.db").display().to_string(),
        format!("sqlite:{}", dir.join("colon.db").display()),
    ] {
        let db = Database::connect(&DbConfig::new(&url)).unwrap();
        assert_eq!(db.backend(), Backend::Sqlite);
    }
    assert!(dir.join("plain.db").exists() && dir.join("colon.db").exists());
    let _ = std::fs::remove_dir_all(dir);
}
