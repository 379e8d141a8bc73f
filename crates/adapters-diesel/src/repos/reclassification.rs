//! The re-classification job of one person (docs/api.md, "Mapping rules and unmapped time"): queued
//! by a rule change in the change's own transaction, then run a step at a time.
//!
//! **A step** reads the next [`READ_CHUNK`] of the person's candidates (unmapped or rule-mapped,
//! in the job's scope, by external id after `resume_after`) in a read transaction, which on
//! SQLite does not take the writer, and decides each once with the compiled rules. Only then
//! does it write, in short write transactions (stretches): under the same lock a rule change
//! takes, each checks that the job is where the read left it (no rule changed: `generation`;
//! no other worker took it: `resume_after`), so the read's rules still hold; reads again just
//! the rows it would change (an upsert may have rewritten one), decides them again, writes
//! them, and moves `resume_after`. A stretch writes at most [`POSTGRES_WRITE_CAP`] rows on
//! PostgreSQL, where it holds only those rows; on SQLite, whose single writer everyone waits
//! for, as many as the writer allows at that moment: many while no one else writes, a few
//! dozen while people do (`SqliteWriter::background_cap`).
//!
//! **Why the end state is one atomic pass's.** Every rule change bumps `generation` and sends
//! the job back to the first candidate with the union of the scopes, so the last sweep runs
//! entirely under the rules as they finally stand; an entry written meanwhile was decided by
//! those same rules when written (see `rule_application`). A crash loses at most the step in
//! flight: the job row says where to resume.

use std::collections::HashMap;
use std::sync::Arc;

use diesel::connection::SimpleConnection;
use diesel::dsl::count_star;
use diesel::prelude::*;
use domain::foundation::Foundation;
use domain::ids::UserId;
use domain::integration::{
    MappedBy, MatchKeys, MatchKind, Pattern, Reclassification, RuleMatch, RuleSet, Scope,
};
use time::OffsetDateTime;

use super::rule_application::{load_rules, lock_for_rule_change};
use crate::connection::DbConnection;
use crate::convert::{invalid, parse, to_db};
use crate::error::StoreResult;
use crate::expressions::InScope;
use crate::models::task_mapping::{mapping_columns, tags_from_json};
use crate::schema::{reclassification, task_mapping};

/// Candidates a step reads and decides.
pub(crate) const READ_CHUNK: i64 = 2_000;

/// The most rows one write transaction of a step changes on PostgreSQL, where it holds only
/// those rows. On SQLite, whose single writer everyone else waits for meanwhile, the writer
/// sets it from moment to moment (`SqliteWriter::background_cap`).
pub(crate) const POSTGRES_WRITE_CAP: usize = 1_000;

/// A queued job as stored.
#[derive(Debug, Clone)]
pub(crate) struct Job {
    generation: i64,
    scope: Scope,
    resume_after: Option<String>,
    done: i64,
    total: Option<i64>,
}

/// Queues the re-classification of `scope` for the person, or restarts the queued job from the
/// first candidate over both scopes. Runs inside the rule change's transaction, after
/// [`lock_for_rule_change`].
pub(crate) fn enqueue(conn: &mut DbConnection, user: &str, scope: Scope) -> StoreResult<()> {
    use reclassification as r;
    match load_job(conn, user)? {
        Some(job) => {
            let scope = match scope {
                Scope::Every => Scope::Every,
                Scope::Matching(more) => job.scope.widened(more),
            };
            diesel::update(r::table.filter(r::user_id.eq(user)))
                .set((
                    r::generation.eq(job.generation + 1),
                    r::scope.eq(scope_json(&scope)),
                    r::resume_after.eq(None::<String>),
                    r::done.eq(0),
                    r::total.eq(None::<i64>),
                ))
                .execute(conn)?;
        }
        None => {
            diesel::insert_into(r::table)
                .values((
                    r::user_id.eq(user),
                    r::generation.eq(1),
                    r::scope.eq(scope_json(&scope)),
                    r::resume_after.eq(None::<String>),
                    r::done.eq(0),
                    r::total.eq(None::<i64>),
                ))
                .execute(conn)?;
        }
    }
    Ok(())
}

/// How far the person's job is.
pub(crate) fn progress(conn: &mut DbConnection, user: &str) -> StoreResult<Reclassification> {
    Ok(
        load_job(conn, user)?.map_or_else(Reclassification::default, |job| Reclassification {
            running: true,
            done: u64::try_from(job.done).unwrap_or(0),
            total: job.total.map_or(0, |t| u64::try_from(t).unwrap_or(0)),
        }),
    )
}

/// People with a queued job.
pub(crate) fn queue(conn: &mut DbConnection, limit: u32) -> StoreResult<Vec<UserId>> {
    use reclassification as r;
    r::table
        .select(r::user_id)
        .order(r::user_id.asc())
        .limit(i64::from(limit))
        .load::<String>(conn)?
        .iter()
        .map(|id| Ok(parse(id, "reclassification.user_id")?))
        .collect()
}

/// A job row: generation, scope, resume_after, done, total.
type JobRow = (i64, Option<String>, Option<String>, i64, Option<i64>);

fn load_job(conn: &mut DbConnection, user: &str) -> StoreResult<Option<Job>> {
    use reclassification as r;
    let row: Option<JobRow> = r::table
        .filter(r::user_id.eq(user))
        .select((r::generation, r::scope, r::resume_after, r::done, r::total))
        .first(conn)
        .optional()?;
    row.map(|(generation, scope, resume_after, done, total)| {
        Ok(Job {
            generation,
            scope: scope_from_json(scope.as_deref())?,
            resume_after,
            done,
            total,
        })
    })
    .transpose()
}

/// A scope as stored: NULL for every candidate, else `[[kind, pattern], ...]` (the pattern as
/// the person wrote it; it is folded again when read).
fn scope_json(scope: &Scope) -> Option<String> {
    match scope {
        Scope::Every => None,
        Scope::Matching(matches) => {
            let pairs: Vec<(&str, &str)> = matches
                .iter()
                .map(|m| (m.kind().key(), m.pattern()))
                .collect();
            serde_json::to_string(&pairs).ok()
        }
    }
}

fn scope_from_json(raw: Option<&str>) -> StoreResult<Scope> {
    let Some(raw) = raw else {
        return Ok(Scope::Every);
    };
    let pairs: Vec<(String, String)> =
        serde_json::from_str(raw).map_err(|_| invalid("reclassification.scope"))?;
    let matches = pairs
        .into_iter()
        .map(|(kind, pattern)| {
            let kind =
                MatchKind::from_key(&kind).ok_or_else(|| invalid("reclassification.scope"))?;
            let pattern =
                Pattern::non_blank(pattern).map_err(|_| invalid("reclassification.scope"))?;
            Ok(RuleMatch::new(kind, pattern))
        })
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(Scope::Matching(matches))
}

/// What a step reads of a candidate: external id, label, tags (JSON), foundation and the
/// folded keys (`match_tags` NULL: written before they existed).
type CandidateRow = (
    String,
    Option<String>,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
);

/// One candidate, decided.
struct Decided {
    external_task_id: String,
    /// What it holds now and what the rules give it.
    current: Option<Foundation>,
    decided: Option<Foundation>,
    /// Its keys, when they were missing and have to be written.
    missing_keys: Option<MatchKeys>,
}

impl Decided {
    fn of(row: CandidateRow, rules: &RuleSet) -> StoreResult<Self> {
        let (external_task_id, label, tags, current, match_label, match_tags, match_id) = row;
        let (keys, missing) = match match_tags {
            Some(tags) => (
                MatchKeys {
                    label: match_label,
                    tags,
                    id: match_id,
                },
                false,
            ),
            None => (
                MatchKeys::of(&external_task_id, label.as_deref(), &tags_from_json(&tags)?),
                true,
            ),
        };
        let decided = rules.decide(&keys, &external_task_id);
        let current = current
            .as_deref()
            .map(|f| parse(f, "task_mapping.foundation"))
            .transpose()?;
        Ok(Self {
            external_task_id,
            current,
            decided,
            missing_keys: missing.then_some(keys),
        })
    }

    /// Whether the step has to write this row.
    fn needs_write(&self) -> bool {
        self.decided != self.current || self.missing_keys.is_some()
    }
}

/// The candidates of the scope (by external id), as a filtered query.
macro_rules! candidates {
    ($user:expr, $scope:expr) => {{
        use task_mapping as tm;
        tm::table
            .filter(tm::user_id.eq($user))
            .filter(
                tm::mapped_by
                    .is_null()
                    .or(tm::mapped_by.eq(MappedBy::Rule.key())),
            )
            .filter($scope)
    }};
}

const COLUMNS: (
    task_mapping::external_task_id,
    task_mapping::task_label,
    task_mapping::tags,
    task_mapping::foundation,
    task_mapping::match_label,
    task_mapping::match_tags,
    task_mapping::match_id,
) = (
    task_mapping::external_task_id,
    task_mapping::task_label,
    task_mapping::tags,
    task_mapping::foundation,
    task_mapping::match_label,
    task_mapping::match_tags,
    task_mapping::match_id,
);

/// What the read half of a step found.
pub(crate) struct Read {
    job: Job,
    /// Counted in this step (the job had no total yet).
    counted: Option<i64>,
    /// The rules the candidates were decided with: still the person's rules as long as the
    /// job's generation has not moved.
    rules: Arc<RuleSet>,
    /// The candidates read, in order; `exhausted` when they were the last ones.
    decided: Vec<Decided>,
    exhausted: bool,
}

/// The read half of a step: `None` when no job is queued. Runs in a read transaction.
pub(crate) fn read_step(conn: &mut DbConnection, user: &str) -> StoreResult<Option<Read>> {
    use task_mapping as tm;
    let Some(job) = load_job(conn, user)? else {
        return Ok(None);
    };
    let scope = InScope::new(&job.scope);
    let counted = match job.total {
        Some(_) => None,
        None => Some(
            candidates!(user, scope.clone())
                .select(count_star())
                .first::<i64>(conn)?,
        ),
    };
    let rules = RuleSet::new(&load_rules(conn, user)?);
    let rows: Vec<CandidateRow> = candidates!(user, scope)
        .filter(tm::external_task_id.gt(job.resume_after.as_deref().unwrap_or("")))
        .order(tm::external_task_id.asc())
        .limit(READ_CHUNK)
        .select(COLUMNS)
        .load(conn)?;
    let exhausted = i64::try_from(rows.len()).unwrap_or(i64::MAX) < READ_CHUNK;
    let decided = rows
        .into_iter()
        .map(|row| Decided::of(row, &rules))
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(Some(Read {
        job,
        counted,
        rules: Arc::new(rules),
        decided,
        exhausted,
    }))
}

/// One write transaction's share of a read: the rows to write, and where the job stands before
/// and after them.
pub(crate) struct Stretch {
    /// The job's generation and `resume_after` this stretch follows on from.
    generation: i64,
    after: Option<String>,
    /// Candidates it covers, and the ones among them to write.
    covered: i64,
    to_write: Vec<String>,
    /// Its last candidate, and whether it ends the job.
    last: Option<String>,
    ends_job: bool,
    done_before: i64,
    total: Option<i64>,
    rules: Arc<RuleSet>,
}

impl Stretch {
    /// Entries it decides again.
    pub(crate) fn covered(&self) -> u64 {
        u64::try_from(self.covered).unwrap_or(0)
    }
}

impl Read {
    /// The read as stretches, each its own short write transaction, cut one at a time (in
    /// order: each follows on from where the one before left).
    pub(crate) fn into_stretches(self) -> Stretches {
        Stretches {
            total: self.counted.or(self.job.total),
            generation: self.job.generation,
            after: self.job.resume_after,
            done: self.job.done,
            exhausted: self.exhausted,
            empty: self.decided.is_empty(),
            decided: self.decided.into_iter().peekable(),
            rules: self.rules,
        }
    }
}

/// The stretches of a read not yet cut.
pub(crate) struct Stretches {
    total: Option<i64>,
    generation: i64,
    after: Option<String>,
    done: i64,
    exhausted: bool,
    /// The read found no candidate: one stretch, which only ends the job.
    empty: bool,
    decided: std::iter::Peekable<std::vec::IntoIter<Decided>>,
    rules: Arc<RuleSet>,
}

impl Stretches {
    /// The next stretch, with at most `cap` rows to write; `None` when the read is used up.
    pub(crate) fn next(&mut self, cap: usize) -> Option<Stretch> {
        let cap = cap.max(1);
        if std::mem::take(&mut self.empty) {
            return Some(self.stretch(0, Vec::new(), None, true));
        }
        let mut to_write = Vec::new();
        let mut covered = 0;
        while let Some(decided) = self.decided.next() {
            covered += 1;
            if decided.needs_write() {
                to_write.push(decided.external_task_id.clone());
            }
            let last_one = self.decided.peek().is_none();
            if to_write.len() == cap || last_one {
                let last = Some(decided.external_task_id);
                let stretch = self.stretch(covered, to_write, last, last_one && self.exhausted);
                self.after.clone_from(&stretch.last);
                self.done += covered;
                return Some(stretch);
            }
        }
        None
    }

    fn stretch(
        &self,
        covered: i64,
        to_write: Vec<String>,
        last: Option<String>,
        ends_job: bool,
    ) -> Stretch {
        Stretch {
            generation: self.generation,
            after: self.after.clone(),
            covered,
            to_write,
            last,
            ends_job,
            done_before: self.done,
            total: self.total,
            rules: Arc::clone(&self.rules),
        }
    }
}

/// What a stretch's write did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wrote {
    /// Written; the job goes on.
    Moved,
    /// Written, and the job is done (its row deleted), or found already done: nothing written.
    Ended,
    /// The job is no longer where the read found it (a rule change restarted it, or another
    /// worker took this stretch): nothing written.
    Stale,
}

/// The write half of a step for one stretch, in a write transaction: unless the job moved
/// since the read, writes the stretch's rows (decided again under the lock) and moves the job
/// on, or ends it.
pub(crate) fn write_stretch(
    conn: &mut DbConnection,
    user: &str,
    stretch: &Stretch,
    now: OffsetDateTime,
) -> StoreResult<Wrote> {
    use reclassification as r;
    if let DbConnection::Postgresql(pg) = conn {
        // The job's commits need not wait for their WAL to reach the disk, so they do not
        // queue people's commits behind flushes of their own. A crash loses only a suffix of
        // the WAL, whole transactions: the job row moves in the stretch's transaction, so the
        // job resumes after the last stretch that reached the disk, as after any crash.
        pg.batch_execute("SET LOCAL synchronous_commit = off")?;
    }
    lock_for_rule_change(conn, user)?;
    match load_job(conn, user)? {
        // Still where the read found it: no rule changed, and no other worker took this stretch.
        Some(job) if job.generation == stretch.generation && job.resume_after == stretch.after => {}
        Some(_) => return Ok(Wrote::Stale),
        // Another worker ended it meanwhile.
        None => return Ok(Wrote::Ended),
    }
    apply(conn, user, &stretch.rules, &stretch.to_write, now)?;
    if stretch.ends_job {
        diesel::delete(r::table.filter(r::user_id.eq(user))).execute(conn)?;
        return Ok(Wrote::Ended);
    }
    diesel::update(r::table.filter(r::user_id.eq(user)))
        .set((
            r::resume_after.eq(&stretch.last),
            r::done.eq(stretch.done_before + stretch.covered),
            r::total.eq(stretch.total),
        ))
        .execute(conn)?;
    Ok(Wrote::Moved)
}

/// Reads the rows again (an upsert may have rewritten one since the read half), decides them
/// again with the rules under the lock, and writes those whose foundation changes (with a new
/// `updated_at`) or whose keys were missing.
fn apply(
    conn: &mut DbConnection,
    user: &str,
    rules: &RuleSet,
    external_ids: &[String],
    now: OffsetDateTime,
) -> StoreResult<()> {
    use task_mapping as tm;
    if external_ids.is_empty() {
        return Ok(());
    }
    let mut moves: HashMap<Option<Foundation>, Vec<String>> = HashMap::new();
    let mut keys_missing: Vec<(String, Decided, MatchKeys)> = Vec::new();
    // Below SQLite's and PostgreSQL's parameter limits, with room for the rest.
    for ids in external_ids.chunks(1_000) {
        let rows: Vec<CandidateRow> = candidates!(user, InScope::new(&Scope::Every))
            .filter(tm::external_task_id.eq_any(ids))
            .select(COLUMNS)
            .load(conn)?;
        for row in rows {
            let mut decided = Decided::of(row, rules)?;
            match decided.missing_keys.take() {
                Some(keys) => keys_missing.push((decided.external_task_id.clone(), decided, keys)),
                None if decided.decided != decided.current => moves
                    .entry(decided.decided)
                    .or_default()
                    .push(decided.external_task_id),
                None => {}
            }
        }
    }
    let now = to_db(now);
    let candidate = tm::mapped_by
        .is_null()
        .or(tm::mapped_by.eq(MappedBy::Rule.key()));
    for (foundation, ids) in moves {
        let (foundation, mapped_by) = mapping_columns(foundation.map(|f| (f, MappedBy::Rule)));
        for chunk in ids.chunks(1_000) {
            diesel::update(
                tm::table
                    .filter(tm::user_id.eq(user))
                    .filter(tm::external_task_id.eq_any(chunk))
                    .filter(candidate),
            )
            .set((
                tm::foundation.eq(foundation),
                tm::mapped_by.eq(mapped_by),
                tm::updated_at.eq(now),
            ))
            .execute(conn)?;
        }
    }
    // Rows written before the keys existed: one statement each, once in their life.
    for (external_id, decided, keys) in keys_missing {
        let row = tm::table
            .filter(tm::user_id.eq(user))
            .filter(tm::external_task_id.eq(&external_id))
            .filter(candidate);
        let keys = (
            tm::match_label.eq(&keys.label),
            tm::match_tags.eq(&keys.tags),
            tm::match_id.eq(&keys.id),
        );
        if decided.decided == decided.current {
            diesel::update(row).set(keys).execute(conn)?;
        } else {
            let (foundation, mapped_by) =
                mapping_columns(decided.decided.map(|f| (f, MappedBy::Rule)));
            diesel::update(row)
                .set((
                    keys,
                    tm::foundation.eq(foundation),
                    tm::mapped_by.eq(mapped_by),
                    tm::updated_at.eq(now),
                ))
                .execute(conn)?;
        }
    }
    Ok(())
}
