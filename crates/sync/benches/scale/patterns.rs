//! `GET /integration/work-patterns` against the same aggregate run directly.

use std::time::Instant;

use adapters_diesel::schema::task_mapping;
use adapters_diesel::{Database, DbConnection};
use diesel::connection::SimpleConnection;
use diesel::dsl::sum;
use diesel::expression::{
    AppearsOnTable, Expression, SelectableExpression, ValidGrouping, is_aggregate,
};
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::{BigInt, Nullable, Text, Timestamp};
use serde_json::Value;
use time::OffsetDateTime;

use super::service::{Person, Service};
use super::{FOUNDATIONS, count, explain_on, pdt, pg, ratio_line, thousands};

/// `CAST(c AS DATE)`, typed so that diesel caches the statement (as the service's own
/// `UtcDate`, which is private to its crate).
#[derive(Debug, Clone, Copy, QueryId)]
struct CastDate<C>(C);

/// A column used as a GROUP BY key next to [`CastDate`] (the service's `GroupKey`).
#[derive(Debug, Clone, Copy, QueryId)]
struct Key<C>(C);

impl<C: Expression> Expression for CastDate<C> {
    type SqlType = diesel::sql_types::Date;
}

impl<C: Expression> Expression for Key<C> {
    type SqlType = C::SqlType;
}

impl<C: AppearsOnTable<QS>, QS: ?Sized> AppearsOnTable<QS> for CastDate<C> {}
impl<C: SelectableExpression<QS>, QS: ?Sized> SelectableExpression<QS> for CastDate<C> {}
impl<C, GB> ValidGrouping<GB> for CastDate<C> {
    type IsAggregate = is_aggregate::Never;
}
impl<C: AppearsOnTable<QS>, QS: ?Sized> AppearsOnTable<QS> for Key<C> {}
impl<C: SelectableExpression<QS>, QS: ?Sized> SelectableExpression<QS> for Key<C> {}
impl<C, GB> ValidGrouping<GB> for Key<C> {
    type IsAggregate = is_aggregate::Never;
}

impl<C: QueryFragment<Pg>> QueryFragment<Pg> for CastDate<C> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("CAST(");
        self.0.walk_ast(out.reborrow())?;
        out.push_sql(" AS DATE)");
        Ok(())
    }
}

impl<C: QueryFragment<Pg>> QueryFragment<Pg> for Key<C> {
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.0.walk_ast(out)
    }
}

/// Minutes per foundation (in [`FOUNDATIONS`] order) and unmapped minutes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Totals {
    foundations: [i64; 6],
    unmapped: i64,
}

/// The aggregate's text, as the service's query renders it on PostgreSQL.
const AGGREGATE: &str = "SELECT CAST(occurred_at AS DATE) AS day, foundation, \
     SUM(minutes) AS minutes FROM task_mapping \
     WHERE user_id = $1 AND occurred_at > $2 AND occurred_at <= $3 GROUP BY 1, 2";

/// How the raw aggregate is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Statement {
    /// A typed diesel query: prepared once per connection and cached, as the service's own, so
    /// PostgreSQL may switch it to a generic plan after five runs.
    Prepared,
    /// `sql_query`: parsed and planned for its parameters at every run (a custom plan).
    Planned,
}

#[derive(QueryableByName)]
struct DaySum {
    #[diesel(sql_type = diesel::sql_types::Date)]
    #[allow(dead_code)]
    day: time::Date,
    #[diesel(sql_type = Nullable<Text>)]
    foundation: Option<String>,
    #[diesel(sql_type = Nullable<BigInt>)]
    minutes: Option<i64>,
}

/// The aggregate the route stands on, run directly ([`AGGREGATE`]) over the `days` ending now:
/// the totals and the number of (date, foundation) groups.
fn raw_patterns(
    conn: &mut DbConnection,
    statement: Statement,
    user: &str,
    days: i64,
) -> (Totals, usize) {
    use task_mapping as tm;
    let now = OffsetDateTime::now_utc();
    let (from, to) = (pdt(now - time::Duration::days(days)), pdt(now));
    let rows: Vec<(Option<String>, Option<i64>)> = match statement {
        Statement::Prepared => tm::table
            .filter(tm::user_id.eq(user))
            .filter(tm::occurred_at.gt(from))
            .filter(tm::occurred_at.le(to))
            .group_by((CastDate(tm::occurred_at), Key(tm::foundation)))
            .select((
                CastDate(tm::occurred_at),
                Key(tm::foundation),
                sum(tm::minutes),
            ))
            .load::<(time::Date, Option<String>, Option<i64>)>(pg(conn))
            .unwrap()
            .into_iter()
            .map(|(_, f, m)| (f, m))
            .collect(),
        Statement::Planned => diesel::sql_query(AGGREGATE)
            .bind::<Text, _>(user)
            .bind::<Timestamp, _>(from)
            .bind::<Timestamp, _>(to)
            .load::<DaySum>(pg(conn))
            .unwrap()
            .into_iter()
            .map(|r| (r.foundation, r.minutes))
            .collect(),
    };
    let mut totals = Totals::default();
    for (foundation, minutes) in &rows {
        let minutes = minutes.unwrap_or(0);
        match foundation {
            None => totals.unmapped += minutes,
            Some(f) => {
                let i = FOUNDATIONS.iter().position(|k| *k == f.as_str()).unwrap();
                totals.foundations[i] += minutes;
            }
        }
    }
    (totals, rows.len())
}

fn service_totals(pattern: &Value) -> Totals {
    let mut totals = Totals {
        unmapped: pattern["unmapped_minutes"].as_i64().unwrap(),
        ..Totals::default()
    };
    for f in pattern["foundations"].as_array().unwrap() {
        let i = FOUNDATIONS
            .iter()
            .position(|k| *k == f["foundation"].as_str().unwrap())
            .unwrap();
        totals.foundations[i] = f["minutes"].as_i64().unwrap();
    }
    assert_eq!(
        pattern["total_minutes"].as_i64().unwrap(),
        totals.foundations.iter().sum::<i64>(),
        "total_minutes is the sum of the foundations"
    );
    totals
}

pub(crate) fn work_patterns(
    rt: &tokio::runtime::Runtime,
    server: &Service,
    db: &Database,
    person: &Person,
    days: i64,
    samples: usize,
    report: &mut Vec<String>,
) {
    let mut conn = db.connection().unwrap();
    let path = format!("/integration/work-patterns?days={days}");
    let mut raw = |statement| raw_patterns(&mut conn, statement, &person.id, days);
    // The window moves with the clock, so a row can leave it between two reads: the service's
    // totals are compared with raw totals read just before and just after it.
    let mut agreed = None;
    for _ in 0..20 {
        let (before, _) = raw(Statement::Prepared);
        let body = rt.block_on(server.get(&person.key, &path));
        let served = service_totals(&serde_json::from_slice(&body).unwrap());
        let (after, _) = raw(Statement::Planned);
        if before == after {
            assert_eq!(served, before, "the service and the raw SQL disagree");
            agreed = Some(before);
            break;
        }
    }
    let totals = agreed.expect("the window kept moving under 20 reads");
    // PostgreSQL plans a prepared statement for its parameters for its first five runs, then
    // keeps a generic plan when that looks cheaper: 20 runs of each first (the service's
    // pooled connections go through the same), so that all are measured in their steady
    // state. Then they are sampled in turn, so that whatever else the machine does weighs on
    // all alike.
    for _ in 0..20 {
        raw(Statement::Prepared);
        raw(Statement::Planned);
        rt.block_on(server.get(&person.key, &path));
    }
    let (mut prepared, mut planned, mut http) = (Vec::new(), Vec::new(), Vec::new());
    let mut groups = 0;
    for _ in 0..samples {
        let started = Instant::now();
        groups = raw(Statement::Prepared).1;
        prepared.push(started.elapsed().as_secs_f64() * 1e3);
        let started = Instant::now();
        raw(Statement::Planned);
        planned.push(started.elapsed().as_secs_f64() * 1e3);
        let started = Instant::now();
        let body = rt.block_on(server.get(&person.key, &path));
        http.push(started.elapsed().as_secs_f64() * 1e3);
        drop(body);
    }
    let (raw50, raw90) = percentiles(&mut prepared);
    let (planned50, planned90) = percentiles(&mut planned);
    let (http50, http90) = percentiles(&mut http);
    let entries = count(
        db,
        &format!(
            "SELECT count(*) AS n FROM task_mapping WHERE user_id = '{}'
             AND occurred_at > now() AT TIME ZONE 'UTC' - interval '{days} days'",
            person.id
        ),
    );
    let mapped: i64 = totals.foundations.iter().sum();
    report.push(format!(
        "patterns days={days}: the window holds {} of the heavy person's entries, {} (date, \
         foundation) groups, {} mapped + {} unmapped minutes (service = raw); {samples} \
         sequential requests after 20 to warm up",
        thousands(entries),
        thousands(groups as i64),
        thousands(mapped),
        thousands(totals.unmapped)
    ));
    report.push(ratio_line(
        &format!(
            "patterns: GET /integration/work-patterns?days={days} p50 vs raw aggregate p50 \
             (prepared statement)"
        ),
        http50,
        raw50,
        "ms",
        1.5,
        false,
    ));
    report.push(format!(
        "patterns days={days} p90: service {http90:.2} ms, raw prepared {raw90:.2} ms = {:.2}x",
        http90 / raw90
    ));
    report.push(format!(
        "patterns days={days}, for comparison: the same SQL planned at every run (sql_query, a \
         custom plan) p50 {planned50:.2} ms, p90 {planned90:.2} ms; the service's p50 is \
         {:.2}x of it, the prepared statement's {:.2}x",
        http50 / planned50,
        raw50 / planned50
    ));
    explain_plans(db, &person.id, days);
}

/// Prints on stderr `EXPLAIN (ANALYZE, BUFFERS)` of the aggregate prepared, once with the
/// generic plan a cached statement may settle on and once planned for its parameters.
fn explain_plans(db: &Database, user: &str, days: i64) {
    let mut conn = db.connection().unwrap();
    let conn = pg(&mut conn);
    conn.batch_execute(&format!(
        "PREPARE scale_patterns (text, timestamp, timestamp) AS {AGGREGATE}"
    ))
    .unwrap();
    for mode in ["force_generic_plan", "force_custom_plan"] {
        conn.batch_execute(&format!("SET plan_cache_mode = {mode}"))
            .unwrap();
        eprintln!("days={days}, plan_cache_mode = {mode}:");
        explain_on(
            conn,
            &format!(
                "EXECUTE scale_patterns ('{user}', \
                 now() AT TIME ZONE 'UTC' - interval '{days} days', now() AT TIME ZONE 'UTC')"
            ),
        );
    }
    conn.batch_execute("DEALLOCATE scale_patterns; RESET plan_cache_mode")
        .unwrap();
}

/// p50 and p90 of `samples`.
fn percentiles(samples: &mut [f64]) -> (f64, f64) {
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() as f64 * q) as usize).min(samples.len() - 1)];
    (at(0.5), at(0.9))
}
