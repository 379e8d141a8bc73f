//! The migration chains: both backends end with the same tables and columns (names, order,
//! nullability, type family) as `schema.rs`; migrations are idempotent and revert cleanly.

use adapters_diesel::migrations::{revert_all_migrations, run_migrations};
use adapters_diesel::{Database, DbConnection, schema};
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::{Bool, Text};

use crate::harness::TestDb;

/// One column as a backend describes it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Column {
    table: String,
    name: String,
    not_null: bool,
    family: String,
}

#[derive(QueryableByName)]
struct ColumnRow {
    #[diesel(sql_type = Text)]
    table_name: String,
    #[diesel(sql_type = Text)]
    column_name: String,
    #[diesel(sql_type = Bool)]
    not_null: bool,
    #[diesel(sql_type = Text)]
    data_type: String,
}

const SQLITE_COLUMNS: &str = "SELECT m.name AS table_name, p.name AS column_name, p.\"notnull\" <> 0 AS not_null, \
     p.type AS data_type FROM sqlite_master m, pragma_table_info(m.name) p \
     WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name <> '__diesel_schema_migrations' \
     ORDER BY m.name, p.cid";

const PG_COLUMNS: &str = "SELECT table_name::text AS table_name, column_name::text AS column_name, \
     is_nullable = 'NO' AS not_null, data_type::text AS data_type FROM information_schema.columns \
     WHERE table_schema = 'public' AND table_name <> '__diesel_schema_migrations' \
     ORDER BY table_name, ordinal_position";

/// Type names as each side spells them, reduced to one family name.
fn family(raw: &str) -> String {
    match raw.to_ascii_lowercase().as_str() {
        "timestamp without time zone" | "timestamp" => "timestamp",
        "double precision" | "double" => "double",
        "bool" | "boolean" => "boolean",
        "bigint" => "bigint",
        "integer" => "integer",
        "text" => "text",
        other => panic!("unexpected column type {other}"),
    }
    .to_owned()
}

pub fn database_columns(conn: &mut DbConnection) -> Vec<Column> {
    let sql = match conn {
        DbConnection::Sqlite(_) => SQLITE_COLUMNS,
        DbConnection::Postgresql(_) => PG_COLUMNS,
    };
    diesel::sql_query(sql)
        .load::<ColumnRow>(conn)
        .unwrap()
        .into_iter()
        .map(|r| Column {
            table: r.table_name,
            name: r.column_name,
            not_null: r.not_null,
            family: family(&r.data_type),
        })
        .collect()
}

/// Reads a table's columns from its diesel definition: the column tuple's names and SQL types.
trait ColumnList {
    fn columns() -> Vec<(&'static str, &'static str)>;
}

macro_rules! column_list {
    ($($c:ident),+) => {
        impl<$($c: diesel::Column + Expression),+> ColumnList for ($($c,)+) {
            fn columns() -> Vec<(&'static str, &'static str)> {
                vec![$(($c::NAME, std::any::type_name::<<$c as Expression>::SqlType>())),+]
            }
        }
    };
}
column_list!(A, B);
column_list!(A, B, C);
column_list!(A, B, C, D);
column_list!(A, B, C, D, E);
column_list!(A, B, C, D, E, F);
column_list!(A, B, C, D, E, F, G);
column_list!(A, B, C, D, E, F, G, H);
column_list!(A, B, C, D, E, F, G, H, I);
column_list!(A, B, C, D, E, F, G, H, I, J);
column_list!(A, B, C, D, E, F, G, H, I, J, K);
column_list!(A, B, C, D, E, F, G, H, I, J, K, L);
column_list!(A, B, C, D, E, F, G, H, I, J, K, L, M);
column_list!(A, B, C, D, E, F, G, H, I, J, K, L, M, N);
column_list!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O);
column_list!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P);

macro_rules! schema_rs_columns {
    ($($table:ident),+ $(,)?) => {{
        let mut all = Vec::new();
        $(
            for (name, sql_type) in <<schema::$table::table as diesel::Table>::AllColumns as ColumnList>::columns() {
                let nullable = sql_type.contains("Nullable<");
                let base = sql_type.trim_end_matches('>').rsplit("::").next().unwrap();
                all.push(Column {
                    table: stringify!($table).to_owned(),
                    name: name.to_owned(),
                    not_null: !nullable,
                    family: match base {
                        "Bool" => "boolean".to_owned(),
                        "BigInt" => "bigint".to_owned(),
                        other => family(other),
                    },
                });
            }
        )+
        all
    }};
}

fn schema_rs() -> Vec<Column> {
    // Alphabetical, as the databases list them.
    schema_rs_columns!(
        activity_log,
        api_keys,
        coaching_checkin,
        coaching_preferences,
        deliveries,
        discovery_answer,
        discovery_conversation,
        discovery_profile,
        mapping_rules,
        notification_settings,
        outbox_events,
        profile_revision,
        reclassification,
        reflection_message,
        refresh_tokens,
        sessions,
        task_mapping,
        users,
        webhooks,
    )
}

async fn columns_of(db: &Database) -> Vec<Column> {
    let db = db.clone();
    tokio::task::spawn_blocking(move || database_columns(&mut db.connection().unwrap()))
        .await
        .unwrap()
}

#[tokio::test]
async fn both_chains_and_schema_rs_describe_the_same_tables() {
    let sqlite = TestDb::sqlite();
    let sqlite_columns = columns_of(&sqlite.db()).await;
    assert_eq!(sqlite_columns.len(), schema_rs().len());
    assert_eq!(
        sqlite_columns,
        schema_rs(),
        "the SQLite chain matches schema.rs"
    );
    let Some(pg) = TestDb::postgres() else {
        eprintln!("skipped the PostgreSQL half: TEST_DATABASE_URL is not set");
        return;
    };
    assert_eq!(
        columns_of(&pg.db()).await,
        sqlite_columns,
        "both chains end in the same schema"
    );
}

dual_test!(migrations_are_idempotent_and_revert_cleanly, |db, url| {
    assert!(
        db.run_migrations().await.unwrap().is_empty(),
        "nothing left to apply"
    );
    let again =
        tokio::task::spawn_blocking(move || Database::connect(&crate::harness::config(&url)))
            .await
            .unwrap();
    assert!(
        again.is_ok(),
        "connecting again re-runs nothing and succeeds"
    );

    let before = columns_of(&db).await;
    let conn_db = db.clone();
    let (reverted, left, reapplied, after) = tokio::task::spawn_blocking(move || {
        let mut conn = conn_db.connection().unwrap();
        let reverted = revert_all_migrations(&mut conn).unwrap();
        let left = database_columns(&mut conn);
        let reapplied = run_migrations(&mut conn).unwrap();
        let after = database_columns(&mut conn);
        (reverted, left, reapplied, after)
    })
    .await
    .unwrap();
    assert_eq!(reverted.len(), 16);
    assert!(
        left.is_empty(),
        "down migrations leave no table behind: {left:?}"
    );
    assert_eq!(reapplied.len(), 16);
    assert_eq!(after, before);
});

#[derive(QueryableByName)]
struct Flag {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

fn scalar(conn: &mut DbConnection, sql: &str) -> i64 {
    diesel::sql_query(sql).get_result::<Flag>(conn).unwrap().n
}

// 008 rebuilds `users` on SQLite with foreign keys off: rows that existed before must survive it
// (with foreign keys on, dropping the old table would have cascaded into everything they own),
// and the rebuilt table must still be the parent the cascades start from.
dual_test!(
    migration_008_keeps_existing_people_and_everything_they_own,
    |db| {
        use adapters_diesel::migrations::{POSTGRES, SQLITE};
        use diesel_migrations::MigrationHarness;

        let conn_db = db.clone();
        let user_id = uuid::Uuid::now_v7().to_string();
        let id = user_id.clone();
        tokio::task::spawn_blocking(move || {
            let mut conn = conn_db.connection().unwrap();
            let conn: &mut DbConnection = &mut conn;
            let sqlite = matches!(conn, DbConnection::Sqlite(_));
            // Back to before 008 (the later ones first), where people were keyed by e-mail.
            for version in [
                "016", "015", "014", "013", "012", "011", "010", "009", "008",
            ] {
                let chain = if sqlite { SQLITE } else { POSTGRES };
                let reverted = conn.revert_last_migration(chain).unwrap();
                assert_eq!(reverted.to_string(), version);
            }
            let ts = "'2026-01-01 08:00:00'";
            let new_id = || uuid::Uuid::now_v7().to_string();
            conn.batch_execute(&format!(
                "INSERT INTO users (id, email, name, created_at, last_login_at)
                     VALUES ('{id}', 'old@example.org', 'Old Timer', {ts}, {ts});
                 INSERT INTO sessions (id, user_id, created_at, last_used_at, expires_at)
                     VALUES ('{s}', '{id}', {ts}, {ts}, {ts});
                 INSERT INTO activity_log (id, user_id, at, action, method, path, status, source,
                                           duration_ms, request_id)
                     VALUES ('{a}', '{id}', {ts}, 'profile.get', 'GET', '/', 200, 'web', 1, 'r');
                 INSERT INTO task_mapping (id, user_id, external_task_id, foundation, minutes,
                                           occurred_at, created_at, updated_at)
                     VALUES ('{t}', '{id}', 'x-1', 'love', 30, {ts}, {ts}, {ts});
                 INSERT INTO api_keys (id, user_id, name, prefix, key_hash, created_at)
                     VALUES ('{k}', '{id}', 'tracker', 'dsk_old1', '{hash}', {ts});",
                s = new_id(),
                a = new_id(),
                t = new_id(),
                k = new_id(),
                hash = "ab".repeat(32),
            ))
            .unwrap();
            assert_eq!(
                run_migrations(conn).unwrap(),
                [
                    "008", "009", "010", "011", "012", "013", "014", "015", "016"
                ]
            );
            if let DbConnection::Sqlite(_) = conn {
                assert_eq!(
                    scalar(conn, "SELECT foreign_keys AS n FROM pragma_foreign_keys"),
                    1,
                    "the migration leaves foreign keys on"
                );
                assert_eq!(
                    scalar(conn, "SELECT COUNT(*) AS n FROM pragma_foreign_key_check"),
                    0
                );
            }
        })
        .await
        .unwrap();

        let user = crate::harness::count(
            &db,
            &format!(
                "users WHERE id = '{user_id}' AND oidc_issuer = 'urn:discovery:pre-oidc' \
                 AND oidc_subject = 'old@example.org'"
            ),
        )
        .await;
        assert_eq!(user, 1, "the person is kept, with an identity of their own");
        let key = crate::harness::count(
            &db,
            &format!(
                "api_keys WHERE user_id = '{user_id}' AND expires_at IS NULL \
                 AND scopes = 'integration profile:read coaching'"
            ),
        )
        .await;
        assert_eq!(
            key, 1,
            "a key made before scopes keeps all three, and never expires"
        );
        for table in ["sessions", "activity_log", "task_mapping"] {
            assert_eq!(
                crate::harness::count(&db, &format!("{table} WHERE user_id = '{user_id}'")).await,
                1,
                "{table} keeps the person's row"
            );
        }
        let users = adapters_diesel::DieselUserRepository::new(db.clone());
        let id: domain::ids::UserId = user_id.parse().unwrap();
        let stored = domain::ports::UserRepository::get(&users, id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(stored.name.as_deref(), Some("Old Timer"));
        assert!(
            domain::ports::UserRepository::delete(&users, id)
                .await
                .unwrap()
        );
        for table in ["sessions", "activity_log", "task_mapping"] {
            assert_eq!(
                crate::harness::count(&db, &format!("{table} WHERE user_id = '{user_id}'")).await,
                0,
                "deleting the person still deletes their rows in {table}"
            );
        }
    }
);

// If 008 ran but its version was never recorded (a crash in between, or two processes starting
// at once), running it again must fail before it changes anything, and leave the connection
// as it found it (no open transaction, foreign keys on).
dual_test!(
    re_running_008_fails_without_touching_data_or_the_connection,
    |db| {
        let ada = crate::harness::user(&db, "ada@example.org").await;
        let conn_db = db.clone();
        let failed = tokio::task::spawn_blocking(move || {
            let mut conn = conn_db.connection().unwrap();
            let conn: &mut DbConnection = &mut conn;
            conn.batch_execute("DELETE FROM __diesel_schema_migrations WHERE version = '008'")
                .unwrap();
            let failed = run_migrations(conn).is_err();
            // Usable: a transaction can begin, so none is left open.
            conn.batch_execute("BEGIN; COMMIT;").unwrap();
            if let DbConnection::Sqlite(_) = conn {
                assert_eq!(
                    scalar(conn, "SELECT foreign_keys AS n FROM pragma_foreign_keys"),
                    1
                );
            }
            conn.batch_execute("INSERT INTO __diesel_schema_migrations (version) VALUES ('008')")
                .unwrap();
            failed
        })
        .await
        .unwrap();
        assert!(failed, "a second run of 008 is refused");
        assert_eq!(
            crate::harness::count(
                &db,
                &format!(
                    "users WHERE id = '{}' AND oidc_issuer = '{}'",
                    ada.id,
                    crate::harness::ISSUER
                )
            )
            .await,
            1,
            "the person keeps their identity"
        );
    }
);
