//! Running the binary and reading its one JSON line, the macro that runs a test on both
//! backends, and seeding through the repositories.

use std::process::{Command, Output, Stdio};

use adapters_diesel::{
    Database, DbConnection, DieselCheckInRepository, DieselProfileRepository, DieselUserRepository,
};
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use domain::account::{Email, LoginIdentity};
use domain::coaching::{CheckIn, CheckInOrigin};
use domain::discovery::Extraction;
use domain::ids::{CheckInId, UserId};
use domain::ports::{CheckInRepository, ProfileRepository, ProfileWrite, UserRepository};
use domain::profile::{EnneagramType, Profile, ProfileEvent, ProseFields};
use domain::text::Prose;
use serde_json::Value;
use time::OffsetDateTime;

pub use adapters_diesel::testing::TestDb;

/// Runs `$body` with `$db: TestDb` once on SQLite and once on PostgreSQL (skipped, with a note,
/// when `TEST_DATABASE_URL` is unset).
macro_rules! dual_test {
    ($name:ident, |$db:ident| $body:block) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                let $db = $crate::harness::TestDb::sqlite();
                $body
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                let Some($db) = $crate::harness::TestDb::postgres() else {
                    eprintln!(
                        "skipped {}::postgres: TEST_DATABASE_URL is not set",
                        module_path!()
                    );
                    return;
                };
                $body
            }
        }
    };
}

/// The binary under test, with a clean environment for its settings: `DATABASE_URL` as given,
/// no retention override, and a working directory without a `.env`.
pub fn batch(database_url: &str, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_discovery-batch"));
    command
        .args(args)
        .env("DATABASE_URL", database_url)
        .env_remove("ACTIVITY_RETENTION_DAYS")
        .current_dir(std::env::temp_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// What one run printed and how it ended.
#[derive(Debug)]
pub struct Run {
    pub success: bool,
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// The one JSON line on stdout.
    pub summary: Value,
}

impl From<Output> for Run {
    fn from(output: Output) -> Self {
        let stdout = String::from_utf8(output.stdout).unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(
            lines.len(),
            1,
            "one summary line; stdout: {stdout} stderr: {stderr}"
        );
        let summary = serde_json::from_str(lines[0]).unwrap();
        Self {
            success: output.status.success(),
            code: output.status.code(),
            stdout,
            stderr,
            summary,
        }
    }
}

/// Runs the binary to completion off the async runtime.
pub async fn run(database_url: &str, args: &[&str]) -> Run {
    let mut command = batch(database_url, args);
    tokio::task::spawn_blocking(move || Run::from(command.output().unwrap()))
        .await
        .unwrap()
}

/// Runs the binary and requires `"ok": true` for `job`; returns the report.
pub async fn run_ok(database_url: &str, args: &[&str]) -> Value {
    let run = run(database_url, args).await;
    assert!(run.success, "{run:?}");
    assert_eq!(run.code, Some(0));
    assert_eq!(run.summary["job"], args[0], "{run:?}");
    assert_eq!(run.summary["ok"], true, "{run:?}");
    run.summary["report"].clone()
}

pub fn prose(s: &str) -> Prose {
    Prose::new(s).unwrap()
}

/// An extraction of type 9 (gut triad: derived cadence weekly) with one stated goal.
pub fn extraction() -> Extraction {
    Extraction {
        enneagram_type: EnneagramType::new(9).unwrap(),
        prose: ProseFields {
            love_summary: prose("Building things with my hands."),
            strength_summary: prose("Patience."),
            mission_summary: prose("Repairing instead of replacing."),
            vocation_summary: prose("Carpentry."),
            overlap_narrative: prose("A repair workshop."),
            near_term_goal_summary: Some(prose("Open the workshop on Saturdays.")),
            long_term_goal_summary: None,
        },
        sources: Default::default(),
    }
}

/// A signed-in person with an extracted profile, affirmed when `locked`.
pub async fn person(db: &Database, n: usize, locked: bool) -> UserId {
    let now = OffsetDateTime::now_utc();
    let email = format!("person{n}@example.org");
    let user = DieselUserRepository::new(db.clone())
        .upsert_login(
            &LoginIdentity {
                issuer: "https://id.example.org".into(),
                subject: email.clone(),
                email: Email::new(&email).unwrap(),
                name: None,
            },
            now,
        )
        .await
        .unwrap();
    let profiles = DieselProfileRepository::new(db.clone());
    let t = Profile::extracted(user.id, extraction(), now);
    profiles
        .write(ProfileWrite {
            profile: t.profile.clone(),
            expected_version: None,
            revision: t.revision,
            reflection: vec![],
            completes: None,
            events: vec![],
        })
        .await
        .unwrap();
    if locked {
        let affirmed = t.profile.clone().apply(ProfileEvent::Affirm, now).unwrap();
        profiles
            .write(ProfileWrite {
                profile: affirmed.profile,
                expected_version: Some(t.profile.version),
                revision: affirmed.revision,
                reflection: vec![],
                completes: None,
                events: vec![],
            })
            .await
            .unwrap();
    }
    user.id
}

/// Stores a check-in for `user` written at `at`.
pub async fn checkin_at(db: &Database, user: UserId, at: OffsetDateTime) {
    DieselCheckInRepository::new(db.clone())
        .insert(&CheckIn {
            id: CheckInId::new(),
            user_id: user,
            message: "Does this direction still hold for you?".into(),
            quoted_goals: vec!["Open the workshop on Saturdays.".into()],
            observation: None,
            origin: CheckInOrigin::Manual,
            created_at: at,
            response: None,
        })
        .await
        .unwrap();
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
        let conn: &mut DbConnection = &mut conn;
        diesel::sql_query(sql).get_result::<Count>(conn).unwrap().n
    })
    .await
    .unwrap()
}

/// How many people have more than one check-in.
pub async fn people_with_duplicates(db: &Database) -> i64 {
    count(
        db,
        "(SELECT user_id FROM coaching_checkin GROUP BY user_id HAVING COUNT(*) > 1) AS d",
    )
    .await
}
