//! The macro that runs one test body on both backends (over the crate's `testing::TestDb`:
//! a temporary SQLite file, or a uniquely named PostgreSQL database dropped on drop), and
//! shared fixtures.

use adapters_diesel::{Database, DbConnection, DieselUserRepository};
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use domain::account::{Email, LoginIdentity, User};
use domain::ports::UserRepository;
use time::OffsetDateTime;
use time::macros::datetime;

/// Runs `$body` with `$db: Database` (and optionally `$url`, its URL) once on SQLite and once on
/// PostgreSQL (skipped, with a note, when `TEST_DATABASE_URL` is unset).
macro_rules! dual_test {
    ($name:ident, |$db:ident| $body:block) => {
        dual_test!($name, |$db, _url| $body);
    };
    ($name:ident, |$db:ident, $url:ident| $body:block) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                let guard = $crate::harness::TestDb::sqlite();
                let ($db, $url) = (guard.db(), guard.url().to_owned());
                $body
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                let Some(guard) = $crate::harness::TestDb::postgres() else {
                    eprintln!(
                        "skipped {}::postgres: TEST_DATABASE_URL is not set",
                        module_path!()
                    );
                    return;
                };
                let ($db, $url) = (guard.db(), guard.url().to_owned());
                $body
            }
        }
    };
}

pub use adapters_diesel::testing::{TestDb, config};

/// An instant with microseconds, as the domain produces them.
pub const T0: OffsetDateTime = datetime!(2026-11-22 10:00:00.123_456 UTC);

/// Emoji, right-to-left text, a right-to-left mark, tab and CR LF, DEL, a C1 control and a
/// byte-order mark (the C0 controls the domain refuses are left out): must come back byte for byte.
pub const TRICKY: &str =
    "Mon but 🌱🎶 — שלום עולם\u{200f} مرحبا\t\u{7f}\u{9b}[0m\r\nline 2 \u{feff}end";

/// The identity provider the fixtures sign in with.
pub const ISSUER: &str = "https://id.example.org";

/// A sign-in at [`ISSUER`] whose subject is derived from the address.
pub fn identity(email: &str, name: Option<&str>) -> LoginIdentity {
    LoginIdentity {
        issuer: ISSUER.into(),
        subject: format!("subject-of-{email}"),
        email: Email::new(email).unwrap(),
        name: name.map(str::to_owned),
    }
}

pub async fn user(db: &Database, email: &str) -> User {
    DieselUserRepository::new(db.clone())
        .upsert_login(&identity(email, Some("Test Person")), T0)
        .await
        .unwrap()
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// `SELECT COUNT(*) FROM <from_where>`, straight from the database.
pub async fn count(db: &Database, from_where: &str) -> i64 {
    let db = db.clone();
    let sql = format!("SELECT COUNT(*) AS n FROM {from_where}");
    tokio::task::spawn_blocking(move || {
        let mut conn = db.connection().unwrap();
        diesel::sql_query(sql)
            .get_result::<Count>(&mut *conn)
            .unwrap()
            .n
    })
    .await
    .unwrap()
}

/// Runs raw SQL against the test database (fixtures the ports cannot create, e.g. triggers).
pub async fn execute(db: &Database, sql: String) {
    let db = db.clone();
    tokio::task::spawn_blocking(move || {
        let mut conn = db.connection().unwrap();
        let conn: &mut DbConnection = &mut conn;
        conn.batch_execute(&sql).unwrap();
    })
    .await
    .unwrap();
}
