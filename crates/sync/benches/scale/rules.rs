//! A rule change re-mapping the heavy person's "Deep work" entries, and its deletion.

use std::time::Instant;

use adapters_diesel::Database;
use adapters_diesel::schema::task_mapping;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text, Timestamp};
use time::{OffsetDateTime, PrimitiveDateTime};

use super::service::{Person, Service};
use super::{Plan, count, explain, pdt, pg, thousands};

pub(crate) fn rule_change(
    rt: &tokio::runtime::Runtime,
    server: &Service,
    db: &Database,
    person: &Person,
    plan: &Plan,
    report: &mut Vec<String>,
) {
    let user = &person.id;
    let expected = plan.deep_work();
    let candidates = count(
        db,
        &format!(
            "SELECT count(*) AS n FROM task_mapping WHERE user_id = '{user}'
             AND (mapped_by IS NULL OR mapped_by = 'rule')"
        ),
    );
    let since = pdt(OffsetDateTime::now_utc() - time::Duration::seconds(1));
    let started = Instant::now();
    let rule = rt.block_on(server.add_rule(&person.key, "label_equals", "deep work", "vocation"));
    let post = started.elapsed().as_secs_f64();
    let mapped = counts_since(db, user, since);
    assert_eq!(
        mapped,
        [expected, expected, expected, 0],
        "after the POST: [vocation by rule, Deep work vocation by rule, rows written, Deep work \
         unmapped]"
    );

    let since = pdt(OffsetDateTime::now_utc() - time::Duration::seconds(1));
    let started = Instant::now();
    rt.block_on(server.delete_rule(&person.key, &rule));
    let delete = started.elapsed().as_secs_f64();
    let back = counts_since(db, user, since);
    assert_eq!(
        back,
        [0, 0, expected, expected],
        "after the DELETE: [vocation by rule, Deep work vocation by rule, rows written, Deep \
         work unmapped]"
    );

    // The phases of the re-application replayed directly (after the measured requests, so
    // they do not warm the cache for them): what it reads before it decides anything, and its
    // UPDATEs, the same rows by id, 500 a statement, in a transaction then rolled back.
    let read_started = Instant::now();
    let read = candidate_read(db, user);
    let read_time = read_started.elapsed().as_secs_f64();
    assert_eq!(read, candidates);
    let by_id = replayed_updates(db, user);

    // The floor: the same rows re-mapped by one set-based UPDATE, and back.
    let raw_update = |sql: &str| {
        let mut conn = db.connection().unwrap();
        let started = Instant::now();
        let n = diesel::sql_query(sql)
            .bind::<Text, _>(user)
            .execute(pg(&mut conn))
            .unwrap();
        assert_eq!(n as i64, expected, "{sql}");
        started.elapsed().as_secs_f64()
    };
    let raw_map = raw_update(
        "UPDATE task_mapping SET foundation = 'vocation', mapped_by = 'rule',
                updated_at = now() AT TIME ZONE 'UTC'
         WHERE user_id = $1 AND mapped_by IS NULL AND lower(task_label) = 'deep work'",
    );
    let raw_unmap = raw_update(
        "UPDATE task_mapping SET foundation = NULL, mapped_by = NULL,
                updated_at = now() AT TIME ZONE 'UTC'
         WHERE user_id = $1 AND mapped_by = 'rule' AND foundation = 'vocation'",
    );

    report.push(format!(
        "rule change: {} of the heavy person's {} entries re-mapped, {} unmapped or rule-mapped \
         candidates decided again; replayed directly: reading the candidates {read_time:.2} s, \
         the UPDATEs by id (500 a statement) {by_id:.2} s",
        thousands(expected),
        thousands(plan.heavy),
        thousands(candidates)
    ));
    for (label, secs, raw) in [
        (
            "POST /integration/rules (label_equals \"deep work\" -> vocation)",
            post,
            raw_map,
        ),
        (
            "DELETE /integration/rules/{id} (maps them back)",
            delete,
            raw_unmap,
        ),
    ] {
        report.push(format!(
            "RATIO rule change: {label}, end to end vs one set-based UPDATE of the same rows: \
             {secs:.2} / {raw:.2} s = {:.2}x (for comparison); {secs:.2} s against the target \
             <= 10 s: {}",
            secs / raw,
            if secs <= 10.0 { "met" } else { "NOT met" }
        ));
    }
    if post > 10.0 || delete > 10.0 {
        explain(
            db,
            &format!(
                "SELECT external_task_id, task_label, tags, foundation FROM task_mapping
                 WHERE user_id = '{user}' AND (mapped_by IS NULL OR mapped_by = 'rule')"
            ),
        );
    }
}

/// The UPDATEs the re-application issues for the "Deep work" entries (rule_application.rs
/// `reapply`: 500 ids a statement, guarded by `mapped_by`), timed, then rolled back: seconds.
fn replayed_updates(db: &Database, user: &str) -> f64 {
    use task_mapping as tm;
    let mut conn = db.connection().unwrap();
    let conn = pg(&mut conn);
    let ids: Vec<String> = tm::table
        .filter(tm::user_id.eq(user))
        .filter(tm::mapped_by.is_null())
        .filter(tm::task_label.eq("Deep work"))
        .select(tm::external_task_id)
        .load(conn)
        .unwrap();
    let now = pdt(OffsetDateTime::now_utc());
    let mut elapsed = 0.0;
    let outcome = conn.transaction::<(), diesel::result::Error, _>(|c| {
        let started = Instant::now();
        for chunk in ids.chunks(500) {
            diesel::update(
                tm::table
                    .filter(tm::user_id.eq(user))
                    .filter(tm::external_task_id.eq_any(chunk))
                    .filter(tm::mapped_by.is_null().or(tm::mapped_by.eq("rule"))),
            )
            .set((
                tm::foundation.eq(Some("vocation")),
                tm::mapped_by.eq(Some("rule")),
                tm::updated_at.eq(now),
            ))
            .execute(c)?;
        }
        elapsed = started.elapsed().as_secs_f64();
        Err(diesel::result::Error::RollbackTransaction)
    });
    assert!(matches!(
        outcome,
        Err(diesel::result::Error::RollbackTransaction)
    ));
    elapsed
}

/// The re-application's read (rule_application.rs `reapply`): rows read.
fn candidate_read(db: &Database, user: &str) -> i64 {
    use task_mapping as tm;
    let mut conn = db.connection().unwrap();
    let rows: Vec<(String, Option<String>, String, Option<String>)> = tm::table
        .filter(tm::user_id.eq(user))
        .filter(tm::mapped_by.is_null().or(tm::mapped_by.eq("rule")))
        .select((
            tm::external_task_id,
            tm::task_label,
            tm::tags,
            tm::foundation,
        ))
        .load(pg(&mut conn))
        .unwrap();
    rows.len() as i64
}

/// [vocation by rule, "Deep work" vocation by rule, rows written since `since`, "Deep work"
/// unmapped] among `user`'s entries.
fn counts_since(db: &Database, user: &str, since: PrimitiveDateTime) -> [i64; 4] {
    #[derive(QueryableByName)]
    struct Counts {
        #[diesel(sql_type = BigInt)]
        vocation: i64,
        #[diesel(sql_type = BigInt)]
        deep: i64,
        #[diesel(sql_type = BigInt)]
        written: i64,
        #[diesel(sql_type = BigInt)]
        unmapped: i64,
    }
    let mut conn = db.connection().unwrap();
    let c: Counts = diesel::sql_query(
        "SELECT count(*) FILTER (WHERE foundation = 'vocation' AND mapped_by = 'rule') AS vocation,
                count(*) FILTER (WHERE task_label = 'Deep work' AND foundation = 'vocation'
                                 AND mapped_by = 'rule') AS deep,
                count(*) FILTER (WHERE updated_at >= $2) AS written,
                count(*) FILTER (WHERE task_label = 'Deep work' AND foundation IS NULL
                                 AND mapped_by IS NULL) AS unmapped
         FROM task_mapping WHERE user_id = $1",
    )
    .bind::<Text, _>(user)
    .bind::<Timestamp, _>(since)
    .get_result(pg(&mut conn))
    .unwrap();
    [c.vocation, c.deep, c.written, c.unmapped]
}
