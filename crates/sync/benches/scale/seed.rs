//! The seed: people and task mappings (with their folded match keys, so none is legacy) in
//! set-based INSERTs, then VACUUM ANALYZE.

use std::time::Instant;

use adapters_diesel::Database;
use time::OffsetDateTime;

use super::{Plan, SPAN_SECONDS, count, execute, thousands};

/// `plan.people - 1` people and `plan.rows` task mappings in set-based INSERTs, then VACUUM
/// ANALYZE; reports the times and the size per million entries.
pub(crate) fn seed(db: &Database, plan: &Plan, heavy: &str, report: &mut Vec<String>) {
    let others = plan.people - 1;
    settle(db);
    let started = Instant::now();
    execute(
        db,
        &format!(
            "INSERT INTO users (id, email, name, created_at, last_login_at, oidc_issuer,
                                oidc_subject)
             SELECT {id}, 'person' || i || '@example.org', 'Person ' || i,
                    now() AT TIME ZONE 'UTC' - interval '400 days',
                    now() AT TIME ZONE 'UTC' - interval '1 day',
                    'https://id.example.org', 'subject-' || i
             FROM generate_series(1, {others}) AS i",
            id = other_id("i")
        ),
    );
    let people_time = started.elapsed();

    // Row g of n (0-based, oldest first): the rows are written in time order, every person's
    // interleaved, as a live service receives them. Row g is the heavy person's when
    // floor((g+1)H/n) > floor(gH/n) (exactly H rows, evenly spread), their h-th with
    // h = floor(gH/n); otherwise it is the k-th of the others' rows, k = g - floor((g+1)H/n),
    // and goes to person 1 + k % others.
    let (n, h) = (plan.rows, plan.heavy);
    let end = OffsetDateTime::now_utc().unix_timestamp() - 60;
    let chunk = 1_000_000;
    let started = Instant::now();
    let mut first = 0;
    while first < n {
        let last = (first + chunk).min(n) - 1;
        execute(
            db,
            &format!(
                "INSERT INTO task_mapping (id, user_id, external_task_id, task_label, foundation,
                                           mapped_by, minutes, occurred_at, created_at,
                                           updated_at, tags, match_label, match_tags, match_id)
                 SELECT r.*, lower(r.task_label), {match_tags}, NULL
                 FROM (SELECT gen_random_uuid()::text,
                        CASE WHEN s.heavy THEN '{heavy}' ELSE {other} END,
                        'seed-' || s.g,
                        CASE WHEN s.heavy THEN {heavy_label} ELSE {other_label} END AS task_label,
                        CASE WHEN s.heavy THEN {heavy_foundation} ELSE {other_foundation} END,
                        CASE WHEN s.heavy THEN {heavy_by} ELSE {other_by} END,
                        5 + (s.g * 37) % 236, s.at, s.at, s.at,
                        CASE WHEN s.heavy THEN {heavy_tags} ELSE {other_tags} END AS tags
                 FROM (SELECT g, (g + 1) * {h} / {n} > g * {h} / {n} AS heavy,
                              (g * {h} / {n})::int AS h, (g - (g + 1) * {h} / {n})::int AS k,
                              to_timestamp({end} - ({n} - 1 - g) * {SPAN_SECONDS} / {n})
                                  AT TIME ZONE 'UTC' AS at
                       FROM generate_series({first}::bigint, {last}::bigint) AS g) AS s) AS r",
                other = other_id(&format!("1 + s.k % {others}")),
                heavy_label = HEAVY_LABEL,
                heavy_foundation = HEAVY_FOUNDATION,
                heavy_by = HEAVY_BY,
                heavy_tags = HEAVY_TAGS,
                other_label = OTHER_LABEL,
                other_foundation = OTHER_FOUNDATION,
                other_by = OTHER_BY,
                other_tags = OTHER_TAGS,
                match_tags = MATCH_TAGS,
            ),
        );
        eprintln!(
            "seeded {} of {} task mappings ({:.0?})",
            thousands(last + 1),
            thousands(n),
            started.elapsed()
        );
        first = last + 1;
    }
    let rows_time = started.elapsed();
    let started = Instant::now();
    execute(db, "VACUUM ANALYZE");
    let vacuum_time = started.elapsed();
    report.push(format!(
        "seed: {} people {:.1} s; {} task mappings {:.1} s ({} rows/s, set-based INSERTs of \
         at most 1,000,000 rows each, in time order); VACUUM ANALYZE {:.1} s",
        thousands(others),
        people_time.as_secs_f64(),
        thousands(n),
        rows_time.as_secs_f64(),
        thousands((n as f64 / rows_time.as_secs_f64()) as i64),
        vacuum_time.as_secs_f64()
    ));

    let size = |sql: &str| count(db, sql);
    let total = size("SELECT pg_total_relation_size('task_mapping') AS n");
    let heap = size("SELECT pg_relation_size('task_mapping') AS n");
    let indexes = size("SELECT pg_indexes_size('task_mapping') AS n");
    let database = size("SELECT pg_database_size(current_database()) AS n");
    let millions = n as f64 / 1e6;
    let mb = |bytes: i64| bytes as f64 / 1_048_576.0;
    report.push(format!(
        "size: task_mapping {:.0} MB (heap {:.0} MB, indexes {:.0} MB) = {:.1} MB per million \
         entries; database {:.0} MB = {:.1} MB per million entries",
        mb(total),
        mb(heap),
        mb(indexes),
        mb(total) / millions,
        mb(database),
        mb(database) / millions
    ));

    let mix = count(
        db,
        &format!(
            "SELECT count(*) AS n FROM task_mapping
             WHERE user_id = '{heavy}' AND task_label = 'Deep work' AND foundation IS NULL"
        ),
    );
    assert_eq!(mix, plan.deep_work(), "the seeded Deep work entries");
    let heavy_rows = count(
        db,
        &format!("SELECT count(*) AS n FROM task_mapping WHERE user_id = '{heavy}'"),
    );
    assert_eq!(heavy_rows, plan.heavy, "the heavy person's entries");
    let legacy = count(
        db,
        "SELECT count(*) AS n FROM task_mapping WHERE match_tags IS NULL",
    );
    assert_eq!(legacy, 0, "seeded rows carry their match keys");
    let queued = count(db, "SELECT count(*) AS n FROM reclassification");
    assert_eq!(queued, 0, "no re-classification job over the seed");
}

/// Waits until the jobs the standing rules queued (over no entries yet) are done, so none
/// reads the seed half-written.
fn settle(db: &Database) {
    let started = Instant::now();
    while count(db, "SELECT count(*) AS n FROM reclassification") > 0 {
        assert!(
            started.elapsed().as_secs() < 60,
            "the standing rules' jobs did not finish"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The id of other person `i` (an SQL expression), UUID-shaped.
fn other_id(i: &str) -> String {
    format!("format('%s-0000-7000-8000-000000000001', lpad(to_hex({i}), 8, '0'))")
}

// The heavy person's mix, by h % 20: 0-1 unmapped "Deep work" (10%), 2 other unmapped (5%),
// 3-7 mapped by one of STANDING_RULES (25%), 8-19 sent with a foundation (60%).
const HEAVY_LABEL: &str = "CASE WHEN s.h % 20 < 2 THEN 'Deep work'
      WHEN s.h % 20 = 2 THEN (ARRAY['Inbox', 'Errands', NULL])[1 + s.h / 20 % 3]
      WHEN s.h % 20 < 5 THEN 'Checkout page'
      WHEN s.h % 20 < 7 THEN 'Gym'
      WHEN s.h % 20 = 7 THEN 'Code review'
      ELSE 'Task ' || s.h % 50 END";
const HEAVY_FOUNDATION: &str = "CASE WHEN s.h % 20 < 3 THEN NULL
      WHEN s.h % 20 < 5 THEN 'mission'
      WHEN s.h % 20 < 7 THEN 'strength'
      WHEN s.h % 20 = 7 THEN 'long_term'
      ELSE (ARRAY['love', 'strength', 'mission', 'vocation', 'short_term', 'long_term'])
           [1 + s.h % 6] END";
const HEAVY_BY: &str =
    "CASE WHEN s.h % 20 < 3 THEN NULL WHEN s.h % 20 < 8 THEN 'rule' ELSE 'client' END";
const HEAVY_TAGS: &str = "CASE
      WHEN s.h % 20 < 2 THEN (ARRAY['[]', '[\"focus\"]'])[1 + s.h / 20 % 2]
      WHEN s.h % 20 = 2 THEN (ARRAY['[]', '[\"misc\"]'])[1 + s.h / 20 % 2]
      WHEN s.h % 20 < 5 THEN '[\"project:Website\",\"dev\"]'
      WHEN s.h % 20 < 8 THEN '[]'
      ELSE (ARRAY['[]', '[\"project:Website\"]', '[\"project:Reading\",\"books\"]'])
           [1 + s.h % 3] END";
// The folded tags of `r.tags` as the service stores them (matching.rs `MatchKeys`): '' for none,
// else each lower-cased between unit separators; the labels and ids are ASCII, where `lower`
// is the fold, and the ids already folded (`match_id` NULL).
const MATCH_TAGS: &str = "CASE WHEN r.tags = '[]' THEN '' ELSE chr(31) || array_to_string(
      ARRAY(SELECT lower(t) FROM jsonb_array_elements_text(r.tags::jsonb) WITH ORDINALITY
            AS e(t, o) ORDER BY o), chr(31)) || chr(31) END";
// The others': a tenth unmapped, the rest sent with a foundation.
const OTHER_LABEL: &str = "CASE WHEN s.k % 10 = 0 THEN 'Misc' ELSE 'Task ' || s.k % 40 END";
const OTHER_FOUNDATION: &str = "CASE WHEN s.k % 10 = 0 THEN NULL
      ELSE (ARRAY['love', 'strength', 'mission', 'vocation', 'short_term', 'long_term'])
           [1 + s.k % 6] END";
const OTHER_BY: &str = "CASE WHEN s.k % 10 = 0 THEN NULL ELSE 'client' END";
const OTHER_TAGS: &str = "(ARRAY['[]', '[\"project:Work\"]'])[1 + s.k % 2]";
