//! A rule change re-mapping the heavy person's "Deep work" entries, and its deletion: each timed
//! as the rule write's answer plus its background re-classification job until
//! `GET /integration/reclassification` says idle, and checked with SQL once idle.

use std::time::{Duration, Instant};

use adapters_diesel::Database;
use adapters_diesel::schema::task_mapping;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text, Timestamp};
use time::{OffsetDateTime, PrimitiveDateTime};

use super::service::{Person, Service};
use super::{Plan, count, explain, pdt, pg, thousands};

/// How often the bench asks for the job's progress, as the dashboard does.
const POLL: Duration = Duration::from_millis(20);
/// The job's candidates in the measured change's scope (reclassification.rs `candidates!` with
/// the scope of a `label_equals "deep work"` rule: legacy rows, or the folded label).
const SCOPE: &str = "(mapped_by IS NULL OR mapped_by = 'rule')
     AND (match_tags IS NULL OR match_label = 'deep work')";

/// One rule change: the write's answer and the job's run after it, in seconds, and the job's
/// `total` (the entries it decided again).
struct Timed {
    write: f64,
    job: f64,
    total: u64,
}

impl Timed {
    fn end_to_end(&self) -> f64 {
        self.write + self.job
    }
}

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
    let in_scope = count(
        db,
        &format!("SELECT count(*) AS n FROM task_mapping WHERE user_id = '{user}' AND {SCOPE}"),
    );

    let since = pdt(OffsetDateTime::now_utc() - time::Duration::seconds(1));
    let started = Instant::now();
    let rule = rt.block_on(server.add_rule(&person.key, "label_equals", "deep work", "vocation"));
    let post = finish(rt, server, person, started);
    let mapped = counts_since(db, user, since);
    assert_eq!(
        mapped,
        [expected, expected, expected, 0],
        "after the POST's job: [vocation by rule, Deep work vocation by rule, rows written, Deep \
         work unmapped]"
    );

    let since = pdt(OffsetDateTime::now_utc() - time::Duration::seconds(1));
    let started = Instant::now();
    rt.block_on(server.delete_rule(&person.key, &rule));
    let delete = finish(rt, server, person, started);
    let back = counts_since(db, user, since);
    assert_eq!(
        back,
        [0, 0, expected, expected],
        "after the DELETE's job: [vocation by rule, Deep work vocation by rule, rows written, \
         Deep work unmapped]"
    );
    for (what, timed) in [("POST", &post), ("DELETE", &delete)] {
        assert_eq!(
            timed.total, in_scope as u64,
            "the {what}'s job decided every candidate in its scope"
        );
    }

    // The phases of the job replayed directly (after the measured requests, so they do not
    // warm the cache for them): its reads of the candidates in scope, 2,000 a step by external
    // id, and its UPDATEs, the same rows by id, 1,000 a statement, in a transaction then
    // rolled back.
    let read_started = Instant::now();
    let read = candidate_read(db, user);
    let read_time = read_started.elapsed().as_secs_f64();
    assert_eq!(read, in_scope);
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
        "rule change: {} of the heavy person's {} entries re-mapped; each job decided the {} \
         candidates in its scope (of {} unmapped or rule-mapped); replayed directly: its reads \
         of them (2,000 a step) {read_time:.2} s, its UPDATEs by id (1,000 a statement) \
         {by_id:.2} s",
        thousands(expected),
        thousands(plan.heavy),
        thousands(in_scope),
        thousands(candidates)
    ));
    for (label, timed, raw) in [
        (
            "POST /integration/rules (label_equals \"deep work\" -> vocation)",
            &post,
            raw_map,
        ),
        (
            "DELETE /integration/rules/{id} (maps them back)",
            &delete,
            raw_unmap,
        ),
    ] {
        let secs = timed.end_to_end();
        report.push(format!(
            "RATIO rule change: {label}, end to end (write answered {:.3} s + job idle {:.2} s, \
             {} entries/s) vs one set-based UPDATE of the same rows: {secs:.2} / {raw:.2} s = \
             {:.2}x (for comparison); {secs:.2} s against the target <= 10 s: {}",
            timed.write,
            timed.job,
            thousands((timed.total as f64 / timed.job) as i64),
            secs / raw,
            if secs <= 10.0 { "met" } else { "NOT met" }
        ));
    }
    if post.end_to_end() > 10.0 || delete.end_to_end() > 10.0 {
        explain(
            db,
            &format!(
                "SELECT external_task_id, task_label, tags, foundation, match_label, match_tags,
                        match_id
                 FROM task_mapping WHERE user_id = '{user}' AND {SCOPE}
                 ORDER BY external_task_id LIMIT 2000"
            ),
        );
    }
}

/// The rule write sent at `started` has just answered: polls its job every [`POLL`] until idle.
fn finish(
    rt: &tokio::runtime::Runtime,
    server: &Service,
    person: &Person,
    started: Instant,
) -> Timed {
    let write = started.elapsed().as_secs_f64();
    let answered = Instant::now();
    let mut total = 0;
    rt.block_on(async {
        loop {
            let (running, _, seen) = server.reclassification(&person.key).await;
            total = total.max(seen);
            if !running {
                break;
            }
            assert!(
                answered.elapsed() < Duration::from_secs(3_600),
                "the re-classification did not finish within an hour"
            );
            tokio::time::sleep(POLL).await;
        }
    });
    Timed {
        write,
        job: answered.elapsed().as_secs_f64(),
        total,
    }
}

/// The UPDATEs the job issues for the "Deep work" entries (reclassification.rs `apply`: 1,000
/// ids a statement, guarded by `mapped_by`), timed, then rolled back: seconds.
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
        for chunk in ids.chunks(1_000) {
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

/// The job's reads (reclassification.rs `read_step`): the candidates in scope, 2,000 at a time
/// after the last external id read; rows read.
fn candidate_read(db: &Database, user: &str) -> i64 {
    use task_mapping as tm;
    type Row = (
        String,
        Option<String>,
        String,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
    );
    let mut conn = db.connection().unwrap();
    let conn = pg(&mut conn);
    let mut after = String::new();
    let mut read = 0;
    loop {
        let rows: Vec<Row> = tm::table
            .filter(tm::user_id.eq(user))
            .filter(tm::mapped_by.is_null().or(tm::mapped_by.eq("rule")))
            .filter(tm::match_tags.is_null().or(tm::match_label.eq("deep work")))
            .filter(tm::external_task_id.gt(&after))
            .order(tm::external_task_id.asc())
            .limit(2_000)
            .select((
                tm::external_task_id,
                tm::task_label,
                tm::tags,
                tm::foundation,
                tm::match_label,
                tm::match_tags,
                tm::match_id,
            ))
            .load(conn)
            .unwrap();
        read += rows.len() as i64;
        match rows.last() {
            Some(last) if rows.len() == 2_000 => after.clone_from(&last.0),
            _ => return read,
        }
    }
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
