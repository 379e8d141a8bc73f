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
        let db = Database::connect(&DbConfig::new(url.as_str())).unwrap();
        assert_eq!(db.backend(), Backend::Sqlite);
    }
    assert!(dir.join("plain.db").exists() && dir.join("colon.db").exists());
    let _ = std::fs::remove_dir_all(dir);
}

/// The pool hands connections out without a `SELECT 1` first; a connection the server closed
/// must then be noticed by the query that finds it gone and discarded, not handed out again.
#[test]
fn a_connection_the_server_closed_is_discarded_not_handed_out_again() {
    use diesel::sql_types::Integer;
    use diesel::{Connection, RunQueryDsl};

    #[derive(diesel::QueryableByName)]
    struct Pid {
        #[diesel(sql_type = Integer)]
        pid: i32,
    }
    let pid_of = |conn: &mut adapters_diesel::DbConnection| {
        diesel::sql_query("SELECT pg_backend_pid() AS pid")
            .get_result::<Pid>(conn)
            .map(|p| p.pid)
    };

    let Some(admin) = std::env::var("TEST_DATABASE_URL")
        .ok()
        .filter(|u| !u.is_empty())
    else {
        eprintln!("skipped: needs TEST_DATABASE_URL (PostgreSQL)");
        return;
    };
    let test_db = adapters_diesel::testing::TestDb::postgres_at(&admin, |url| {
        let mut config = adapters_diesel::testing::config(url);
        (config.max_connections, config.min_idle) = (1, 0);
        config
    });
    let db = test_db.db();

    let first = pid_of(&mut db.connection().unwrap()).unwrap();
    // Another session ends that backend, as a server restart or a dropped network would.
    let mut other = diesel::PgConnection::establish(test_db.url()).unwrap();
    diesel::sql_query(format!("SELECT pg_terminate_backend({first})"))
        .execute(&mut other)
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));

    // The next query on it fails with the connection gone...
    assert!(pid_of(&mut db.connection().unwrap()).is_err());
    // ... and the pool replaced it rather than handing the dead one out again.
    let second = pid_of(&mut db.connection().unwrap()).unwrap();
    assert_ne!(first, second);
}
