//! `GET /integration/work-patterns/weekly?weeks=104` for the heavy person in Europe/Berlin,
//! against the same aggregation written directly in PostgreSQL's own time-zone arithmetic
//! (`AT TIME ZONE`, `date_trunc('week', …)`): the service cuts the range where Berlin's offset
//! changes and groups each piece by a fixed offset, and must give the same weeks.

use std::collections::BTreeMap;
use std::time::Instant;

use adapters_diesel::Database;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Date, Nullable, Text};
use serde_json::Value;

use super::service::{Person, Service};
use super::{FOUNDATIONS, execute, pg, ratio_line, thousands};

const ZONE: &str = "Europe/Berlin";
const WEEKS: usize = 104;

/// The weeks from the local Monday `$2` up to now, grouped by PostgreSQL in the zone.
const AGGREGATE: &str = "SELECT CAST(date_trunc('week', occurred_at AT TIME ZONE 'UTC' \
     AT TIME ZONE 'Europe/Berlin') AS DATE) AS week, foundation, SUM(minutes) AS minutes \
     FROM task_mapping WHERE user_id = $1 \
     AND occurred_at >= (CAST($2 AS DATE)::timestamp AT TIME ZONE 'Europe/Berlin') AT TIME ZONE 'UTC' \
     AND occurred_at <= now() AT TIME ZONE 'UTC' GROUP BY 1, 2";

#[derive(QueryableByName)]
struct WeekSum {
    #[diesel(sql_type = Date)]
    week: time::Date,
    #[diesel(sql_type = Nullable<Text>)]
    foundation: Option<String>,
    #[diesel(sql_type = Nullable<BigInt>)]
    minutes: Option<i64>,
}

/// Minutes per foundation (in [`FOUNDATIONS`] order), then the unmapped minutes, per week.
type Weeks = BTreeMap<time::Date, [i64; 7]>;

fn raw_weeks(conn: &mut adapters_diesel::DbConnection, user: &str, first: time::Date) -> Weeks {
    let rows = diesel::sql_query(AGGREGATE)
        .bind::<Text, _>(user)
        .bind::<Date, _>(first)
        .load::<WeekSum>(pg(conn))
        .unwrap();
    let mut weeks = Weeks::new();
    for row in rows {
        let i = row
            .foundation
            .as_deref()
            .map_or(6, |f| FOUNDATIONS.iter().position(|k| *k == f).unwrap());
        weeks.entry(row.week).or_default()[i] += row.minutes.unwrap_or(0);
    }
    weeks
}

fn served_weeks(body: &[u8]) -> Weeks {
    let answer: Value = serde_json::from_slice(body).unwrap();
    assert_eq!(answer["time_zone"], ZONE);
    let weeks = answer["weeks"].as_array().unwrap();
    assert_eq!(weeks.len(), WEEKS);
    weeks
        .iter()
        .map(|w| {
            let start = time::Date::parse(
                w["week_start"].as_str().unwrap(),
                &time::format_description::well_known::Iso8601::DATE,
            )
            .unwrap();
            let mut sums = [0; 7];
            for (i, f) in FOUNDATIONS.iter().enumerate() {
                sums[i] = w["minutes"][f].as_i64().unwrap();
            }
            sums[6] = w["unmapped_minutes"].as_i64().unwrap();
            (start, sums)
        })
        // The raw aggregate has no row for an empty week.
        .filter(|(_, sums)| sums.iter().any(|m| *m != 0))
        .collect()
}

pub(crate) fn weekly(
    rt: &tokio::runtime::Runtime,
    server: &Service,
    db: &Database,
    person: &Person,
    samples: usize,
    report: &mut Vec<String>,
) {
    execute(
        db,
        &format!(
            "UPDATE users SET time_zone = '{ZONE}' WHERE id = '{}'",
            person.id
        ),
    );
    let path = format!("/integration/work-patterns/weekly?weeks={WEEKS}");
    let body = rt.block_on(server.get(&person.key, &path));
    let first: Value = serde_json::from_slice(&body).unwrap();
    let first = time::Date::parse(
        first["weeks"][0]["week_start"].as_str().unwrap(),
        &time::format_description::well_known::Iso8601::DATE,
    )
    .unwrap();
    let mut conn = db.connection().unwrap();
    let served = served_weeks(&body);
    let raw = raw_weeks(&mut conn, &person.id, first);
    assert_eq!(
        served, raw,
        "the service and PostgreSQL's own week grouping disagree"
    );

    for _ in 0..20 {
        raw_weeks(&mut conn, &person.id, first);
        rt.block_on(server.get(&person.key, &path));
    }
    let (mut direct, mut http) = (Vec::new(), Vec::new());
    for _ in 0..samples {
        let started = Instant::now();
        raw_weeks(&mut conn, &person.id, first);
        direct.push(started.elapsed().as_secs_f64() * 1e3);
        let started = Instant::now();
        drop(rt.block_on(server.get(&person.key, &path)));
        http.push(started.elapsed().as_secs_f64() * 1e3);
    }
    direct.sort_by(f64::total_cmp);
    http.sort_by(f64::total_cmp);
    let p50 = |s: &[f64]| s[s.len() / 2];
    let minutes: i64 = raw.values().map(|w| w.iter().sum::<i64>()).sum();
    report.push(format!(
        "weekly weeks={WEEKS} in {ZONE}: {} non-empty weeks, {} minutes in all (service = raw, \
         week by week); {samples} sequential requests after 20 to warm up",
        raw.len(),
        thousands(minutes)
    ));
    report.push(ratio_line(
        &format!(
            "weekly: GET /integration/work-patterns/weekly?weeks={WEEKS} p50 vs PostgreSQL's \
             AT TIME ZONE aggregate p50"
        ),
        p50(&http),
        p50(&direct),
        "ms",
        1.5,
        false,
    ));
}
