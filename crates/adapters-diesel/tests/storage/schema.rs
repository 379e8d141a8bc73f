//! The migration chains: both backends end with the same tables and columns (names, order,
//! nullability, type family) as `schema.rs`; migrations are idempotent and revert cleanly.

use adapters_diesel::migrations::{revert_all_migrations, run_migrations};
use adapters_diesel::{Database, DbConnection, schema};
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
column_list!(A, B, C, D);
column_list!(A, B, C, D, E);
column_list!(A, B, C, D, E, F);
column_list!(A, B, C, D, E, F, G);
column_list!(A, B, C, D, E, F, G, H);
column_list!(A, B, C, D, E, F, G, H, I);
column_list!(A, B, C, D, E, F, G, H, I, J);
column_list!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O);

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
        discovery_answer,
        discovery_conversation,
        discovery_profile,
        profile_revision,
        reflection_message,
        refresh_tokens,
        sessions,
        task_mapping,
        users,
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
    assert_eq!(reverted.len(), 7);
    assert!(
        left.is_empty(),
        "down migrations leave no table behind: {left:?}"
    );
    assert_eq!(reapplied.len(), 7);
    assert_eq!(after, before);
});
